/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.docs;

import io.icebergprotector.cli.ProtectorCli;
import io.icebergprotector.kms.DocumentedOption;
import io.icebergprotector.policy.PolicyFields;
import io.icebergprotector.spark.core.CatalogOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;

/**
 * Writes the reference pages of the documentation site ({@code docs/reference/*.md}) from what the
 * code and {@code conf/} say: the catalog options and session settings ({@link CatalogOptions}),
 * the policy fields ({@link PolicyFields}), the key server's settings ({@code conf/server.conf},
 * which documents them option by option) and the command line's help (picocli's usage text of every
 * command). {@link ReferencePagesTest} fails when a committed page differs from what this writes.
 *
 * <p>Run by {@code bin/docs generate}: {@code main} takes the repository root.
 */
public final class ReferencePages {
  /** Where the pages go, relative to the repository root. */
  public static final String DIR = "docs/reference";

  /** The command that rewrites the pages, for messages. */
  public static final String REGENERATE = "bin/docs generate";

  // Wide enough that option descriptions stay on one line where they can, fixed so that the
  // pages do not depend on the terminal of whoever generates them.
  private static final int USAGE_WIDTH = 100;

  private ReferencePages() {}

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    write(root);
  }

  /** Writes every page under {@code root/docs/reference}, and removes pages no longer generated. */
  public static void write(Path root) throws IOException {
    Path dir = Files.createDirectories(root.resolve(DIR));
    Map<String, String> pages = pages(root);
    try (var files = Files.list(dir)) {
      for (Path stale :
          files.filter(p -> !pages.containsKey(p.getFileName().toString())).toList()) {
        Files.delete(stale);
      }
    }
    for (Map.Entry<String, String> page : pages.entrySet()) {
      Files.writeString(dir.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
      System.out.println("wrote " + DIR + "/" + page.getKey());
    }
  }

  /** File name to content of every reference page. */
  public static Map<String, String> pages(Path root) throws IOException {
    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("catalog-options.md", catalogOptions());
    pages.put("policy-fields.md", policyFields());
    pages.put("server-settings.md", ServerSettingsPage.render(root.resolve("conf/server.conf")));
    pages.put("cli.md", commandLine());
    return pages;
  }

  static String header(String title, String source) {
    return "# "
        + title
        + "\n\n<!-- Generated from "
        + source
        + " by "
        + REGENERATE
        + ": edit the source, not this page. -->\n\n";
  }

  static String catalogOptions() {
    StringBuilder md =
        new StringBuilder(
            header(
                "Catalog options and session settings",
                "CatalogOptions (spark-extension) and KmsOptions (protector-kms)"));
    md.append(
        "Every setting the Spark layer reads, as the code declares it. How to combine them is"
            + " explained in [Configuration](../configuration.md).\n\n");
    md.append("## Catalog options\n\n")
        .append(
            "Options of a protecting catalog: `spark.sql.catalog.<name>.<option>`, next to"
                + " Iceberg's own options, which pass through.\n\n");
    optionTable(md, "option", CatalogOptions.CATALOG);
    md.append("## Session settings of plain Parquet paths\n\n")
        .append(
            "The catalog options with a `spark.` prefix, set in the Spark conf or per session"
                + " (`spark.conf.set(\"spark.protector.user\", \"bob\")`); see [Plain Parquet"
                + " paths](../spark/paths.md).\n\n");
    optionTable(md, "setting", CatalogOptions.PATH_SESSION);
    md.append("## Session settings\n\n")
        .append("Set for the whole session, with catalog tables and paths alike.\n\n");
    optionTable(md, "setting", CatalogOptions.SESSION);
    md.append("## Read options\n\n").append("`spark.read.option(<option>, <value>)`.\n\n");
    optionTable(md, "option", CatalogOptions.READ);
    md.append("## Set by the protector\n\n")
        .append(
            "The protector sets these itself. Table properties starting with `protector.` cannot"
                + " be set, changed or removed through SQL or DataFrame writers.\n\n");
    optionTable(md, "key", CatalogOptions.INTERNAL);
    return md.toString();
  }

  private static void optionTable(StringBuilder md, String what, List<DocumentedOption> options) {
    md.append("| ").append(what).append(" | default | meaning |\n| --- | --- | --- |\n");
    for (DocumentedOption o : options) {
      md.append("| `")
          .append(o.key())
          .append("` | ")
          .append(o.shownDefault())
          .append(" | ")
          .append(o.doc())
          .append(" |\n");
    }
    md.append('\n');
  }

  static String policyFields() {
    StringBuilder md = new StringBuilder(header("Policy fields", "PolicyFields (policy)"));
    md.append(
        "Every field of a policy file. The parser accepts exactly these and refuses any other"
            + " with an error naming the valid ones; `conf/policy.conf` explains each in place. How"
            + " a policy is written: [The policy](../policy.md).\n\n");
    md.append("| where | field | default | meaning |\n| --- | --- | --- | --- |\n");
    // A field documented alike at several levels (description) is one row, where its last use is.
    Map<String, List<PolicyFields.Field>> alike = new LinkedHashMap<>();
    for (PolicyFields.Field f : PolicyFields.ALL) {
      alike
          .computeIfAbsent(
              f.name() + '\0' + f.defaultValue() + '\0' + f.doc(), k -> new ArrayList<>())
          .add(f);
    }
    for (PolicyFields.Field f : PolicyFields.ALL) {
      List<PolicyFields.Field> same =
          alike.get(f.name() + '\0' + f.defaultValue() + '\0' + f.doc());
      if (same.get(same.size() - 1) != f) {
        continue;
      }
      List<String> where = new ArrayList<>();
      same.forEach(s -> where.add(s.scope().shown()));
      md.append("| ")
          .append(String.join(", ", where))
          .append(" | `")
          .append(f.name())
          .append("` | ")
          .append(f.defaultValue())
          .append(" | ")
          .append(f.doc())
          .append(" |\n");
    }
    return md.toString();
  }

  static String commandLine() {
    CommandLine top = ProtectorCli.newCommandLine(null);
    top.setUsageHelpWidth(USAGE_WIDTH);
    StringBuilder md =
        new StringBuilder(header("Command line help", "the picocli commands of protector-cli"));
    md.append(
        "What `bin/protector <command> [<subcommand>] --help` prints, for every command. How the"
            + " commands fit together: [The command line](../cli.md).\n\n");
    usage(md, top, java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
    return md.toString();
  }

  private static void usage(StringBuilder md, CommandLine cmd, Set<CommandLine> seen) {
    if (!seen.add(cmd)) {
      return; // an alias of a command already written
    }
    md.append("## `")
        .append(cmd.getCommandSpec().qualifiedName())
        .append("`\n\n```text\n")
        .append(cmd.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing())
        .append("\n```\n\n");
    for (CommandLine sub : cmd.getSubcommands().values()) {
      usage(md, sub, seen);
    }
  }
}
