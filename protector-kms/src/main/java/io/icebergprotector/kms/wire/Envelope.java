/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Vault's envelope around every answer: {@code {"data": {...}}}, or {@code {"errors": ["..."]}} for
 * a refusal, which the key server's 403 extends with the caller's own {@code principal}.
 */
public final class Envelope {
  public static final String DATA = "data";
  public static final String ERRORS = "errors";
  public static final String PRINCIPAL = "principal";

  private Envelope() {}

  /** {@code {"data": data}}. */
  public static Map<String, Object> data(Object data) {
    return JsonCodec.object(DATA, data);
  }

  /** {@code {"errors": [message]}}, open for more members. */
  public static Map<String, Object> error(String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put(ERRORS, List.of(message));
    return body;
  }
}
