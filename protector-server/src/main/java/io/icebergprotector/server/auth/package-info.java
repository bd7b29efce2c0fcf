/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Who is calling and what they may do: personal tokens and JWTs make a {@link
 * io.icebergprotector.server.auth.Caller}, the policy's shared rule authorizes it per key name, and
 * each authenticated principal has its own request limit.
 */
package io.icebergprotector.server.auth;
