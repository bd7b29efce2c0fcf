/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import java.io.InputStream;

/**
 * What the API reads of one HTTP request, whatever the transport. The answer goes back as a {@link
 * Reply}.
 */
interface HttpCall {
  /** The request method as sent (e.g. {@code POST}, {@code LIST}). */
  String method();

  /** The path as sent, still percent-encoded. */
  String rawPath();

  /** The query as sent, still percent-encoded; null when there is none. */
  String rawQuery();

  /** The first value of a request header; null when absent. */
  String header(String name);

  /** The client's IP address; null when unknown. */
  String clientAddress();

  /** The request body; read at most once. Reads block until data arrives or the idle timeout. */
  InputStream body();
}
