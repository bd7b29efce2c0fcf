/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.kms.DocumentedOption;
import io.icebergprotector.kms.KmsOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every setting of the Spark layer, each with its key, default and documentation: the options of a
 * protecting catalog ({@code spark.sql.catalog.<name>.protector.*}), the session settings of plain
 * Parquet paths ({@code spark.protector.*}), the read options, and the table properties the
 * protector keeps itself. The code reads the keys from here, and the configuration reference
 * ({@code docs/reference/catalog-options.md}) is generated from these lists.
 */
public final class CatalogOptions {
  /** Session settings of plain Parquet paths are the catalog options with this prefix. */
  public static final String SESSION_PREFIX = "spark.";

  public static final DocumentedOption POLICY =
      DocumentedOption.noted(
          "protector.policy",
          "(required with a local keystore or PKCS#11; none with a key server)",
          "path or URL (`file:`, `http(s):`) of the policy. With `protector.kms.type = remote` the"
              + " catalog takes the key server's policy; a `protector.policy` set there is only"
              + " checked against it, and the catalog refuses to start when the two state"
              + " different rules (see [One policy,"
              + " distributed](../key-server.md#one-policy-distributed))");

  /** See {@link #POLICY_REFRESH_SECONDS}. */
  public static final int DEFAULT_POLICY_REFRESH_SECONDS = 15;

  /** The longest {@link #POLICY_REFRESH_SECONDS} accepted. */
  public static final int MAX_POLICY_REFRESH_SECONDS = 3600;

  public static final DocumentedOption POLICY_REFRESH_SECONDS =
      DocumentedOption.of(
          "protector.policy-refresh-seconds",
          String.valueOf(DEFAULT_POLICY_REFRESH_SECONDS),
          "remote: how often a running catalog asks the key server whether its policy changed (a"
              + " conditional `GET`, 304 when unchanged), 1 to "
              + MAX_POLICY_REFRESH_SECONDS
              + ": a policy change reaches every new query within this plus the server's"
              + " `policy-reload-interval`");

  public static final DocumentedOption USER =
      DocumentedOption.noted("protector.user", "the Spark user", "the principal in local mode");

  public static final DocumentedOption GROUPS =
      DocumentedOption.of("protector.groups", null, "the principal's groups, comma separated");

  public static final DocumentedOption ACCEPT_UNVERIFIED_FILES =
      DocumentedOption.of(
          "protector.accept-unverified-files",
          "false",
          "read data files of protected tables that the protector did not write and that were"
              + " committed after the table came under file binding, instead of refusing them;"
              + " each is logged. Also a read option, and a session setting"
              + " (`spark.sql.catalog.<name>.protector.accept-unverified-files`) for migrations"
              + " (see [File binding](../security/file-binding.md))");

  public static final DocumentedOption ACCEPT_PLAINTEXT_FILES =
      DocumentedOption.of(
          "protector.paths.accept-plaintext-files",
          "false",
          "`true`: under a protected prefix, also read Parquet files the protector did not write"
              + " (plaintext, e.g. from before the prefix was protected), with the principal's"
              + " view, for a migration; otherwise such a file fails the read, naming it (see"
              + " [Plain Parquet paths](../spark/paths.md))");

  public static final DocumentedOption DECLASSIFY =
      DocumentedOption.of(
          "spark.protector.declassify",
          "false",
          "lets a principal with a `declassify` role store protected values where they are not"
              + " protected, for catalog tables and paths alike; it applies to every write of the"
              + " session until unset (see [Data flow](../security/data-flow.md))");

  public static final DocumentedOption REWRITE_DECRYPT =
      DocumentedOption.of(
          "protector.rewrite.decrypt",
          "false",
          "read and write option that only `rewrite_protected(..., decrypt => true)` sets: the"
              + " rewrite decrypts columns whose protection was removed from the policy; refused"
              + " on any other write");

  public static final DocumentedOption PROTECTED_COLUMNS =
      DocumentedOption.of(
          "protector.protected-columns",
          null,
          "table property: the field ids of the protected columns, recorded at the first protected"
              + " write, at CTAS and RTAS and at every `rewrite_protected`, so that a renamed"
              + " protected column keeps its protection");

  public static final DocumentedOption BINDING_FROM_SEQUENCE_NUMBER =
      DocumentedOption.of(
          "protector.binding-from-sequence-number",
          null,
          "table property: the first Iceberg sequence number under file binding; an unmarked data"
              + " file committed at or after it was not written by the protector and is refused"
              + " (see [File binding](../security/file-binding.md))");

  /** The options of a protecting catalog, {@code spark.sql.catalog.<name>.<key>}. */
  public static final List<DocumentedOption> CATALOG = catalog();

  /**
   * The session settings of plain Parquet paths, with their {@code spark.} prefix: the catalog
   * options that apply to paths, and {@link #ACCEPT_PLAINTEXT_FILES}.
   */
  public static final List<DocumentedOption> PATH_SESSION = pathSession();

  /** Settings of a whole session, keyed as set ({@code SET spark.protector.declassify=true}). */
  public static final List<DocumentedOption> SESSION = List.of(DECLASSIFY);

  /** Options of a read ({@code spark.read.option(...)}). */
  public static final List<DocumentedOption> READ = List.of(ACCEPT_UNVERIFIED_FILES);

  /**
   * What the protector sets itself and SQL cannot: a rewrite's option and the table properties it
   * maintains (table properties starting with {@code protector.} are read-only).
   */
  public static final List<DocumentedOption> INTERNAL =
      List.of(REWRITE_DECRYPT, PROTECTED_COLUMNS, BINDING_FROM_SEQUENCE_NUMBER);

  private CatalogOptions() {}

  private static List<DocumentedOption> catalog() {
    List<DocumentedOption> all = new ArrayList<>();
    all.add(POLICY);
    all.add(POLICY_REFRESH_SECONDS);
    all.addAll(KmsOptions.ALL);
    all.add(USER);
    all.add(GROUPS);
    all.add(ACCEPT_UNVERIFIED_FILES);
    return List.copyOf(all);
  }

  private static List<DocumentedOption> pathSession() {
    List<DocumentedOption> all = new ArrayList<>();
    for (DocumentedOption option : catalog()) {
      // binding is a property of Iceberg tables; paths have no table metadata to bind files to
      if (!option.equals(ACCEPT_UNVERIFIED_FILES)) {
        all.add(option.withPrefix(SESSION_PREFIX));
      }
    }
    all.add(ACCEPT_PLAINTEXT_FILES.withPrefix(SESSION_PREFIX));
    return List.copyOf(all);
  }

  /** The keys of {@code options}, in order. */
  public static List<String> keys(List<DocumentedOption> options) {
    return options.stream().map(DocumentedOption::key).collect(Collectors.toUnmodifiableList());
  }
}
