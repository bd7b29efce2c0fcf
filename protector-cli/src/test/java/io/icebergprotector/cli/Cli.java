/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** Runs the CLI in-process, capturing stdout, stderr and the prompts shown. */
final class Cli {
  record Result(int code, String out, String err, List<String> prompts) {
    String all() {
      return out + err;
    }
  }

  private Cli() {}

  static Result run(String... args) {
    return run(null, args);
  }

  /** {@code answers}: lines "typed" at the terminal in turn; null means no terminal. */
  static Result run(List<String> answers, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> prompts = new ArrayList<>();
    ProtectorCli.Terminal terminal =
        answers == null
            ? null
            : prompt -> {
              prompts.add(prompt);
              return prompts.size() <= answers.size() ? answers.get(prompts.size() - 1) : null;
            };
    CommandLine cmd = ProtectorCli.newCommandLine(terminal);
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new Result(code, out.toString(), err.toString(), prompts);
  }
}
