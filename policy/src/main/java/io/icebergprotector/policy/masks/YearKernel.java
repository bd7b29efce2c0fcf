/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy.masks;

import java.time.LocalDate;

/**
 * The value kernel of {@code year}: dates to January 1st of their year, timestamps (with or without
 * zone) to January 1st 00:00 of their year, computed in UTC, for every date and timestamp of years
 * 1 to 9999 and beyond (not only 1678-2262, the range of nanosecond arithmetic).
 */
public final class YearKernel {
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private YearKernel() {}

  /** A date, as days since 1970-01-01. */
  public static int ofEpochDay(int epochDay) {
    return (int) LocalDate.ofEpochDay(epochDay).withDayOfYear(1).toEpochDay();
  }

  /** A timestamp, as microseconds since 1970-01-01T00:00Z. */
  public static long ofEpochMicros(long epochMicros) {
    long day = Math.floorDiv(epochMicros, MICROS_PER_DAY);
    return Math.multiplyExact(
        LocalDate.ofEpochDay(day).withDayOfYear(1).toEpochDay(), MICROS_PER_DAY);
  }
}
