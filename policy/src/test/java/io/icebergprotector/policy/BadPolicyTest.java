/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad policy must fail with one self-contained line: {@code origin:line: key: what}. The
 * expected line is the one marked {@code # <--} in the text, so the cases stay readable.
 */
class BadPolicyTest {
  private static final String MARK = "# <--";

  /** Roles and keys shared by most cases; the case text continues inside protector { ... }. */
  private static final String HEAD =
      """
      protector {
        roles {
          admin   { users = ["alice"], groups = ["secops"] }
          analyst { users = ["bob"] }
          etl     { users = ["etl"] }
        }
        keys { pii {}, fin {}, footer {} }
      """;

  static Stream<Arguments> badPolicies() {
    return Stream.of(
        bad(
            "HOCON syntax error",
            "",
            "HOCON syntax error",
            HEAD
                + """
              tables {
                "db.t" {
                  writers = [etl,
                }   # <--
              }
            }
            """),
        bad(
            "missing protector root",
            "protector",
            "missing root object 'protector'",
            """
            protecter {   # <--
              tables { "db.t" { footer-key = footer } }
            }
            """),
        bad(
            "empty policy",
            "protector",
            "protects nothing",
            """
            protector {   # <--
              roles { admin { users = [alice] } }
              keys { pii {} }
            }
            """),
        bad(
            "unknown column key",
            "protector.tables.\"db.t\".columns.ssn.key",
            "unknown key 'pio'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pio, clear = [admin] }   # <--
                  }
                }
              }
            }
            """,
            "did you mean 'pii'",
            "pii, fin, footer"),
        bad(
            "unknown footer key",
            "protector.tables.\"db.t\".footer-key",
            "unknown key 'fotter'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = fotter   # <--
                  columns { ssn { key = pii } }
                }
              }
            }
            """),
        bad(
            "unknown role in clear",
            "columns.ssn.clear",
            "unknown role 'admn' in clear",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn {
                      key = pii
                      clear = [
                        analyst,
                        admn      # <--
                      ]
                    }
                  }
                }
              }
            }
            """,
            "did you mean 'admin'",
            "admin, analyst, etl"),
        bad(
            "unknown role in masked",
            "columns.ssn.masked.analyts",
            "unknown role 'analyts' in masked",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii, masked { analyts = hash } }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "unknown role in writers",
            "protector.tables.\"db.t\".writers",
            "unknown role 'loader' in writers",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  writers = [etl, loader]   # <--
                  columns { ssn { key = pii } }
                }
              }
            }
            """),
        bad(
            "unknown role in declassify",
            "protector.tables.\"db.t\".declassify",
            "unknown role 'admn' in declassify",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  declassify = [admn]   # <--
                  columns { ssn { key = pii } }
                }
              }
            }
            """,
            "did you mean 'admin'"),
        bad(
            "strict not a boolean",
            "protector.tables.\"db.t\".strict",
            "expected true or false",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  strict = yes-please   # <--
                  columns { ssn { key = pii } }
                }
              }
            }
            """),
        bad(
            "plain-columns without strict",
            "protector.tables.\"db.t\".plain-columns",
            "applies only to strict entries",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  plain-columns = [id]   # <--
                  columns { ssn { key = pii } }
                }
              }
            }
            """),
        bad(
            "plain column that is protected",
            "protector.tables.\"db.t\".plain-columns",
            "plain column 'address' overlaps protected column 'address.zip'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  strict = true
                  plain-columns = [id, address]   # <--
                  columns { "address.zip" { key = pii } }
                }
              }
            }
            """),
        bad(
            "role both clear and masked",
            "columns.ssn.masked.admin",
            "both clear and masked",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn {
                      key = pii
                      clear = [admin]
                      masked { admin = hash }   # <--
                    }
                  }
                }
              }
            }
            """),
        bad(
            "role with no users and no groups",
            "protector.roles.ghost",
            "no users and no groups",
            """
            protector {
              roles {
                admin { users = [alice] }
                ghost { users = [], groups = [] }   # <--
              }
              keys { pii {}, footer {} }
              tables { "db.t" { footer-key = footer, columns { ssn { key = pii } } } }
            }
            """),
        bad(
            "duplicate column, case-insensitive",
            "columns.SSN",
            "duplicate column 'SSN'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii }
                    SSN { key = fin }   # <--
                  }
                }
              }
            }
            """,
            "line 12"),
        bad(
            "duplicate column, dotted vs nested",
            "columns.address.zip",
            "duplicate column 'address.zip'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    "address.zip" { key = pii }
                    address {
                      zip { key = pii, clear = [admin] }   # <--
                    }
                  }
                }
              }
            }
            """),
        bad(
            "literally repeated column key",
            "columns.ssn",
            "defined more than once",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii }
                    email { key = pii }
                    ssn { clear = [admin] }   # <--
                  }
                }
              }
            }
            """,
            "lines 12 and 14"),
        bad(
            "literally repeated table",
            "protector.tables.\"db.t\"",
            "defined more than once",
            HEAD
                + """
              tables {
                "db.t" { footer-key = footer, columns { ssn { key = pii } } }
                "db.t" { writers = [etl] }   # <--
              }
            }
            """),
        bad(
            "literally repeated role",
            "protector.roles.admin",
            "defined more than once",
            """
            protector {
              roles {
                admin { users = [alice] }
                etl   { users = [etl] }
                admin { groups = [secops] }   # <--
              }
              keys { pii {}, footer {} }
              tables { "db.t" { footer-key = footer, columns { ssn { key = pii } } } }
            }
            """),
        bad(
            "empty column name",
            "columns.\"\"",
            "empty column name",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    "" { key = pii }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "empty path segment",
            "columns.\"address..zip\"",
            "empty path segment",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii }
                    "address..zip" { key = pii }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "column without key",
            "columns.ssn",
            "has no key",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { clear = [admin], masked { analyst = hash } }   # <--
                  }
                }
              }
            }
            """,
            "pii, fin, footer"),
        bad(
            "missing footer-key",
            "protector.tables.\"db.t\"",
            "missing footer-key",
            HEAD
                + """
              tables {
                "db.t" {   # <--
                  writers = [etl]
                  columns { ssn { key = pii } }
                }
              }
            }
            """),
        bad(
            "footer key protects a column elsewhere",
            "protector.tables.\"db.a\".footer-key",
            "footer key 'footer' also protects column 'notes' of db.b",
            HEAD
                + """
              tables {
                "db.a" {
                  footer-key = footer   # <--
                  columns { ssn { key = pii } }
                }
                "db.b" {
                  footer-key = fin
                  columns { notes { key = footer } }
                }
              }
            }
            """,
            "must never protect a column"),
        bad(
            "footer key protects a column of a path entry",
            "protector.tables.\"db.a\".footer-key",
            "also protects column 'ssn' of s3a://b/pii/",
            HEAD
                + """
              tables {
                "db.a" { footer-key = pii }   # <--
              }
              paths {
                "s3a://b/pii/" { footer-key = footer, columns { ssn { key = pii } } }
              }
            }
            """),
        bad(
            "footer-key names a column",
            "protector.tables.\"db.t\".footer-key",
            "names a column",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = ssn   # <--
                  columns { ssn { key = pii } }
                }
              }
            }
            """),
        bad(
            "unknown mask",
            "columns.ssn.masked.analyst",
            "Unknown mask 'sha1'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii, masked { analyst = sha1 } }   # <--
                  }
                }
              }
            }
            """,
            "null, redact, partial(keep_last=N), hash, year"),
        bad(
            "partial keep_last negative",
            "columns.ssn.masked.analyst",
            "keep_last must be a non-negative integer, got '-2'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii, masked { analyst = "partial(keep_last=-2)" } }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "partial keep_last not a number",
            "columns.ssn.masked.analyst",
            "got 'four'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii, masked { analyst = "partial(keep_last=four)" } }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "partial without argument",
            "columns.ssn.masked.analyst",
            "partial needs an argument",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn { key = pii, masked { analyst = partial } }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "unknown algorithm",
            "protector.tables.\"db.t\".algorithm",
            "Unknown algorithm 'AES_CBC'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  algorithm = AES_CBC   # <--
                }
              }
            }
            """,
            "AES_GCM_V1, AES_GCM_CTR_V1"),
        bad(
            "unknown footer-mode",
            "protector.tables.\"db.t\".footer-mode",
            "Unknown footer-mode 'signed'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  footer-mode = signed   # <--
                }
              }
            }
            """,
            "encrypted, plaintext"),
        bad(
            "unknown on-denied",
            "columns.ssn.on-denied",
            "Unknown on-denied 'drop'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn {
                      key = pii
                      on-denied = drop   # <--
                    }
                  }
                }
              }
            }
            """,
            "null, fail"),
        bad(
            "writers is a string, not a list",
            "protector.tables.\"db.t\".writers",
            "expected a list of role names",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  writers = "etl"   # <--
                }
              }
            }
            """,
            "but got string \"etl\"",
            "[etl]"),
        bad(
            "clear is a string, not a list",
            "columns.ssn.clear",
            "but got string \"admin\"",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns { ssn { key = pii, clear = admin } }   # <--
                }
              }
            }
            """),
        bad(
            "key is a list, not a string",
            "columns.ssn.key",
            "expected a key id but got list",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns { ssn { key = [pii] } }   # <--
                }
              }
            }
            """),
        bad(
            "mask is a number",
            "columns.ssn.masked.analyst",
            "expected a mask",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns { ssn { key = pii, masked { analyst = 4 } } }   # <--
                }
              }
            }
            """,
            "number 4"),
        bad(
            "columns is a list",
            "protector.tables.\"db.t\".columns",
            "expected an object of columns",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns = [ssn, email]   # <--
                }
              }
            }
            """),
        bad(
            "typo in a column field",
            "columns.ssn.claer",
            "unknown field 'claer' in column",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    ssn {
                      key = pii
                      claer = [admin]   # <--
                    }
                  }
                }
              }
            }
            """,
            "did you mean 'clear'",
            "key, method, domain, pme, clear, token, masked, on-denied"),
        bad(
            "typo in a table field",
            "protector.tables.\"db.t\".footer_key",
            "unknown field 'footer_key' in table",
            HEAD
                + """
              tables {
                "db.t" {
                  footer_key = footer   # <--
                }
              }
            }
            """,
            "did you mean 'footer-key'"),
        bad(
            "typo in a top-level section",
            "protector.tabels",
            "unknown field 'tabels' in protector",
            HEAD
                + """
              tables { "db.t" { footer-key = footer } }
              tabels { "db.u" { footer-key = footer } }   # <--
            }
            """,
            "did you mean 'tables'"),
        bad(
            "table name without namespace",
            "protector.tables.customers",
            "not of the form namespace.table",
            HEAD
                + """
              tables {
                customers { footer-key = footer }   # <--
              }
            }
            """),
        bad(
            "unquoted dotted table name",
            "protector.tables.db",
            "quote table names: \"db.customers\"",
            HEAD
                + """
              tables {
                db.customers { footer-key = footer }   # <--
              }
            }
            """),
        bad(
            "duplicate table, case-insensitive",
            "protector.tables.\"DB.T\"",
            "duplicate table 'DB.T'",
            HEAD
                + """
              tables {
                "db.t" { footer-key = footer }
                "DB.T" { footer-key = footer }   # <--
              }
            }
            """),
        bad(
            "relative path prefix",
            "protector.paths.\"bucket/pii/\"",
            "not an absolute location",
            HEAD
                + """
              paths {
                "bucket/pii/" { footer-key = footer }   # <--
              }
            }
            """),
        bad(
            "struct and its field both protected",
            "columns.\"address.zip\"",
            "overlaps protected column 'address'",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  columns {
                    address { key = pii }
                    "address.zip" { key = fin }   # <--
                  }
                }
              }
            }
            """),
        bad(
            "unresolved substitution",
            "",
            "invalid HOCON: Could not resolve substitution",
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  writers = ${writers}   # <--
                }
              }
            }
            """),
        bad(
            "invalid key id",
            "protector.keys.\"my key\"",
            "invalid key id 'my key'",
            """
            protector {
              keys {
                footer {}
                "my key" {}   # <--
              }
              tables { "db.t" { footer-key = footer } }
            }
            """));
  }

  private static Arguments bad(
      String name, String key, String problem, String hocon, String... more) {
    return Arguments.of(name, key, problem, hocon, more);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPolicies")
  void rejected(String name, String key, String problem, String hocon, String[] more) {
    int line = markedLine(hocon);
    PolicyException e =
        catchThrowableOfType(PolicyException.class, () -> Policy.parse(hocon, "bad.conf"));
    assertThat(e).as(name + ": expected a PolicyException").isNotNull();
    String msg = e.getMessage();
    assertThat(msg).as("one line").doesNotContain("\n");
    assertThat(msg).startsWith("bad.conf:" + line + ": ");
    assertThat(e.origin()).isEqualTo("bad.conf");
    assertThat(e.line()).isEqualTo(line);
    assertThat(e.key()).contains(key);
    assertThat(msg).contains(key).contains(problem);
    for (String m : more) {
      assertThat(msg).contains(m);
    }
  }

  static int markedLine(String text) {
    String[] lines = text.split("\n", -1);
    int found = -1;
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].contains(MARK)) {
        assertThat(found).as("exactly one marker").isEqualTo(-1);
        found = i + 1;
      }
    }
    assertThat(found).as("case needs a " + MARK + " marker").isPositive();
    return found;
  }
}
