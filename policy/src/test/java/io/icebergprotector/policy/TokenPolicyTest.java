/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Per-column methods (pme, deterministic, fpe), token domains, pme = false and token access. */
class TokenPolicyTest {
  private static final String HEAD =
      """
      protector {
        roles {
          admin   { users = [alice] }
          analyst { users = [bob] }
          support { users = [dave] }
          etl     { users = [etl] }
        }
        keys { pii {}, fin {}, footer {} }
      """;

  private static final String GOOD =
      HEAD
          + """
        tables {
          "db.customers" {
            footer-key = footer
            writers = [etl]
            columns {
              ssn {
                key = pii
                method = "fpe(alphabet = digits, keep = \\"-\\")"
                domain = ssn
                clear = [admin]
                token = [analyst]
                masked { support = "partial(keep_last=4)" }
              }
              email { key = pii, method = deterministic, pme = false, token = [analyst] }
              account { key = fin, method = "fpe(width = 9)" }
              name { key = pii, clear = [admin] }
            }
          }
          "db.orders" {
            footer-key = footer
            writers = [admin]
            columns {
              customer_ssn { key = pii, method = "fpe(alphabet = digits, keep = '-')", domain = ssn, token = [support] }
            }
          }
        }
      }
      """;

  private static final Principal ALICE = Principal.of("alice", Set.of());
  private static final Principal BOB = Principal.of("bob", Set.of());
  private static final Principal DAVE = Principal.of("dave", Set.of());
  private static final Principal ETL = Principal.of("etl", Set.of());
  private static final Principal EVE = Principal.of("eve", Set.of());

  @Test
  void methodsDomainsAndDefaults() {
    Policy p = Policy.parse(GOOD, "good.conf");
    TablePolicy t = p.table("db.customers").orElseThrow();
    ColumnPolicy ssn = t.column("ssn").orElseThrow();
    assertThat(ssn.method().kind()).isEqualTo(ProtectionMethod.Kind.FPE);
    assertThat(ssn.method().alphabet()).isEqualTo(ProtectionMethod.Alphabet.DIGITS);
    assertThat(ssn.method().keep()).isEqualTo("-");
    assertThat(ssn.method().minLength()).isEqualTo(6);
    assertThat(ssn.domain()).isEqualTo("ssn");
    assertThat(ssn.pme()).isTrue();
    assertThat(ssn.tokenRoles()).containsExactly("analyst");

    ColumnPolicy email = t.column("email").orElseThrow();
    assertThat(email.method()).isEqualTo(ProtectionMethod.deterministic());
    assertThat(email.domain()).isEqualTo("db.customers.email");
    assertThat(email.pme()).isFalse();

    ColumnPolicy account = t.column("account").orElseThrow();
    assertThat(account.method().numeric()).isTrue();
    assertThat(account.method().width()).isEqualTo(9);

    ColumnPolicy name = t.column("name").orElseThrow();
    assertThat(name.method()).isEqualTo(ProtectionMethod.pme());
    assertThat(name.tokenized()).isFalse();
    assertThat(name.domain()).isNull();
    assertThat(name.pme()).isTrue();

    assertThat(p.tokenDomains())
        .containsExactly("ssn", "db.customers.email", "db.customers.account");
    assertThat(p.tokenDomain("ssn").orElseThrow().keyId()).isEqualTo("pii");
  }

  @Test
  void accessLevels() {
    Policy p = Policy.parse(GOOD, "good.conf");
    assertThat(p.decide("db.customers", "ssn", ALICE)).isEqualTo(Access.clear());
    assertThat(p.decide("db.customers", "ssn", BOB)).isEqualTo(Access.token());
    assertThat(p.decide("db.customers", "ssn", DAVE)).isEqualTo(Access.masked(Mask.partial(4)));
    assertThat(p.decide("db.customers", "ssn", EVE)).isEqualTo(Access.denied(OnDenied.NULL));
    assertThat(Access.token().canDecrypt()).isTrue();
    assertThat(Access.token().detokenizes()).isFalse();
    assertThat(Access.masked(Mask.hash()).detokenizes()).isTrue();
  }

