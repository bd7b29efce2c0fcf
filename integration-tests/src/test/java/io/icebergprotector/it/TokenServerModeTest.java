package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Server token mode ({@code protector.kms.token-mode = server}) against a real key server process:
 * the SQL functions protect and unprotect send their values to the server's encode and decode
 * endpoints and get the tokens local mode computes with the released token key; the server has the
 * last word on who may, with a 403 naming principal and domain, and audits every batch.
 */
class TokenServerModeTest extends KeyServerStackTestBase {
  private static final String POLICY =
      String.join(
          "\n",
          "protector {",
          "  roles {",
          "    admin    { users = [\"alice\"] }",
          "    analyst  { users = [\"bob\"] }",
          "    etl      { users = [\"etl\"] }",
          "    keyadmin { users = [\"ops\"] }",
          "  }",
          "  keys { pii {}, footer {} }",
          "  tables {",
          "    \"db.customers\" {",
          "      footer-key = footer",
          "      writers    = [etl]",
          "      columns {",
          "        email { key = pii, method = deterministic, domain = email, clear = [admin],"
              + " token = [analyst] }",
          "        ssn { key = pii, method = \"fpe(alphabet = digits, keep = \\\"-\\\")\","
              + " domain = ssn, clear = [admin], token = [analyst] }",
          "      }",
          "    }",
          "  }",
          "}",
          "");
  private static final String QUERY =
      "SELECT protect('ann@example.com', 'email') AS e, protect('123-45-6789', 'ssn') AS s";

  private SparkSession aliceServer;
  private SparkSession aliceLocal;

  TokenServerModeTest() {
    super(POLICY, List.of("alice", "bob", "etl"), List.of("pii", "footer"));
  }

  @BeforeAll
  void setUp() {
    aliceServer = spark.newSession();
    configureProt(aliceServer, "alice", Map.of("protector.kms.token-mode", "server"));
    aliceLocal = spark.newSession();
    configureProt(aliceLocal, "alice", Map.of("protector.kms.token-mode", "local"));
  }

  private List<Map<String, Object>> tokenEvents(String op, String principal) {
    return keyServer.auditEvents().stream()
        .filter(e -> op.equals(e.get("op")) && principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  @Test
  void serverModeGivesTheTokensOfLocalModeAndTheServerAuditsTheBatches() {
    Row server = aliceServer.sql(QUERY).first();
    Row local = aliceLocal.sql(QUERY).first();
    assertThat(server.getString(0)).isEqualTo(local.getString(0)).isNotEqualTo("ann@example.com");
    assertThat(server.getString(1)).isEqualTo(local.getString(1)).matches("\\d{3}-\\d{2}-\\d{4}");
    assertThat(tokenEvents("token-key", "alice"))
        .as("local mode derived the token keys through the server")
        .isNotEmpty();

    Row clear =
        aliceServer
            .sql(
                "SELECT unprotect('"
                    + server.getString(0)
                    + "', 'email'), unprotect('"
                    + server.getString(1)
                    + "', 'ssn')")
            .first();
    assertThat(clear.getString(0)).isEqualTo("ann@example.com");
    assertThat(clear.getString(1)).isEqualTo("123-45-6789");

    assertThat(tokenEvents("encode", "alice"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "allow")
                    .containsEntry("key", "pii")
                    .containsEntry("domain", "email")
                    .containsEntry("method", "deterministic")
                    .containsEntry("count", 1L))
        .anySatisfy(e -> assertThat(e).containsEntry("domain", "ssn"));
    assertThat(tokenEvents("decode", "alice"))
        .anySatisfy(
            e -> assertThat(e).containsEntry("domain", "email").containsEntry("decision", "allow"));
    assertThat(keyServer.auditEvents().toString())
        .doesNotContain("ann@example.com")
        .doesNotContain("123-45-6789");
  }

  @Test
  void aPrincipalTheServerDeniesGetsAnErrorNamingPrincipalAndDomain() {
    // bob's catalog holds a policy that made analysts clear readers; the server withdrew it
    assertThat(POLICY).contains("clear = [admin], token = [analyst]");
    servePolicy(POLICY.replace("clear = [admin], token = [analyst]", "clear = [admin, analyst]"));
    SparkSession bob = spark.newSession();
    configureStaleProt(bob, "bob", Map.of("protector.kms.token-mode", "server"));
    try {
      servePolicy(POLICY);
      assertThatThrownBy(() -> bob.sql("SELECT protect('x@example.com', 'email')").collect())
          .hasStackTraceContaining(
              "principal 'bob' is not allowed to encode values of token domain 'email' with key"
                  + " 'pii'");
      assertThat(tokenEvents("encode", "bob"))
          .isNotEmpty()
          .allSatisfy(
              e ->
                  assertThat(e).containsEntry("decision", "deny").containsEntry("domain", "email"));
    } finally {
      servePolicy(POLICY);
    }
  }
}
