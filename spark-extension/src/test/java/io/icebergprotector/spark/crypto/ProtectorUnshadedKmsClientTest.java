/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Spark's own Parquet data source (unshaded parquet-mr) encrypting and decrypting with our key
 * service through {@link ProtectorUnshadedKmsClient}: the token selects the principal, whose policy
 * decides which master keys it may wrap and unwrap.
 */
class ProtectorUnshadedKmsClientTest extends SparkTestBase {
  static final String[] CRYPTO_SETTINGS = {
    "parquet.crypto.factory.class",
    "parquet.encryption.kms.client.class",
    "parquet.encryption.kms.instance.id",
    "parquet.encryption.key.access.token"
  };

  @AfterEach
  void clearHadoopSettings() {
    for (String key : CRYPTO_SETTINGS) {
      spark.sparkContext().hadoopConfiguration().unset(key);
    }
    org.apache.parquet.crypto.keytools.KeyToolkit.removeCacheEntriesForAllTokens();
  }

  /** Points Spark's Parquet source at our key service, acting as {@code user}. */
  static void actAs(String user) {
    ProtectorContext context =
        ((ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot"))
            .protectorContext();
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ssn", Types.StringType.get()));
    ProtectionSpec spec =
        ProtectionSpec.resolve(
            context,
            context.policy().table("db.customers").orElseThrow(),
            schema,
            Principal.user(user));
    KeyServiceRegistry.obtain(spec.keyScope(), spec.policy());
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    conf.set(
        "parquet.crypto.factory.class",
        "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory");
    conf.set("parquet.encryption.kms.client.class", ProtectorUnshadedKmsClient.class.getName());
    conf.set("parquet.encryption.kms.instance.id", spec.kms().endpoint());
    conf.set(
        "parquet.encryption.key.access.token",
        KeyTools.accessToken(spec.keyScope(), spec.writeGeneration()));
  }

  @Test
  void sparkParquetEncryptsAndDecryptsColumnsWithOurKeys() throws Exception {
    Path out = root.resolve("native-pme");
    actAs("etl");
    spark
        .sql("SELECT id, concat('canary-', cast(id AS string)) AS ssn FROM range(100)")
        .write()
        .option("parquet.encryption.footer.key", "footer")
        .option("parquet.encryption.column.keys", "pii:ssn")
        .parquet(out.toString());

    List<Path> files;
    try (Stream<Path> walk = Files.walk(out)) {
      files = walk.filter(p -> p.toString().endsWith(".parquet")).toList();
    }
    assertThat(files).isNotEmpty();
    for (Path file : files) {
      String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      assertThat(bytes).doesNotContain("canary-").contains("PARE");
    }

    actAs("alice");
    Dataset<Row> read = spark.read().parquet(out.toString());
    assertThat(read.where("ssn = 'canary-42'").count()).isEqualTo(1L);

    // etl writes but may not read pii: its key service refuses the unwrap
    clearHadoopSettings();
    actAs("etl");
    assertThatThrownBy(() -> spark.read().parquet(out.toString()).select("ssn").collectAsList())
        .hasStackTraceContaining("pii");
  }
}
