/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

/**
 * Serves one route. {@code tail} is the raw path below the route's prefix split at '/' (the action
 * first; empty for an exact route); the route checks the method, authenticates and decides
 * everything else through the {@link Exchange}.
 */
@FunctionalInterface
public interface Route {
  void serve(Exchange exchange, String[] tail);
}
