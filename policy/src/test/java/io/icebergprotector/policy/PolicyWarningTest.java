/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Policy#warnings()}: valid but risky settings, located like errors. */
class PolicyWarningTest {
  @Test
  void ctrEntriesWarnWithOriginLineAndKey() {
    Policy p =
        Policy.parse(
            """
        protector {
          keys { k {}, f {} }
          tables {
            "db.fast" {
              footer-key = f
              algorithm = AES_GCM_CTR_V1
            }
            "db.safe" { footer-key = f, algorithm = AES_GCM_V1 }
            "db.default" { footer-key = f }
          }
          paths {
            "s3a://b/fast/" { footer-key = f, algorithm = aes_gcm_ctr_v1 }
          }
        }
        """,
            "ctr.conf");
    List<PolicyWarning> warnings = p.warnings();
    assertThat(warnings).hasSize(2);
    PolicyWarning table = warnings.get(0);
    assertThat(table.origin()).isEqualTo("ctr.conf");
    assertThat(table.line()).isEqualTo(6);
    assertThat(table.key()).isEqualTo("protector.tables.\"db.fast\".algorithm");
    assertThat(table.problem())
        .contains(
            "AES_GCM_CTR_V1",
            "table db.fast",
            "write access to the storage",
            "change protected values undetectably",
            "only a CRC",
            "use AES_GCM_V1");
    assertThat(table.message())
        .startsWith("ctr.conf:6: protector.tables.\"db.fast\".algorithm: AES_GCM_CTR_V1 ");
    PolicyWarning path = warnings.get(1);
    assertThat(path.line()).isEqualTo(12);
    assertThat(path.key()).isEqualTo("protector.paths.\"s3a://b/fast/\".algorithm");
    assertThat(path.problem()).contains("location s3a://b/fast/");
  }

  @Test
  void gcmOnlyPoliciesHaveNoWarnings() {
    assertThat(PolicyTest.P.table("db.customers").orElseThrow().algorithm())
        .isEqualTo(EncryptionAlgorithm.AES_GCM_V1);
    Policy gcm =
        Policy.parse(
            """
        protector {
          keys { k {}, f {} }
          tables { "db.t" { footer-key = f, columns { c { key = k } } } }
        }
        """,
            "gcm.conf");
    assertThat(gcm.warnings()).isEmpty();
  }

  @Test
  void theSamplePolicyWarnsAboutItsCtrTable() {
    Policy sample = Policy.load(SamplePolicyTest.SAMPLE);
    assertThat(sample.warnings())
        .singleElement()
        .satisfies(
            w -> assertThat(w.key()).isEqualTo("protector.tables.\"hr.employees\".algorithm"));
  }
}
