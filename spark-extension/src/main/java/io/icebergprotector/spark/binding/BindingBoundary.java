/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.binding;

import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorException;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * From which data sequence of a table every file must carry the protector's marker: the table
 * property {@value #PROPERTY} holds the first sequence number under file binding. A data file
 * committed at or after it (by its file sequence number, the sequence number of the snapshot that
 * added it, which no commit can choose) without the marker was not written by the protector. Files
 * committed before it are legacy files: written by a protector version before file binding, or
 * before the table was protected.
 *
 * <p>The property is set once, by the first protected write or {@code rewrite_protected} of this
 * version (or when the protecting catalog creates the table), and never moved. It cannot be changed
 * through SQL on a protecting catalog; like every table property it is as safe as the catalog that
 * stores it. Format v1 tables have no sequence numbers (all are 0), so a v1 table gets a boundary
 * only while it has no snapshot at all; an older v1 table accepts unmarked files as legacy until it
 * is upgraded to format v2.
 */
public final class BindingBoundary {
  public static final String PROPERTY = CatalogOptions.BINDING_FROM_SEQUENCE_NUMBER.key();
  private static final Logger LOG = LoggerFactory.getLogger(BindingBoundary.class);

  private final String tableName;
  private final Long fromSequenceNumber;
  private final int formatVersion;

  private BindingBoundary(String tableName, Long fromSequenceNumber, int formatVersion) {
    this.tableName = tableName;
    this.fromSequenceNumber = fromSequenceNumber;
    this.formatVersion = formatVersion;
  }

  /** The boundary recorded in {@code table}'s properties, if any. */
  public static BindingBoundary of(Table table) {
    String value = table.properties().get(PROPERTY);
    Long from = null;
    if (value != null) {
      try {
        from = Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        from = -1L;
      }
      if (from < 0) {
        throw new ProtectorException(
            String.format(
                "Table %s has a malformed %s property '%s' (expected a sequence number >= 0): it"
                    + " was not set by the protector, which refuses to guess which files must be"
                    + " bound. Restore it from the table's metadata history.",
                table.name(), PROPERTY, value));
      }
    }
    return new BindingBoundary(table.name(), from, formatVersion(table));
  }

  /**
   * Records the boundary unless {@code table} has one: the next sequence number, or 0 for a table
   * without snapshots. In a transaction (staged CTAS and RTAS) it commits with the transaction.
   */
  public static void record(Table table) {
    if (table.properties().containsKey(PROPERTY)) {
      return;
    }
    long from;
    if (!table.snapshots().iterator().hasNext()) {
      from = 0L; // a new table: every file must be bound
    } else if (formatVersion(table) >= 2) {
      from = lastSequenceNumber(table) + 1;
    } else {
      LOG.warn(
          "Table {} is format v1, whose files have no sequence numbers: it cannot tell files"
              + " committed without the protector from legacy files, and accepts them with a warning."
              + " Upgrade it to format v2 (ALTER TABLE ... SET TBLPROPERTIES ('format-version'='2'))",
          table.name());
      return;
    }
    table.updateProperties().set(PROPERTY, Long.toString(from)).commit();
    LOG.info("Table {}: data files from sequence number {} on must be bound", table.name(), from);
  }

  /** Whether the boundary is recorded; without it every unmarked file is a legacy file. */
  public boolean recorded() {
    return fromSequenceNumber != null;
  }

  /** The first sequence number under binding, or null if none is recorded. */
  public Long fromSequenceNumber() {
    return fromSequenceNumber;
  }

  /** Whether a file added at {@code fileSequenceNumber} must carry the marker. */
  public boolean requiresMarker(long fileSequenceNumber) {
    return fromSequenceNumber != null && fileSequenceNumber >= fromSequenceNumber;
  }

  /** Why unmarked files are legacy in this table, for warnings. */
  String describeLegacy() {
    if (fromSequenceNumber != null) {
      return String.format(
          "they were committed before the table came under file binding (sequence number %d)",
          fromSequenceNumber);
    }
    if (formatVersion < 2) {
      return "the table is format v1 (no sequence numbers) and has no file-binding boundary;"
          + " upgrade it to format v2 to get one";
    }
    return String.format(
        "the table has no file-binding boundary yet (%s): its next protected write or"
            + " rewrite_protected records one",
        PROPERTY);
  }

  String tableName() {
    return tableName;
  }

  private static int formatVersion(Table table) {
    try {
      return TableUtil.formatVersion(table);
    } catch (RuntimeException e) {
      // A table without operations: assume v2. Were it v1, its boundary (last sequence number 0,
      // plus 1) is one no v1 file reaches, which keeps the v1 behaviour.
      return 2;
    }
  }

  private static long lastSequenceNumber(Table table) {
    if (table instanceof HasTableOperations) {
      return ((HasTableOperations) table).operations().current().lastSequenceNumber();
    }
    long last = 0;
    for (Snapshot snapshot : table.snapshots()) {
      last = Math.max(last, snapshot.sequenceNumber());
    }
    return last;
  }
}