  @Test
  void tokenKeysGoToClearReadersOnly() {
    Policy p = Policy.parse(GOOD, "good.conf");
    assertThat(p.mayReleaseTokenKey(ALICE, "pii", "ssn")).isTrue();
    // the key detokenizes the whole domain: a writer or masked reader holding it reads clear values
    assertThat(p.mayReleaseTokenKey(ETL, "pii", "ssn")).as("writer, not a clear reader").isFalse();
    assertThat(p.mayReleaseTokenKey(DAVE, "pii", "ssn")).as("masked on db.customers").isFalse();
    assertThat(p.mayReleaseTokenKey(BOB, "pii", "ssn")).as("token role").isFalse();
    assertThat(p.mayReleaseTokenKey(EVE, "pii", "ssn")).isFalse();
    assertThat(p.mayReleaseTokenKey(ALICE, "fin", "ssn")).as("other key").isFalse();
    assertThat(p.mayReleaseTokenKey(ALICE, "pii", "nope")).isFalse();

    assertThat(p.mayProtect(ETL, "ssn")).isTrue();
    assertThat(p.mayProtect(ALICE, "ssn")).isTrue();
    assertThat(p.mayProtect(BOB, "ssn")).isFalse();
    assertThat(p.mayUnprotect(ALICE, "ssn")).isTrue();
    assertThat(p.mayUnprotect(ETL, "ssn")).as("a writer does not read").isFalse();
    assertThat(p.mayUnprotect(DAVE, "ssn")).isFalse();

    // server token mode: writers and masked readers still use the key server's batches
    assertThat(p.usesTokenDomain(ETL, "pii", "ssn")).isTrue();
    assertThat(p.usesTokenDomain(DAVE, "pii", "ssn")).isTrue();
    assertThat(p.usesTokenDomain(ALICE, "pii", "ssn")).isTrue();
    assertThat(p.usesTokenDomain(BOB, "pii", "ssn")).as("token role").isFalse();
    assertThat(p.usesTokenDomain(EVE, "pii", "ssn")).isFalse();
  }

  @Test
  void hashMaskKeysGoOnlyToHashMaskedReadersOfPmeColumns() {
    Policy p =
        Policy.parse(
            HEAD
                + """
              tables {
                "db.t" {
                  footer-key = footer
                  writers = [etl]
                  columns {
                    pin { key = pii, method = deterministic, clear = [admin], masked { support = hash } }
                    name { key = fin, clear = [admin], masked { analyst = hash, support = redact } }
                  }
                }
              }
            }
            """,
            "hash.conf");
    assertThat(p.mayDeriveHashMaskKey(BOB, "fin")).as("hash mask of a pme column").isTrue();
    assertThat(p.mayDeriveHashMaskKey(DAVE, "fin")).as("redact, not hash").isFalse();
    assertThat(p.mayDeriveHashMaskKey(ALICE, "fin")).as("a clear reader needs no mask").isFalse();
    // the key server hashes tokenized columns under a key of its own
    assertThat(p.mayDeriveHashMaskKey(DAVE, "pii")).as("hash mask of a tokenized column").isFalse();
    assertThat(p.mayDeriveHashMaskKey(ETL, "pii")).isFalse();
  }

  @Test
  void unwrappableKeysLeaveOutPlainTokenColumns() {
    String text =
        HEAD
            + """
          tables {
            "db.t" {
              footer-key = footer
              columns { email { key = pii, method = deterministic, pme = false, token = [analyst] } }
            }
          }
        }
        """;
    Policy p = Policy.parse(text, "t.conf");
    assertThat(p.unwrappableKeys(BOB)).containsExactly("footer");
  }

  @Test
  void roundTripsAndRestricts() {
    Policy p = Policy.parse(GOOD, "good.conf");
    assertThat(Policy.parse(p.toHocon(), "again.conf")).isEqualTo(p);
    Policy bob = p.restrictedTo(BOB);
    ColumnPolicy ssn = bob.table("db.customers").orElseThrow().column("ssn").orElseThrow();
    assertThat(ssn.tokenRoles()).containsExactly("analyst");
    assertThat(ssn.clearRoles()).isEmpty();
    assertThat(ssn.domain()).isEqualTo("ssn");
    assertThat(bob.decide("db.customers", "ssn", BOB)).isEqualTo(Access.token());
  }

  @Test
  void methodMustFitTheSchema() {
    Policy p = Policy.parse(GOOD, "good.conf");
    Map<String, ColumnType> schema = new LinkedHashMap<>();
    schema.put("ssn", ColumnType.STRING);
    schema.put("email", ColumnType.BINARY);
    schema.put("account", ColumnType.INT);
    schema.put("name", ColumnType.STRING);
    p.validateSchema("db.customers", schema);

    schema.put("email", ColumnType.LONG);
    PolicyException e =
        catchThrowableOfType(PolicyException.class, () -> p.validateSchema("db.customers", schema));
    assertThat(e.getMessage())
        .startsWith("good.conf:22: protector.tables.\"db.customers\".columns.email.method: ")
        .contains("method 'deterministic' does not fit column 'email' of type LONG")
        .contains("STRING, BINARY");

    schema.put("email", ColumnType.STRING);
    schema.put("ssn", ColumnType.DATE);
    e = catchThrowableOfType(PolicyException.class, () -> p.validateSchema("db.customers", schema));
    assertThat(e.getMessage())
        .startsWith("good.conf:14: ")
        .contains("method 'fpe(alphabet = digits, keep = \"-\")' does not fit column 'ssn'");
  }

