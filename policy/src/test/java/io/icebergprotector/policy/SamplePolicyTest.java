/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shipped conf/policy.conf must always be valid and mean what its comments say. */
class SamplePolicyTest {
  static final Path SAMPLE = Path.of("../conf/policy.conf");

  @Test
  void samplePolicyIsValid() {
    Policy p = Policy.load(SAMPLE);
    assertThat(p.tables().keySet()).containsExactly("db.customers", "hr.employees");
    assertThat(p.paths().keySet()).containsExactly("s3a://bucket/pii/");
    assertThat(p.keyIds()).containsExactly("pii", "fin", "footer", "hr-footer");
    TablePolicy c = p.table("db.customers").orElseThrow();
    assertThat(c.columns())
        .extracting(ColumnPolicy::path)
        .containsExactly("ssn", "email", "salary", "address.zip");
    assertThat(c.footerKeyId()).isEqualTo("footer");
    assertThat(p.table("hr.employees").orElseThrow().footerMode()).isEqualTo(FooterMode.PLAINTEXT);

    Principal bob = Principal.user("bob");
    assertThat(p.decide("db.customers", "ssn", bob)).isEqualTo(Access.masked(Mask.partial(4)));
    assertThat(p.decide("db.customers", "email", bob)).isEqualTo(Access.masked(Mask.hash()));
    assertThat(p.decide("db.customers", "salary", bob)).isEqualTo(Access.denied(OnDenied.NULL));
    assertThat(p.decide("hr.employees", "salary", bob)).isEqualTo(Access.denied(OnDenied.FAIL));
    assertThat(p.decide("db.customers", "address.zip", Principal.of("x", List.of("secops"))))
        .isEqualTo(Access.clear());

    p.validateSchema(
        "db.customers",
        Map.of(
            "ssn",
            ColumnType.STRING,
            "email",
            ColumnType.STRING,
            "salary",
            ColumnType.DECIMAL,
            "address.zip",
            ColumnType.STRING));
    p.validateSchema(
        "hr.employees",
        Map.of(
            "salary",
            ColumnType.DECIMAL,
            "birth_date",
            ColumnType.DATE,
            "contact.phone",
            ColumnType.STRING));
  }
}
