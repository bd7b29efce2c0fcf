/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The key server's API, one class per resource: Transit encrypt, decrypt and hmac; key
 * administration; the protector's token endpoints; policy, whoami and declassification; health and
 * metrics. {@link io.icebergprotector.server.routes.RouteTable} maps the paths to them.
 */
package io.icebergprotector.server.routes;