  @Test
  void wideNumericFpeNeedsALong() {
    String text =
        HEAD
            + """
          tables {
            "db.t" {
              footer-key = footer
              columns { card { key = pii, method = "fpe(width = 16)" } }
            }
          }
        }
        """;
    Policy p = Policy.parse(text, "t.conf");
    p.validateSchema("db.t", Map.of("card", ColumnType.LONG));
    PolicyException e =
        catchThrowableOfType(
            PolicyException.class, () -> p.validateSchema("db.t", Map.of("card", ColumnType.INT)));
    assertThat(e.getMessage())
        .contains("method 'fpe(width = 16)' does not fit column 'card' of type INT")
        .contains("an INT holds at most 9 full decimal digits");
  }

  static Stream<Arguments> badPolicies() {
    return Stream.of(
        bad(
            "unknown method",
            ".columns.ssn.method",
            "Unknown method 'ff3'",
            "ssn { key = pii, method = ff3 }   # <--"),
        bad(
            "fpe domain too small",
            ".columns.ssn.method",
            "10^4 = 10000 values, fewer than 1000000",
            "ssn { key = pii, method = \"fpe(alphabet = digits, min-length = 4)\" }   # <--"),
        bad(
            "numeric fpe too narrow",
            ".columns.ssn.method",
            "its domain is 10^5 values, fewer than 1000000",
            "ssn { key = pii, method = \"fpe(width = 5)\" }   # <--"),
        bad(
            "unknown alphabet",
            ".columns.ssn.method",
            "unknown alphabet 'hex'",
            "ssn { key = pii, method = \"fpe(alphabet = hex)\" }   # <--"),
        bad(
            "kept character in the alphabet",
            ".columns.ssn.method",
            "kept character '7' is in alphabet digits",
            "ssn { key = pii, method = \"fpe(alphabet = digits, keep = 7)\" }   # <--"),
        bad(
            "pme = false on a pme column",
            ".columns.ssn.pme",
            "pme = false would store column 'ssn' in plaintext",
            "ssn { key = pii, pme = false }   # <--"),
        bad(
            "token roles on a pme column",
            ".columns.ssn.token",
            "token access applies to tokenized columns only",
            "ssn { key = pii, token = [analyst] }   # <--"),
        bad(
            "domain on a pme column",
            ".columns.ssn.domain",
            "domain applies to tokenized columns only",
            "ssn { key = pii, domain = ssn }   # <--"),
        bad(
            "unknown token role",
            ".columns.ssn.token",
            "unknown role 'analyts' in token",
            "ssn { key = pii, method = deterministic, token = [analyts] }   # <--"),
        bad(
            "clear and token",
            ".columns.ssn.token",
            "role 'admin' is both clear and token for column 'ssn'",
            "ssn { key = pii, method = deterministic, clear = [admin], token = [admin] }   # <--"),
        bad(
            "one domain, two methods",
            ".columns.b.domain",
            "token domain 'shared' of column 'b' is already used by column 'a' of db.t",
            "a { key = pii, method = deterministic, domain = shared }",
            "b { key = pii, method = \"fpe(alphabet = alnum)\", domain = shared }   # <--"),
        bad(
            "one domain, two keys",
            ".columns.b.domain",
            "token domain 'db.t.a' of column 'b'",
            "a { key = pii, method = deterministic }",
            "b { key = fin, method = deterministic, domain = \"db.t.a\" }   # <--"));
  }

  private static Arguments bad(String name, String key, String problem, String... columns) {
    StringBuilder sb = new StringBuilder(HEAD);
    sb.append("  tables {\n    \"db.t\" {\n      footer-key = footer\n      columns {\n");
    for (String c : columns) {
      sb.append("        ").append(c).append('\n');
    }
    sb.append("      }\n    }\n  }\n}\n");
    return Arguments.of(name, key, problem, sb.toString());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPolicies")
  void rejected(String name, String key, String problem, String hocon) {
    int line = BadPolicyTest.markedLine(hocon);
    PolicyException e =
        catchThrowableOfType(PolicyException.class, () -> Policy.parse(hocon, "bad.conf"));
    assertThat(e).as(name + ": expected a PolicyException").isNotNull();
    assertThat(e.getMessage()).startsWith("bad.conf:" + line + ": ").contains(problem);
    assertThat(e.key()).endsWith(key);
  }

  @Test
  void methodSpecsRoundTrip() {
    for (String spec :
        List.of(
            "pme",
            "deterministic",
            "fpe(alphabet = digits)",
            "fpe(alphabet = alnum, keep = \"-@.\")",
            "fpe(alphabet = lower, min-length = 8)",
            "fpe(width = 18)")) {
      assertThat(ProtectionMethod.parse(spec).spec()).isEqualTo(spec);
    }
    assertThat(ProtectionMethod.parse("FPE( alphabet=UPPER , keep='/' )").spec())
        .isEqualTo("fpe(alphabet = upper, keep = \"/\")");
    assertThat(ProtectionMethod.Alphabet.ALNUM.minimumLength()).isEqualTo(4);
    assertThat(ProtectionMethod.Alphabet.LOWER.minimumLength()).isEqualTo(5);
    assertThat(ProtectionMethod.Alphabet.DIGITS.minimumLength()).isEqualTo(6);
  }
}
