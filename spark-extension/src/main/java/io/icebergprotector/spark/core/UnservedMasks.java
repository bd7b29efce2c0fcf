/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.policy.Principal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Says once per table, column and principal (per JVM, bounded) why a masked reader of a tokenized
 * column reads NULL in local token mode, so that nobody mistakes the NULLs for missing data.
 */
final class UnservedMasks {
  private static final System.Logger LOG = System.getLogger(UnservedMasks.class.getName());
  private static final int MAX_REMEMBERED = 1_000;

  private static final Set<String> WARNED =
      Collections.synchronizedSet(
          Collections.newSetFromMap(
              new LinkedHashMap<String, Boolean>() {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                  return size() > MAX_REMEMBERED;
                }
              }));

  private UnservedMasks() {}

  static void warnOnce(String table, ColumnProtection column, Principal principal) {
    if (WARNED.add(table + "\u0000" + column.path() + "\u0000" + principal)) {
      LOG.log(System.Logger.Level.WARNING, message(table, column, principal));
    }
  }

  /** Why the column reads NULL, and how to get the mask instead. */
  static String message(String table, ColumnProtection column, Principal principal) {
    return String.format(
        "Column '%s' of %s reads as NULL for principal %s: its view is the mask %s of a tokenized"
            + " column, which only the key server computes (%s = server). In local token mode a"
            + " masked reader gets no token key, since the key detokenizes every token of domain"
            + " '%s'",
        column.path(),
        table,
        principal,
        column.unservedMask(),
        KmsOptions.TOKEN_MODE.key(),
        column.domain());
  }
}
