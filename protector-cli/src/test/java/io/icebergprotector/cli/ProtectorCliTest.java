/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ProtectorCliTest {
  static final String GOOD =
      """
      protector {
        roles { admin { users = [alice] }, analyst { users = [bob] }, etl { users = [etl] } }
        keys { pii {}, fin {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            writers = [etl]
            columns {
              ssn    { key = pii, clear = [admin], masked { analyst = "partial(keep_last=4)" } }
              salary { key = fin, clear = [admin] }
              "address.zip" { key = pii, clear = [admin] }
            }
          }
        }
      }
      """;

  @TempDir Path dir;

  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = ProtectorCli.newCommandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  Path write(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  @Test
  void validGood() throws IOException {
    Path f = write("good.conf", GOOD);
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).isZero();
    assertThat(r.err).isEmpty();
    assertThat(r.out)
        .startsWith("OK: " + f + ": 1 table, 3 protected columns, 3 keys\n")
        .contains(
            "table db.customers: 3 columns (ssn, salary, address.zip), keys pii, fin,"
                + " footer footer (encrypted), AES_GCM_V1, writers: etl");
  }

  @Test
  void shippedSamplePolicy() {
    Result r = run("policy", "validate", "../conf/policy.conf");
    assertThat(r.code).as(r.err).isZero();
    assertThat(r.out)
        .startsWith("OK: ../conf/policy.conf: 2 tables, 1 location, 8 protected columns, 4 keys")
        .contains("path  s3a://bucket/pii/");
  }

  @Test
  void ctrEntryIsAWarningNotAnError() throws IOException {
    Path f =
        write(
            "ctr.conf",
            GOOD.replace(
                "footer-key = footer\n",
                "footer-key = footer\n      algorithm = AES_GCM_CTR_V1\n"));
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).as(r.err).isZero();
    assertThat(r.out).startsWith("OK: " + f + ": 1 table,");
    assertThat(r.err)
        .isEqualTo(
            "warning: "
                + f
                + ":7: protector.tables.\"db.customers\".algorithm:"
                + " AES_GCM_CTR_V1 leaves the data pages of table db.customers unauthenticated (AES-CTR with only"
                + " a CRC, no GCM tag): anyone with write access to the storage can change protected values"
                + " undetectably; use AES_GCM_V1 unless its cost matters\n");
  }

  @Test
  void shippedSamplePolicyWarnsAboutItsCtrTable() {
    Result r = run("policy", "validate", "../conf/policy.conf");
    assertThat(r.code).isZero();
    assertThat(r.err.lines())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("warning: ../conf/policy.conf:")
                    .contains("protector.tables.\"hr.employees\".algorithm: AES_GCM_CTR_V1 ")
                    .contains("change protected values undetectably"));
  }

  @Test
  void shippedSamplePolicyFitsShippedSchema() {
    Result r =
        run(
            "policy",
            "validate",
            "../conf/policy.conf",
            "--table-schema",
            "../conf/table-schema.conf");
    assertThat(r.code).as(r.err).isZero();
    assertThat(r.out)
        .contains("schema: ../conf/table-schema.conf: columns and masks fit")
        .doesNotContain("note:");
  }

  @Test
  void invalidPolicyIsOneLineExit1() throws IOException {
    Path f = write("bad.conf", GOOD.replace("key = fin", "key = fim"));
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.out).isEmpty();
    assertThat(r.err)
        .isEqualTo(
            "error: "
                + f
                + ":10: protector.tables.\"db.customers\".columns.salary.key:"
                + " unknown key 'fim'; keys defined in protector.keys: pii, fin, footer (did you mean 'fin'?)\n");
  }

  @Test
  void syntaxErrorIsOneLine() throws IOException {
    Path f =
        write("syntax.conf", "protector {\n  tables {\n    \"db.t\" { writers = [etl, }\n  }\n}\n");
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).startsWith("error: " + f + ":3: HOCON syntax error: ").endsWith("\n");
    assertThat(r.err.lines()).hasSize(1);
  }

  @Test
  void verboseAddsStackTrace() throws IOException {
    Path f = write("bad.conf", GOOD.replace("writers = [etl]", "writers = etl"));
    Result r = run("policy", "validate", "--verbose", f.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err)
        .startsWith(
            "error: " + f + ":7: protector.tables.\"db.customers\".writers: expected a list")
        .contains("io.icebergprotector.policy.PolicyException")
        .contains("\tat ");
    Result top = run("--verbose", "policy", "validate", f.toString());
    assertThat(top.err).contains("\tat ");
  }

  @Test
  void missingFile() {
    Path f = dir.resolve("missing.conf");
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).isEqualTo("error: " + f + ": policy file not found\n");
  }

  @Test
  void tableSchemaFits() throws IOException {
    Path f = write("good.conf", GOOD);
    Path s =
        write(
            "schema.conf",
            """
        "db.customers" {
          ssn = string
          salary = "decimal(10,2)"
          address { zip = string, city = string }
        }
        "db.orders" { id = long }
        """);
    Result r = run("policy", "validate", f.toString(), "--table-schema", s.toString());
    assertThat(r.code).as(r.err).isZero();
    assertThat(r.out)
        .contains("schema: " + s + ": columns and masks fit")
        .contains("note: db.orders in " + s + " is not in the policy");
  }

  @Test
  void tableSchemaMismatch() throws IOException {
    Path f = write("good.conf", GOOD);
    Path s =
        write(
            "schema.conf",
            "\"db.customers\" { ssn = long, salary = decimal, \"address.zip\" = string }\n");
    Result r = run("policy", "validate", f.toString(), "--table-schema", s.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err)
        .isEqualTo(
            "error: "
                + f
                + ":9: protector.tables.\"db.customers\".columns.ssn.masked.analyst:"
                + " mask 'partial(keep_last=4)' does not fit column 'ssn' of type LONG; partial applies to: STRING\n");

    Path missingCol =
        write("schema2.conf", "\"db.customers\" { ssn = string, salary = decimal }\n");
    r = run("policy", "validate", f.toString(), "--table-schema", missingCol.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err)
        .startsWith(
            "error: "
                + f
                + ":11: protector.tables.\"db.customers\".columns.\"address.zip\":"
                + " column 'address.zip' is not in the schema of table db.customers");
  }

  @Test
  void badTableSchemaFile() throws IOException {
    Path f = write("good.conf", GOOD);
    Path s = write("schema.conf", "\"db.customers\" {\n  ssn = strng\n}\n");
    Result r = run("policy", "validate", f.toString(), "--table-schema", s.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err)
        .startsWith("error: " + s + ":2: \"db.customers\".ssn: Unknown column type 'strng'");
  }

  @Test
  void usageErrorsExit2() {
    Result none = run();
    assertThat(none.code).isEqualTo(2);
    assertThat(none.err).contains("error: missing command");
    Result noFile = run("policy", "validate");
    assertThat(noFile.code).isEqualTo(2);
    assertThat(noFile.err).startsWith("error: Missing required parameter: '<file>'");
    Result unknown = run("policy", "valdate", "x.conf");
    assertThat(unknown.code).isEqualTo(2);
    assertThat(unknown.err).contains("valdate").contains("validate");
    Result group = run("policy");
    assertThat(group.code).isEqualTo(2);
    Result badOpt = run("policy", "validate", "--nope", "x.conf");
    assertThat(badOpt.code).isEqualTo(2);
  }

  @Test
  void helpAndVersion() {
    Result help = run("--help");
    assertThat(help.code).isZero();
    assertThat(help.out).contains("policy");
    Result vhelp = run("policy", "validate", "--help");
    assertThat(vhelp.code).isZero();
    assertThat(vhelp.out).contains("--table-schema");
    assertThat(run("--version").out).startsWith("iceberg-protector ");
  }

  @Test
  void everyErrorInOneRunEachWithFileAndLine() throws IOException {
    Path f =
        write(
            "bad.conf",
            """
        protector {
          roles { admin { users = [alice] }, analyst { users = [bob] } }
          keys { pii {}, fin {}, footer {} }
          tables {
            "db.customers" {
              footer-key = footer
              writers = [admin]
              columns {
                ssn    { key = pii, clear = [admni] }
                salary { key = fim, clear = [admin] }
              }
            }
            "db.orders" {
              footer-key = footr
              columns { total { key = fin, clear = [admin] } }
            }
          }
        }
        """);
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.out).isEmpty();
    assertThat(r.err.lines().toList())
        .containsExactly(
            "error: "
                + f
                + ":9: protector.tables.\"db.customers\".columns.ssn.clear: unknown role 'admni' in"
                + " clear; roles defined in protector.roles: admin, analyst (did you mean 'admin'?)",
            "error: "
                + f
                + ":10: protector.tables.\"db.customers\".columns.salary.key: unknown key 'fim';"
                + " keys defined in protector.keys: pii, fin, footer (did you mean 'fin'?)",
            "error: "
                + f
                + ":14: protector.tables.\"db.orders\".footer-key: unknown key 'footr';"
                + " keys defined in protector.keys: pii, fin, footer (did you mean 'footer'?)",
            "3 errors");
  }

  @Test
  void missingCloseBraceIsNamedInOurWords() throws IOException {
    Path f =
        write(
            "brace.conf",
            """
        protector {
          roles { admin { users = [alice] } }
          keys { pii {}, footer {} }
          tables {
            "db.t" {
              footer-key = footer
              columns { ssn { key = pii, clear = [admin] }
            }
          }
        }
        """);
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err.lines())
        .singleElement()
        .asString()
        .startsWith(
            "error: "
                + f
                + ":1: HOCON syntax error: the '{' opened at line 1 is never closed: a '}' is missing");

    Path mismatch =
        write("mismatch.conf", "protector {\n  roles { admin { users = [alice } }\n}\n");
    Result m = run("policy", "validate", mismatch.toString());
    assertThat(m.err)
        .startsWith(
            "error: "
                + mismatch
                + ":2: HOCON syntax error: '}' at line 2 closes the '['"
                + " opened at line 2; a ']' is missing before it");
  }

  @Test
  void pathOnlyPolicyCountsLocationsNotTables() throws IOException {
    Path f =
        write(
            "paths.conf",
            """
        protector {
          roles { admin { users = [alice] } }
          keys { pii {}, footer {} }
          paths {
            "s3a://bucket/pii/" { footer-key = footer, columns { ssn { key = pii, clear = [admin] } } }
          }
        }
        """);
    Result r = run("policy", "validate", f.toString());
    assertThat(r.code).as(r.err).isZero();
    assertThat(r.out)
        .startsWith("OK: " + f + ": 1 location, 1 protected column, 2 keys\n")
        .doesNotContain("tables");
  }
}
