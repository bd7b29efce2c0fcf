/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.MinioStore;
import io.icebergprotector.it.harness.ObjectStore;
import io.icebergprotector.it.harness.RequiresDocker;
import io.icebergprotector.it.harness.StackTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The same stack with MinIO (Testcontainers) as the object store; skipped without Docker. */
@RequiresDocker
class MinioPlainIcebergTest extends StackTestBase {
  @Override
  protected ObjectStore createObjectStore(String name, Path workDir) {
    return MinioStore.start(BUCKET);
  }

  @Test
  void writesAndReadsOnMinio() {
    configureCatalog("rest", "org.apache.iceberg.spark.SparkCatalog", restCatalogOptions());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS rest.m");
    spark.sql("CREATE TABLE rest.m.t (id BIGINT, s STRING) USING iceberg");
    spark.sql("INSERT INTO rest.m.t VALUES (1, 'a'), (2, 'b')");
    assertThat(spark.sql("SELECT count(*) FROM rest.m.t").first().getLong(0)).isEqualTo(2L);
    assertThat(store.listKeys()).anyMatch(k -> k.endsWith(".parquet"));
  }
}
