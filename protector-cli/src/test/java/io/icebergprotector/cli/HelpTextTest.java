/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/** The help of every command, as picocli renders it at 80 columns. */
class HelpTextTest {
  /** Every command of the tree, depth first. */
  static List<CommandLine> allCommands() {
    List<CommandLine> all = new ArrayList<>();
    collect(ProtectorCli.newCommandLine(null), all);
    return all;
  }

  private static void collect(CommandLine cmd, List<CommandLine> all) {
    all.add(cmd);
    for (CommandLine sub : cmd.getSubcommands().values()) {
      if (!all.contains(sub)) {
        collect(sub, all);
      }
    }
  }

  static String usage(CommandLine cmd) {
    StringWriter out = new StringWriter();
    cmd.usage(new PrintWriter(out, true), CommandLine.Help.Ansi.OFF);
    return out.toString();
  }

  @Test
  void descriptionsAreSingleParagraphsThatPicocliWraps() {
    for (CommandLine cmd : allCommands()) {
      String name = cmd.getCommandSpec().qualifiedName();
      assertThat(cmd.getCommandSpec().usageMessage().description())
          .as("description of '%s': one string, wrapped by picocli", name)
          .hasSizeLessThanOrEqualTo(1);
      for (OptionSpec o : cmd.getCommandSpec().options()) {
        assertThat(o.description()).as("%s %s", name, o.longestName()).hasSizeLessThanOrEqualTo(1);
      }
      for (PositionalParamSpec p : cmd.getCommandSpec().positionalParameters()) {
        assertThat(p.description()).as("%s %s", name, p.paramLabel()).hasSizeLessThanOrEqualTo(1);
      }
    }
  }

  @Test
  void noWordIsSplitAcrossLines() {
    for (CommandLine cmd : allCommands()) {
      List<String> texts = new ArrayList<>();
      texts.addAll(List.of(cmd.getCommandSpec().usageMessage().description()));
      texts.addAll(List.of(cmd.getCommandSpec().usageMessage().header()));
      cmd.getCommandSpec().options().forEach(o -> texts.addAll(List.of(o.description())));
      cmd.getCommandSpec()
          .positionalParameters()
          .forEach(p -> texts.addAll(List.of(p.description())));
      String help = usage(cmd);
      for (String text : texts) {
        for (String word : text.split("\\s+")) {
          // e.g. ".protector/keys.p12" or "db.customers": picocli used to cut them after a dot
          if (word.length() <= 40 && !word.contains("${") && word.matches(".*\\w[./]\\w.*")) {
            assertThat(help)
                .as(
                    "help of '%s' keeps '%s' on one line",
                    cmd.getCommandSpec().qualifiedName(), word)
                .contains(word);
          }
        }
      }
    }
  }

  @Test
  void summaryIsPrintedOnce() {
    for (CommandLine cmd : allCommands()) {
      String[] header = cmd.getCommandSpec().usageMessage().header();
      if (header.length == 0) {
        continue;
      }
      String first = header[0];
      String summaryStart = first.substring(0, Math.min(first.length(), 30));
      String help = usage(cmd);
      assertThat(help.indexOf(summaryStart))
          .as("summary of '%s'", cmd.getCommandSpec().qualifiedName())
          .isEqualTo(help.lastIndexOf(summaryStart));
    }
  }

  @Test
  void policyHelpPromisesOnlyRealSubcommands() {
    Cli.Result r = Cli.run("policy", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).doesNotContain("inspect");
    CommandLine policy = ProtectorCli.newCommandLine(null).getSubcommands().get("policy");
    for (String word : List.of("validate", "explain")) {
      if (r.out().contains(word)) {
        assertThat(policy.getSubcommands()).as("policy help names '%s'", word).containsKey(word);
      }
    }
  }

  @Test
  void helpWalksTheWholeCommandPath() {
    Cli.Result viaHelp = Cli.run("help", "keys", "create");
    Cli.Result viaOption = Cli.run("keys", "create", "--help");
    assertThat(viaHelp.code()).isZero();
    assertThat(viaHelp.out()).contains("Usage: protector keys create").isEqualTo(viaOption.out());

    Cli.Result unknown = Cli.run("help", "keys", "crate");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown command 'crate' under 'protector keys'");
  }

  @Test
  void serverHelpIsOneText() {
    Cli.Result option = Cli.run("server", "--help");
    Cli.Result command = Cli.run("help", "server");
    assertThat(option.code()).isZero();
    assertThat(option.out())
        .contains("Usage: protector server")
        .contains("new-token")
        .isEqualTo(command.out());
  }

  @Test
  void newTokenHelpPrintsHelpNotAToken() {
    Cli.Result r = Cli.run("server", "--jar", "/nonexistent/server.jar", "new-token", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .startsWith("Print a new server token and its sha256.")
        .contains("Usage: protector server new-token");
    assertThat(r.err()).isEmpty();
  }
}
