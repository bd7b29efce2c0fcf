/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code protector rewrite}: re-encrypts the files of a protected table whose keys are older than a
 * version, that are still plaintext, or that no longer match the policy, as one atomic commit. It
 * runs the {@code rewrite_protected} procedure on local Spark, configured as for {@code sql}.
 */
@Command(
    name = "rewrite",
    header = "Rewrite the files of a protected table whose encryption is out of date.",
    mixinStandardHelpOptions = true,
    description =
        "In one atomic Iceberg commit, rewrites the data files that hold keys older than "
            + "--min-key-version, plaintext of protected columns, or an encryption that no longer matches "
            + "the policy. Runs as --user, who needs clear access to every protected column and must be a writer.",
    footerHeading = "%nExample, after 'bin/protector keys rotate pii':%n",
    footer = "  bin/protector rewrite --user alice --table db.customers --min-key-version 2")
public final class RewriteCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-u", "--user"},
      required = true,
      paramLabel = "<user>",
      description = "The principal to rewrite as.")
  String user;

  @Option(
      names = {"-g", "--groups"},
      paramLabel = "<g1,g2>",
      description = "The principal's groups, comma separated.")
  String groups;

  @Option(
      names = {"-t", "--table"},
      required = true,
      paramLabel = "<db.table>",
      description = "The table, in the catalog of --catalog.")
  String table;

  @Option(
      names = "--min-key-version",
      defaultValue = "0",
      paramLabel = "<n>",
      description = "Rewrite files with keys older than this version.")
  int minKeyVersion;

  @Option(
      names = "--decrypt",
      description = "Decrypt columns whose protection was removed from the policy (forced).")
  boolean decrypt;

  @Option(names = "--force", description = "Rewrite every data file.")
  boolean force;

  @Mixin WorkspaceOptions workspace;
  @Mixin CatalogOptions catalog;

  @Override
  public Integer call() {
    if (minKeyVersion < 0) {
      throw new ParameterException(
          spec.commandLine(), "--min-key-version must be >= 0: " + minKeyVersion);
    }
    if (!catalog.catalog.matches("[A-Za-z0-9_]+")) {
      throw new ParameterException(
          spec.commandLine(), "--catalog must be a catalog name like prod: " + catalog.catalog);
    }
    if (!table.matches("[A-Za-z0-9_.]+")) {
      throw new ParameterException(
          spec.commandLine(), "--table must be a name like db.customers: " + table);
    }
    HeavyClasspath.require(
        "rewrite", HeavyClasspath.SPARK, HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    Workspace ws = workspace.workspace();
    String call =
        String.format(
            "CALL "
                + catalog.catalog
                + ".system.rewrite_protected(table => '%s', min_key_version => %d, decrypt => %s, force => %s)",
            table,
            minKeyVersion,
            decrypt,
            force);
    catalog.server.requireOnlyWithUrl(spec);
    return SqlRunner.run(
        ws,
        catalog,
        user,
        groups,
        List.of(call),
        10,
        spec.commandLine().getOut(),
        spec.commandLine().getErr());
  }
}
