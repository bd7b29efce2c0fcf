/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.IHelpCommandInitializable2;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code protector help [command [subcommand ...]]}. Picocli's own help command looks at the first
 * name only, so {@code help keys create} showed the {@code keys} help; this one walks the path.
 */
@Command(
    name = "help",
    helpCommand = true,
    header = "Show the help of a command, e.g. 'help keys create'.",
    synopsisHeading = "%nUsage: ",
    descriptionHeading = "%n",
    description = "With no command, shows the overview of all commands.")
final class HelpCommand implements IHelpCommandInitializable2, Runnable {
  @Parameters(
      arity = "0..*",
      paramLabel = "<command>",
      description = "The command path, e.g. keys create.")
  List<String> path = List.of();

  private CommandLine self;
  private PrintWriter out;
  private ColorScheme colorScheme;

  @Override
  public void init(
      CommandLine helpCommandLine, ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
    this.self = helpCommandLine;
    this.out = out;
    this.colorScheme = colorScheme;
  }

  @Override
  public void run() {
    CommandLine target = self.getParent();
    for (String name : path) {
      CommandLine sub = target.getSubcommands().get(name);
      if (sub == null) {
        throw new ParameterException(
            self,
            "unknown command '"
                + name
                + "' under '"
                + target.getCommandSpec().qualifiedName()
                + "'; commands: "
                + String.join(", ", target.getSubcommands().keySet()));
      }
      target = sub;
    }
    target.usage(out, colorScheme);
    out.flush();
  }
}
