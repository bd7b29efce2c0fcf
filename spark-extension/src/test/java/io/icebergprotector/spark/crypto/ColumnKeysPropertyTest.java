/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectorException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ColumnKeysPropertyTest {
  @Test
  void groupsLeavesByKeyInLeafOrder() {
    Map<String, String> leaves = new LinkedHashMap<>();
    leaves.put("ssn", "pii");
    leaves.put("salary", "fin");
    leaves.put("address.zip", "pii");
    assertThat(KeyTools.columnKeysProperty(leaves)).isEqualTo("pii:ssn,address.zip;fin:salary");
    assertThat(KeyTools.columnKeysProperty(Map.of())).isEmpty();
  }

  @Test
  void refusesFieldNamesTheColumnKeyListCannotHold() {
    KeyTools.checkColumnKeyPath(new String[] {"address", "zip"}, "db.t");
    for (String bad : new String[] {"a,b", "a:b", "a;b", "a.b", ""}) {
      assertThatThrownBy(() -> KeyTools.checkColumnKeyPath(new String[] {"x", bad}, "db.t"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("db.t")
          .hasMessageContaining("rename the column");
    }
  }
}
