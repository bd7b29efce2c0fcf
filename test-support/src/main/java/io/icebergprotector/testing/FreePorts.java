/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ephemeral loopback ports for servers that must be told their port up front. */
public final class FreePorts {
  private FreePorts() {}

  /**
   * A port that was free a moment ago. Another process may take it before the server binds; the
   * server then fails its health check with "Address already in use" in its log.
   */
  public static int next() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free loopback port", e);
    }
  }
}
