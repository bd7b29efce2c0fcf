/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.bench;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.masks.ColumnMask;
import io.icebergprotector.spark.masks.MaskEngine;
import io.icebergprotector.spark.masks.MaskType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;

/**
 * The vector kernel of each mask on one 4096-row column vector (one in ten values NULL), as the
 * columnar reader runs it per batch: nanoseconds per row in the fastest of 10 timed rounds, after a
 * warm-up. Prints numbers, asserts nothing.
 *
 * <pre>java -cp "benchmarks/target/classes:$(cat benchmarks/target/benchmark-classpath.txt)"
 *   io.icebergprotector.bench.MaskKernelBenchmark</pre>
 */
public final class MaskKernelBenchmark {
  static final int ROWS = 4096;
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  private MaskKernelBenchmark() {}

  public static void main(String[] args) {
    DataType decimal = DataTypes.createDecimalType(12, 2);
    List<Object[]> cases =
        List.of(
            new Object[] {"partial(keep_last=4)", DataTypes.StringType},
            new Object[] {"hash", DataTypes.StringType},
            new Object[] {"redact", DataTypes.StringType},
            new Object[] {"hash", DataTypes.LongType},
            new Object[] {"hash", decimal},
            new Object[] {"redact", decimal},
            new Object[] {"redact", DataTypes.LongType},
            new Object[] {"year", DataTypes.DateType},
            new Object[] {"year", DataTypes.TimestampType});
    System.out.printf(
        Locale.ROOT,
        "| mask | type | ns/row (fastest of 10 rounds) | batches of %d rows/round |%n",
        ROWS);
    System.out.println("|---|---|---:|---:|");
    for (Object[] c : cases) {
      String spec = (String) c[0];
      DataType type = (DataType) c[1];
      ColumnMask mask =
          MaskEngine.columnMask(Mask.parse(spec), MaskType.of(type), "c", "", KEY::clone);
      try (OnHeapColumnVector in = input(type);
          OnHeapColumnVector out = new OnHeapColumnVector(ROWS, type)) {
        Runnable batch =
            () -> {
              out.reset();
              mask.fill(in, ROWS, out);
            };
        long[] result = measure(batch);
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %.1f | %,d |%n",
            spec,
            type.simpleString(),
            result[0] / 1000.0,
            result[1]);
      }
    }
  }

  /**
   * {ns per row x 1000, batches per round}: the fastest of 10 rounds of about 0.2 s after a 2 s
   * warm-up (the fastest round is the one least disturbed by other work on the machine).
   */
  static long[] measure(Runnable batch) {
    long warmupEnd = System.nanoTime() + 2_000_000_000L;
    long batches = 0;
    while (System.nanoTime() < warmupEnd) {
      batch.run();
      batches += 1;
    }
    long perRound = Math.max(1, batches / 10);
    double best = Double.MAX_VALUE;
    for (int round = 0; round < 10; round++) {
      long start = System.nanoTime();
      for (long i = 0; i < perRound; i++) {
        batch.run();
      }
      best = Math.min(best, (System.nanoTime() - start) / (double) (perRound * ROWS));
    }
    return new long[] {Math.round(best * 1000), perRound};
  }

  /** 4096 values like the benchmark's columns, one in ten NULL. */
  static OnHeapColumnVector input(DataType type) {
    OnHeapColumnVector vector = new OnHeapColumnVector(ROWS, type);
    for (int i = 0; i < ROWS; i++) {
      if (i % 10 == 3) {
        vector.putNull(i);
      } else if (type == DataTypes.StringType) {
        String value =
            String.format(Locale.ROOT, "%03d-%02d-%04d@example.com", i % 1000, i % 100, i);
        vector.putByteArray(i, value.getBytes(StandardCharsets.UTF_8));
      } else if (type == DataTypes.LongType || type == DataTypes.TimestampType) {
        vector.putLong(i, 946_684_800_000_000L + i * 123_456_789_011L);
      } else if (type == DataTypes.DateType) {
        vector.putInt(i, 10_957 + i * 3);
      } else if (type instanceof DecimalType) {
        Decimal value = Decimal.apply(BigDecimal.valueOf(i * 1_234_567L, 2));
        vector.putDecimal(i, value, ((DecimalType) type).precision());
      } else {
        throw new IllegalArgumentException("No input for " + type);
      }
    }
    return vector;
  }
}
