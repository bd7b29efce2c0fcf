/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.KmsSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code protector inspect}: the encryption layout of Parquet files, from their footers. */
@Command(
    name = "inspect",
    header = "Show how Parquet files are encrypted: footer, columns, master key ids.",
    mixinStandardHelpOptions = true,
    description =
        "Prints the footer mode, the algorithm, and for each column whether it is "
            + "encrypted, under which master key id and version, and its key material (wrapped keys "
            + "abbreviated). Needs no keys. An encrypted footer hides the column list; with --keystore, "
            + "--pkcs11-library or --url (key server) the footer key is unwrapped (as --user) to list the columns too. Column keys "
            + "are never requested. Files of protected tables are bound to their table: inside a table "
            + "directory the table's UUID is found; elsewhere give it with --table-uuid.")
public final class InspectCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..*",
      paramLabel = "<parquet-file>",
      description = "Parquet files (local paths).")
  List<Path> files = List.of();

  @Option(
      names = "--table",
      paramLabel = "<db.table>",
      description =
          "Check every data file of a table instead (exit 1 if a protected table holds plaintext files).")
  String table;

  @Mixin CatalogOptions catalog;

  @Option(
      names = "--warehouse",
      defaultValue = Workspace.DEFAULT_WAREHOUSE,
      paramLabel = "<dir>",
      description = "With --table: warehouse of catalog 'demo' (default: ${DEFAULT-VALUE}).")
  Path warehouse;

  @Mixin KeyBackendOptions.Keystore keystore;
  @Mixin KeyBackendOptions.Pkcs11 pkcs11;
  @Mixin OutputFormat format;

  @Option(
      names = "--policy",
      paramLabel = "<file>",
      description =
          "Policy deciding which keys --user may unwrap (default: "
              + Workspace.DEFAULT_POLICY
              + ").")
  Path policy;

  @Option(
      names = "--user",
      paramLabel = "<user>",
      description =
          "Principal unwrapping the footer key (default: the OS user). Every reader of a table gets its footer key.")
  String user;

  @Option(
      names = "--table-uuid",
      paramLabel = "<uuid>",
      description =
          "UUID of the table a bound file belongs to (default: of the table directory the file lies in).")
  java.util.UUID tableUuid;

  @Override
  public Integer call() {
    if (table != null) {
      if (!files.isEmpty() || keystore.given() || pkcs11.given() || tableUuid != null) {
        throw new ParameterException(
            spec.commandLine(),
            "--table reads the table's files through its catalog:"
                + " give no files, --keystore, --pkcs11-library or --table-uuid with it");
      }
      HeavyClasspath.require(
          "inspect", HeavyClasspath.SPARK, HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
      Workspace ws =
          new Workspace(
              warehouse,
              Path.of(Workspace.DEFAULT_STATE_DIR),
              policy != null ? policy : Workspace.defaultPolicy());
      return TableInspector.run(
          ws,
          catalog,
          user != null ? user : System.getProperty("user.name"),
          table,
          format.json(),
          spec.commandLine().getOut(),
          spec.commandLine().getErr());
    }
    if (files.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "give Parquet files, or --table <db.table>");
    }
    boolean withKeys = keystore.keystore != null || pkcs11.given() || catalog.server.given();
    if (!withKeys && (keystore.given() || policy != null || user != null || tableUuid != null)) {
      throw new ParameterException(
          spec.commandLine(),
          "--passphrase-*, --policy, --user and"
              + " --table-uuid need --keystore, --pkcs11-library or --url (without keys, inspect reads only"
              + " what the footer shows)");
    }
    KeyBackendOptions.validate(spec, keystore, pkcs11, catalog.server);
    HeavyClasspath.require("inspect", HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    Inspector.Keys keys = null;
    if (withKeys) {
      KmsSettings kms = KeyBackendOptions.settings(spec, keystore, pkcs11, catalog.server);
      if (!pkcs11.given() && !catalog.server.given()) {
        keystore.requirePassphraseFile();
      }
      keys =
          new Inspector.Keys(
              kms,
              policy != null ? policy : Workspace.defaultPolicy(),
              user != null ? user : System.getProperty("user.name"),
              tableUuid);
    }
    return Inspector.run(files, keys, spec.commandLine().getOut(), format.json());
  }
}
