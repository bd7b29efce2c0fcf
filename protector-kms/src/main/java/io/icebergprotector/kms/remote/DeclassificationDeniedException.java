/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import io.icebergprotector.kms.KeyServiceException;
import java.util.List;

/**
 * The key server refused a declassification: no role of the principal may declassify the source.
 */
public class DeclassificationDeniedException extends KeyServiceException {
  private final String principal;
  private final String source;
  private final List<String> columns;

  public DeclassificationDeniedException(
      String principal, String source, List<String> columns, String server) {
    super(
        String.format(
            "principal '%s' is not allowed to declassify columns %s of %s: none of its roles is in that"
                + " entry's declassify list (key service at %s)",
            principal, columns, source, server));
    this.principal = principal;
    this.source = source;
    this.columns = List.copyOf(columns);
  }

  public String principal() {
    return principal;
  }

  public String source() {
    return source;
  }

  public List<String> columns() {
    return columns;
  }
}
