/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import java.util.Map;

/** The answer to one request, for the transport to send. */
record Reply(int status, Map<String, String> headers, byte[] body) {}
