/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The key server's HTTP layer: the Jetty adapter, the router, and the {@link
 * io.icebergprotector.server.http.Exchange} through which every route authenticates its caller,
 * reads its body, writes its audit line and replies, so that each of these is done one way.
 */
package io.icebergprotector.server.http;
