/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The policy the key server decides under: one parsed version at a time, served whole to each
 * request, and replaced (audited first) when the file's rules change.
 */
package io.icebergprotector.server.policy;
