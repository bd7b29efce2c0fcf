/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code protector sql}: SQL on local Spark with the protector configured as in the demo. */
@Command(
    name = "sql",
    header = "Run SQL on local Spark as a given user, with the protector configured.",
    mixinStandardHelpOptions = true,
    description =
        "The default catalog is 'demo': a protecting Hadoop catalog over ./warehouse, "
            + "conf/policy.conf and the local keystore ./.protector/keys.p12 (run 'bin/protector demo' "
            + "first to create keys and a table). --url uses the key server instead of the keystore; "
            + "--conf and --properties-file take any catalog's Spark settings, --catalog picks it.",
    footerHeading = "%nExamples:%n",
    footer = {
      "  bin/protector sql --user bob -e \"SELECT * FROM db.customers LIMIT 5\"",
      "  bin/protector sql --user bob --catalog prod --properties-file prod.properties \\",
      "      --url https://keys:8200 --token-file bob.token --trust-cert server.pem -e \"...\""
    })
public final class SqlCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-u", "--user"},
      required = true,
      paramLabel = "<user>",
      description = "The principal to query as.")
  String user;

  @Option(
      names = {"-g", "--groups"},
      paramLabel = "<g1,g2>",
      description = "The principal's groups, comma separated.")
  String groups;

  static final class Source {
    @Option(
        names = {"-e", "--execute"},
        paramLabel = "<sql>",
        description = "SQL statements, separated by ';'.")
    String sql;

    @Option(
        names = {"-f", "--file"},
        paramLabel = "<file.sql>",
        description = "A file of SQL statements.")
    Path file;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(
      names = "--max-rows",
      defaultValue = "100",
      paramLabel = "<n>",
      description = "Rows printed per query (default: ${DEFAULT-VALUE}).")
  int maxRows;

  @Mixin WorkspaceOptions workspace;
  @Mixin CatalogOptions catalog;

  @Override
  public Integer call() {
    if (maxRows < 1) {
      throw new ParameterException(spec.commandLine(), "--max-rows must be at least 1: " + maxRows);
    }
    String script = source.sql != null ? source.sql : read(source.file);
    List<String> statements = SqlScript.split(script);
    if (statements.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "no SQL statement given");
    }
    HeavyClasspath.require(
        "sql", HeavyClasspath.SPARK, HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    Workspace ws = workspace.workspace();
    catalog.server.requireOnlyWithUrl(spec);
    return SqlRunner.run(
        ws,
        catalog,
        user,
        groups,
        statements,
        maxRows,
        spec.commandLine().getOut(),
        spec.commandLine().getErr());
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("SQL file " + file + " not found", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read SQL file " + file + ": " + e.getMessage(), e);
    }
  }
}
