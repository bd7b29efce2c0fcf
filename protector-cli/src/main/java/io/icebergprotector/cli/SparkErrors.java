/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import org.apache.spark.sql.AnalysisException;

/**
 * One line for a Spark failure. Spark wraps task failures in "Job aborted due to stage failure" and
 * appends query plans to analysis errors; the user needs the cause, e.g. the protector's
 * access-denied message.
 */
final class SparkErrors {
  private SparkErrors() {}

  static CliException wrap(Throwable e) {
    return new CliException(message(e), e);
  }

  static String message(Throwable e) {
    Throwable own = null;
    Throwable deepest = e;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String name = t.getClass().getName();
      if (own == null
          && (name.startsWith("io.icebergprotector.") || name.contains(".parquet.crypto."))) {
        own = t;
      }
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        deepest = t;
      }
    }
    if (own != null && own.getMessage() != null) {
      return firstLine(own.getMessage());
    }
    if (e instanceof AnalysisException) {
      return firstLine(((AnalysisException) e).getSimpleMessage());
    }
    Throwable chosen =
        e.getMessage() != null && e.getMessage().startsWith("Job aborted") ? deepest : e;
    String msg = chosen.getMessage();
    return msg == null || msg.isBlank() ? chosen.toString() : firstLine(msg);
  }

  private static String firstLine(String s) {
    String line = s.strip();
    int nl = line.indexOf('\n');
    return nl < 0 ? line : line.substring(0, nl).strip();
  }
}
