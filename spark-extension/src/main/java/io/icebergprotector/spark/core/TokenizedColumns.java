/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.policy.TablePolicy;

/**
 * Where field-level tokens are not supported, refuses them rather than store something else than
 * the policy says: plain Parquet paths (their writes and reads are PME only) refuse every tokenized
 * column, protected tables refuse tokenized columns nested in a struct (tokens are computed on
 * top-level columns).
 */
public final class TokenizedColumns {
  private TokenizedColumns() {}

  /**
   * Refuses a table entry with a tokenized column below a struct.
   *
   * @throws ProtectorException naming the table and the column
   */
  public static void refuseNested(TablePolicy table) {
    for (ColumnPolicy column : table.columns()) {
      if (column.tokenized() && column.pathParts().size() > 1) {
        throw new ProtectorException(
            String.format(
                "Cannot read or write %s: column '%s' is tokenized (method '%s') inside a struct,"
                    + " and protected tables tokenize top-level columns only; move it to the top"
                    + " level or declare it with method = pme",
                table.name(), column.path(), column.method().spec()));
      }
    }
  }

  /**
   * Refuses a plain-Parquet path entry with field-level tokens.
   *
   * @throws ProtectorException for the first column that is not a plain PME column
   */
  public static void refuse(TablePolicy table) {
    for (ColumnPolicy column : table.columns()) {
      boolean tokenized = column.method().kind() != ProtectionMethod.Kind.PME;
      if (tokenized || !column.pme() || !column.tokenRoles().isEmpty()) {
        throw new ProtectorException(
            String.format(
                "Cannot read or write %s: column '%s' is declared with method '%s'%s%s, and"
                    + " plain Parquet paths do not tokenize on write or detokenize on read (protected"
                    + " Iceberg tables do); declare it with method = pme, or tokenize values with"
                    + " protect(value, '%s') before writing them to an unprotected column",
                table.name(),
                column.path(),
                column.method().spec(),
                column.pme() ? "" : ", pme = false",
                column.tokenRoles().isEmpty() ? "" : ", token = " + column.tokenRoles(),
                column.domain()));
      }
    }
  }
}
