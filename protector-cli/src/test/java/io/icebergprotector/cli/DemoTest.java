/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.inspect.ColumnReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's core on 2,000 rows (the command writes 100,000), then {@code sql} and {@code inspect}
 * on what it wrote. One test: every Spark start costs seconds on a small machine.
 */
class DemoTest {
  @TempDir Path dir;

  @Test
  void demoThenSqlThenInspect() throws Exception {
    Path policy = Path.of("../conf/policy.conf").toAbsolutePath().normalize();
    Workspace ws = new Workspace(dir.resolve("warehouse"), dir.resolve(".protector"), policy);

    StringWriter out = new StringWriter();
    StringWriter progress = new StringWriter();
    Demo.Result result =
        Demo.run(ws, 2_000, new PrintWriter(out, true), new PrintWriter(progress, true));
    String text = out.toString();

    // First run: passphrase file (0600) and keystore with the policy's keys.
    assertThat(Files.readString(ws.passphraseFile)).hasSize(43);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ws.passphraseFile)))
        .isEqualTo("rw-------");
    assertThat(text)
        .contains("passphrase  " + ws.passphraseFile + " (generated now, mode rw-------)")
        .contains("(created now), created keys fin, footer, hr-footer, pii");
    assertThat(progress.toString())
        .contains("starting local Spark")
        .contains("writing 2,000 rows as etl");

    // One query, three principals.
    assertThat(result.queryColumns())
        .containsExactly("id", "name", "ssn", "email", "salary", "zip", "city");
    assertThat(result.valuesByReader().get("alice"))
        .containsSequence(
            "42",
            Demo.CONTROL_NAME,
            Demo.CANARY_SSN,
            Demo.CANARY_EMAIL,
            "4242424.42",
            Demo.CANARY_ZIP);
    List<String> bob = result.valuesByReader().get("bob");
    assertThat(bob.get(2)).isEqualTo("*******4242");
    assertThat(bob.get(3)).matches("[0-9a-f]{64}");
    assertThat(bob.subList(4, 6)).containsOnly("NULL");
    assertThat(bob.get(1)).isEqualTo(Demo.CONTROL_NAME);
    assertThat(result.valuesByReader().get("carol").subList(2, 6)).containsOnly("NULL");
    assertThat(text)
        .contains("alice (admin)")
        .contains("bob (analyst)")
        .contains("carol (no role)")
        .contains("masked ssn (partial(keep_last=4)), email (hash); denied salary, address.zip");

    // At rest: the footer names the key of every protected column; no canary in any file.
    assertThat(result.report().columns())
        .filteredOn(ColumnReport::encrypted)
        .extracting(c -> c.path() + "=" + c.keyMaterial().orElseThrow().masterKeyId())
        .containsExactlyInAnyOrder("ssn=pii", "email=pii", "salary=fin", "address.zip=pii");
    assertThat(result.protectedHits()).isZero();
    assertThat(result.controlFiles()).isPositive();
    assertThat(text).contains("  0 hits in " + result.filesSearched() + " files");

    // Re-run: the table is replaced, the keys are kept.
    StringWriter again = new StringWriter();
    Demo.Result second =
        Demo.run(
            ws, 1_000, new PrintWriter(again, true), new PrintWriter(new StringWriter(), true));
    assertThat(again.toString()).contains("(exists)").contains("keys fin, footer, hr-footer, pii");
    assertThat(second.protectedHits()).isZero();

    // sql as two users on what the demo wrote.
    String[] common = {
      "--warehouse",
      ws.warehouse.toString(),
      "--state-dir",
      dir.resolve(".protector").toString(),
      "--policy",
      policy.toString()
    };
    Cli.Result bobSql =
        Cli.run(
            concat(
                new String[] {
                  "sql",
                  "--user",
                  "bob",
                  "-e",
                  "SELECT count(*) AS n, count(salary) AS salaries, max(ssn) LIKE '%*%' AS masked FROM db.customers;"
                      + " SELECT ssn FROM db.customers WHERE id = 42"
                },
                common));
    assertThat(bobSql.code()).as(bobSql.err()).isZero();
    assertThat(bobSql.out())
        .contains("> SELECT count(*)")
        .containsPattern("\\| n +\\| salaries \\| masked \\|")
        .containsPattern("\\| 1000 \\| 0 +\\| true +\\|")
        .contains("| *******4242 |")
        .contains("(1 row)");

    Path script = dir.resolve("q.sql");
    Files.writeString(
        script, "-- as alice\nSELECT count(salary) AS salaries FROM demo.db.customers;\n");
    Cli.Result aliceSql =
        Cli.run(concat(new String[] {"sql", "--user", "alice", "-f", script.toString()}, common));
    assertThat(aliceSql.code()).as(aliceSql.err()).isZero();
    assertThat(aliceSql.out()).containsPattern("\\| 1000 +\\|");

    Cli.Result missing =
        Cli.run(
            concat(new String[] {"sql", "--user", "alice", "-e", "SELECT * FROM db.nope"}, common));
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("error: ").contains("nope");
    assertThat(missing.err().lines().filter(l -> l.startsWith("error: "))).hasSize(1);
    assertThat(missing.err().lines().filter(l -> l.contains("Project") || l.contains("+-")))
        .isEmpty();

    // inspect on one of the demo's data files, footer key unwrapped from the keystore.
    Path data =
        Demo.files(ws.warehouse.resolve("db/customers/data")).stream()
            .filter(p -> p.getFileName().toString().endsWith(".parquet"))
            .findFirst()
            .orElseThrow();
    Cli.Result inspect =
        Cli.run(
            "inspect",
            data.toString(),
            "--keystore",
            ws.keystore.toString(),
            "--passphrase-file",
            ws.passphraseFile.toString(),
            "--policy",
            policy.toString(),
            "--user",
            "carol");
    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out())
        .contains("Columns:    8 (4 encrypted)")
        .containsPattern("salary: encrypted .*masterKeyID=fin");
    List<String> lines = inspect.out().lines().collect(Collectors.toList());
    assertThat(lines).noneMatch(l -> l.contains(Demo.CANARY_SSN));
  }

  @Test
  void usageErrorsExit2() {
    assertThat(Cli.run("demo", "--rows", "5").code()).isEqualTo(2);
    assertThat(Cli.run("sql", "-e", "SELECT 1").code()).isEqualTo(2); // --user is required
    assertThat(Cli.run("sql", "--user", "bob").code()).isEqualTo(2); // -e or -f
    assertThat(Cli.run("sql", "--user", "bob", "-e", "SELECT 1", "-f", "x.sql").code())
        .isEqualTo(2);
    assertThat(Cli.run("sql", "--user", "bob", "-e", " ; ").code()).isEqualTo(2);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = new String[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
