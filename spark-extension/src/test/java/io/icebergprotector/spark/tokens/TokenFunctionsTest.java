/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** {@code protect(value, domain)} and {@code unprotect(token, domain)} in SQL and through expr. */
class TokenFunctionsTest extends SparkTestBase {

  private static String one(String user, String query) {
    return sqlAs(user, query).get(0).getString(0);
  }

  @Test
  void clearRolesProtectAndUnprotect() {
    String token = one("alice", "SELECT protect('123-45-6789', 'ssn')");
    assertThat(token).matches("\\d{3}-\\d{2}-\\d{4}").isNotEqualTo("123-45-6789");
    assertThat(one("alice", "SELECT unprotect('" + token + "', 'ssn')")).isEqualTo("123-45-6789");
    // in local token mode a writer without clear access gets no token key: it would detokenize
    assertThatThrownBy(() -> one("etl", "SELECT protect('123-45-6789', 'ssn')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot call protect on token domain 'ssn'")
        .hasMessageContaining("principal etl (roles [etl])")
        .hasMessageContaining("a token key goes only to principals who read its domain in clear");
    assertThat(sqlAs("alice", "SELECT protect(CAST(NULL AS STRING), 'ssn')").get(0).isNullAt(0))
        .isTrue();
  }

  @Test
  void theDataFrameApiReachesThemThroughExpr() {
    String previous = spark.conf().get("spark.sql.catalog.prot.protector.user");
    spark.conf().set("spark.sql.catalog.prot.protector.user", "alice");
    try {
      List<Row> rows =
          spark
              .range(3)
              .selectExpr("format_string('%03d-45-6789', id) AS ssn")
              .selectExpr("ssn", "protect(ssn, 'ssn') AS token")
              .selectExpr("ssn", "token", "unprotect(token, 'ssn') AS back")
              .collectAsList();
      assertThat(rows).hasSize(3);
      assertThat(rows).allSatisfy(r -> assertThat(r.getString(2)).isEqualTo(r.getString(0)));
      assertThat(rows.stream().map(r -> r.getString(1)).collect(Collectors.toSet())).hasSize(3);
    } finally {
      spark.conf().set("spark.sql.catalog.prot.protector.user", previous);
    }
  }

  @Test
  void aProtectedTableStoresTheTokensProtectComputes() {
    sqlAs("etl", "CREATE TABLE prot.db.tokens (id bigint, ssn string) USING iceberg");
    try {
      // a writer that reads the domain in clear: local token mode gives it the token key
      sqlAs("alice", "INSERT INTO prot.db.tokens VALUES (1, '123-45-6789')");
      String token = one("alice", "SELECT protect('123-45-6789', 'ssn')");
      assertThat(one("bob", "SELECT ssn FROM prot.db.tokens")).isEqualTo(token);
      assertThat(one("alice", "SELECT ssn FROM prot.db.tokens")).isEqualTo("123-45-6789");
    } finally {
      sqlAs("etl", "DROP TABLE prot.db.tokens");
    }
  }

  @Test
  void refusalsNameThePrincipalAndTheDomain() {
    assertThatThrownBy(() -> sqlAs("etl", "SELECT unprotect('804-19-3327', 'ssn')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot unprotect values of token domain 'ssn'")
        .hasMessageContaining("etl")
        .hasMessageContaining("not a clear reader");
    assertThatThrownBy(() -> sqlAs("bob", "SELECT protect('123-45-6789', 'ssn')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot protect values of token domain 'ssn'")
        .hasMessageContaining("bob")
        .hasMessageContaining("[analyst]");
    assertThatThrownBy(() -> sqlAs("alice", "SELECT protect('x', 'no_such_domain')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("token domain 'no_such_domain'")
        .hasMessageContaining("protecting catalogs: prot");
    assertThatThrownBy(
            () -> sqlAs("alice", "SELECT protect('x', concat('s', string(id))) FROM range(1)"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("its domain must be a string literal");
  }

  @Test
  void aValueOfATypeTheDomainDoesNotTakeIsRefusedNamingTheDomain() {
    assertThatThrownBy(() -> sqlAs("alice", "SELECT protect(id, 'ssn') FROM range(1)"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot call protect on a value of type bigint: token domain 'ssn'")
        .hasMessageContaining("takes strings");
  }

  @Test
  void valuesOutsideTheFormatFailWithoutShowingThem() {
    assertThatThrownBy(() -> sqlAs("alice", "SELECT protect('12-3x', 'ssn')"))
        .satisfies(
            e ->
                assertThat(stackTrace(e))
                    .contains("token domain ssn")
                    .contains("neither in alphabet digits nor kept (-)")
                    .doesNotContain("Cannot tokenize a value of token domain ssn: 12-3x"));
  }
}
