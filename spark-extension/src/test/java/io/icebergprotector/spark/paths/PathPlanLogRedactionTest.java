/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.LogCapture;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark's {@code FileSourceStrategy} logs the pushed and post-scan filters of a Parquet read at
 * INFO: under a policy prefix, their literals are redacted for every reader; elsewhere they stay.
 */
class PathPlanLogRedactionTest extends PathSessionTest {
  private static final String STRATEGY = "FileSourceStrategy";

  @BeforeAll
  static void start() throws IOException {
    startSession("protector-path-logs", PathParquetTest::policy);
    asUser(
        "etl",
        () -> {
          spark.sql(PathParquetTest.source(0, 4)).write().parquet(dir("pii/customers"));
          spark.sql(PathParquetTest.source(0, 4)).write().parquet(dir("open/people"));
          return null;
        });
  }

  @Test
  void filtersOnProtectedPathsAreRedactedForEveryReader() {
    try (LogCapture logs = new LogCapture()) {
      for (String user : List.of("alice", "bob", "etl")) {
        asUser(
            user,
            () ->
                spark
                    .read()
                    .parquet(dir("pii/customers"))
                    .where(
                        col("ssn")
                            .equalTo("PATH-CANARY-EQ")
                            .or(col("address.zip").isin("PATH-CANARY-ZIP"))
                            .or(col("phone").startsWith("PATH-CANARY-PREFIX")))
                    .collectAsList());
      }
      assertThat(logs.lines()).anyMatch(line -> line.contains(STRATEGY));
      assertThat(logs.lines()).noneMatch(line -> line.contains("PATH-CANARY"));
    }
  }

  @Test
  void filtersOnOtherPathsKeepTheirLiterals() {
    try (LogCapture logs = new LogCapture()) {
      spark.read().parquet(dir("open/people")).where(col("ssn").equalTo("OPEN-LITERAL")).count();
      assertThat(logs.lines())
          .filteredOn(line -> line.contains(STRATEGY))
          .anyMatch(line -> line.contains("OPEN-LITERAL"));
    }
  }
}
