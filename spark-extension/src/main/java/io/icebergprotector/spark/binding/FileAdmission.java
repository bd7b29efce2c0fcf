/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.binding;

import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.FileMarker;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides on the driver, from table metadata alone, how each file of a protected scan or rewrite is
 * read:
 *
 * <ul>
 *   <li>{@link Verdict#BOUND}: the manifest entry carries the protector's marker ({@link
 *       FileMarker}); the file is read with its binding ({@link FileBinding}) and fails unless it
 *       is exactly the file written for this table at this name.
 *   <li>{@link Verdict#LEGACY}: no marker, committed before the table's {@link BindingBoundary}:
 *       written by a protector version before file binding, or before the table was protected. Read
 *       unverified, with a warning; {@code rewrite_protected} binds it.
 *   <li>{@link Verdict#UNVERIFIED}: no marker, committed after the boundary: the protector did not
 *       write it. Refused with {@link UnverifiedFileException}, unless the reader accepts
 *       unverified files explicitly ({@code protector.accept-unverified-files}), which is logged
 *       per file.
 * </ul>
 *
 * <p>A marker of an unknown version is refused. Works for any content file, so delete files can be
 * admitted the same way once the protector writes them.
 */
public final class FileAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(FileAdmission.class);
  private static final int NAMES_IN_WARNINGS = 5;

  /** How a file is read. */
  public enum Verdict {
    BOUND,
    LEGACY,
    UNVERIFIED
  }

  private final String tableName;
  private final String catalogName;
  private final BindingBoundary boundary;
  private final boolean acceptUnverified;
  private final Set<String> legacy = new LinkedHashSet<>();
  private final Set<String> unverified = new LinkedHashSet<>();

  private FileAdmission(
      String tableName, String catalogName, BindingBoundary boundary, boolean acceptUnverified) {
    this.tableName = tableName;
    this.catalogName = catalogName;
    this.boundary = boundary;
    this.acceptUnverified = acceptUnverified;
  }

  /**
   * Admission for one scan or rewrite of {@code table}.
   *
   * @param tableName the table's name in messages (the policy's name)
   * @param catalogName the protecting catalog, for the fixes messages suggest; may be null
   * @param acceptUnverified whether the reader accepts files the protector did not write
   */
  public static FileAdmission of(
      Table table, String tableName, String catalogName, boolean acceptUnverified) {
    return new FileAdmission(tableName, catalogName, BindingBoundary.of(table), acceptUnverified);
  }

  /**
   * Whether a read accepts unverified files: the read option {@code
   * protector.accept-unverified-files}, else the session setting {@code
   * spark.sql.catalog.<catalogName>.protector.accept-unverified-files}.
   */
  public static boolean acceptUnverified(
      SparkSession session, String catalogName, Map<String, String> options) {
    String value =
        options != null ? options.get(CatalogOptions.ACCEPT_UNVERIFIED_FILES.key()) : null;
    if (value == null && session != null && catalogName != null) {
      value = session.conf().get(sessionSetting(catalogName), null);
    }
    return value != null && Boolean.parseBoolean(value.trim());
  }

  /** The session setting that accepts unverified files of a catalog's tables. */
  public static String sessionSetting(String catalogName) {
    return "spark.sql.catalog." + catalogName + "." + CatalogOptions.ACCEPT_UNVERIFIED_FILES.key();
  }

  /** Whether files of this kind are read with their binding (decided by the marker alone). */
  public static boolean bound(ContentFile<?> file) {
    return FileMarker.kindOf(file) == FileMarker.Kind.BOUND;
  }

  /**
   * How {@code file} is read.
   *
   * @throws UnverifiedFileException for an unmarked file after the boundary, unless accepted
   * @throws ProtectorException for a marker this version does not know
   */
  public Verdict admit(ContentFile<?> file) {
    FileMarker.Kind kind = FileMarker.kindOf(file);
    if (kind == FileMarker.Kind.BOUND) {
      return Verdict.BOUND;
    }
    String location = file.location();
    if (kind == FileMarker.Kind.UNSUPPORTED) {
      throw new ProtectorException(
          String.format(
              "Cannot read %s of protected table %s: its manifest entry has a %s. It was written"
                  + " by a newer protector version; read the table with that version.",
              location, tableName, FileMarker.describe(file)));
    }
    long sequenceNumber = file.fileSequenceNumber() != null ? file.fileSequenceNumber() : 0L;
    if (!boundary.requiresMarker(sequenceNumber)) {
      legacy.add(location);
      return Verdict.LEGACY;
    }
    if (acceptUnverified) {
      if (!unverified.add(location)) {
        return Verdict.UNVERIFIED; // another split of the same file
      }
      LOG.warn(
          "Reading data file {} of protected table {} unverified ({}): it carries {} and was"
              + " committed at sequence number {}, after the table came under file binding ({})",
          location,
          tableName,
          CatalogOptions.ACCEPT_UNVERIFIED_FILES.key(),
          FileMarker.describe(file),
          sequenceNumber,
          boundary.fromSequenceNumber());
      return Verdict.UNVERIFIED;
    }
    throw new UnverifiedFileException(refusal(file, sequenceNumber));
  }

  /** Logs one warning for the legacy files admitted so far, if any. */
  public void warnAboutLegacyFiles() {
    if (legacy.isEmpty()) {
      return;
    }
    LOG.warn(
        "Protected table {}: {} data file(s) carry no file binding and are read unverified, because"
            + " {}: {}{}. Bind them with {}",
        tableName,
        legacy.size(),
        boundary.describeLegacy(),
        new ArrayList<>(legacy).subList(0, Math.min(NAMES_IN_WARNINGS, legacy.size())),
        legacy.size() > NAMES_IN_WARNINGS ? " ..." : "",
        rewriteCall());
  }

  /** Locations of the legacy files admitted so far. */
  public List<String> legacyFiles() {
    return List.copyOf(legacy);
  }

  /**
   * Locations of the unverified files admitted so far (only with {@code
   * protector.accept-unverified-files}).
   */
  public List<String> unverifiedFiles() {
    return List.copyOf(unverified);
  }

  private String refusal(ContentFile<?> file, long sequenceNumber) {
    String catalog = catalogName != null ? catalogName : "<catalog>";
    return String.format(
        "Refusing data file %s of protected table %s: the protector did not write it (%s), and it"
            + " was committed at sequence number %d, after the table came under file binding at"
            + " sequence number %d (table property %s). It was probably added through a catalog"
            + " without the protector. Remove it from the table (for example, roll the table back"
            + " to the snapshot before it: CALL %s.system.rollback_to_snapshot), or, if you trust"
            + " its contents, accept unverified files with the read option %s=true or the session"
            + " setting %s=true, and run %s with that setting to encrypt and bind it.",
        file.location(),
        tableName,
        FileMarker.describe(file),
        sequenceNumber,
        boundary.fromSequenceNumber(),
        BindingBoundary.PROPERTY,
        catalog,
        CatalogOptions.ACCEPT_UNVERIFIED_FILES.key(),
        sessionSetting(catalog),
        rewriteCall());
  }

  private String rewriteCall() {
    return String.format(
        "CALL %s.system.rewrite_protected(table => '%s')",
        catalogName != null ? catalogName : "<catalog>", tableName);
  }
}
