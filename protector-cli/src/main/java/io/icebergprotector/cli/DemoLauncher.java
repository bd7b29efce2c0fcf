/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.io.PrintWriter;

/** Keeps {@link Demo}'s Spark-typed signature out of {@link DemoCommand}. */
final class DemoLauncher {
  private DemoLauncher() {}

  static void run(Workspace ws, long rows, PrintWriter out, PrintWriter progress) {
    Demo.run(ws, rows, out, progress);
  }
}
