/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The key server's configuration: the {@code protector-server} block of its HOCON file, checked as
 * it is read.
 */
package io.icebergprotector.server.config;
