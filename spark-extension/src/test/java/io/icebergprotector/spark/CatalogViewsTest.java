package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Views depend on the catalog's principal: two catalogs on one warehouse, a new session, and the
 * protecting {@code spark_catalog}.
 */
class CatalogViewsTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    Path root = Files.createTempDirectory("protector-views");
    Path policy = root.resolve("policy.conf");
    Files.writeString(policy, SparkTestBase.POLICY);
    Path passphrase = root.resolve("passphrase");
    Files.writeString(passphrase, "views-passphrase");
    String warehouse = root.resolve("warehouse").toUri().toString();
    KeyServiceRegistry.clear();
    ProtectorCrypto.forgetAllCachedKeys();
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                    + ProtectorSparkSessionExtensions.class.getName())
            .config("spark.sql.catalog.spark_catalog", ProtectingSessionCatalog.class.getName());
    for (String[] catalog :
        new String[][] {{"spark_catalog", "etl"}, {"as_alice", "alice"}, {"as_bob", "bob"}}) {
      String prefix = "spark.sql.catalog." + catalog[0];
      if (!catalog[0].equals("spark_catalog")) {
        builder.config(prefix, ProtectingSparkCatalog.class.getName());
      }
      builder
          .config(prefix + ".type", "hadoop")
          .config(prefix + ".warehouse", warehouse)
          .config(prefix + ".protector.policy", policy.toString())
          .config(prefix + ".protector.kms.keystore", root.resolve("keys.p12").toString())
          .config(prefix + ".protector.kms.passphrase-file", passphrase.toString())
          .config(prefix + ".protector.kms.create-missing-keys", "true")
          .config(prefix + ".protector.user", catalog[1]);
    }
    spark = builder.getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS spark_catalog.db");
    spark.sql(
        "CREATE TABLE spark_catalog.db.customers (id BIGINT, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    spark.sql(
        "INSERT INTO spark_catalog.db.customers VALUES"
            + " (1, '111-22-3333', 'a@x.test', 100.00, named_struct('city', 'Paris', 'zip', '75001'))");
  }

  @AfterAll
  static void stop() {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    KeyServiceRegistry.clear();
    ProtectorCrypto.forgetAllCachedKeys();
  }

  @Test
  void twoCatalogsOnOneWarehouseGiveDifferentViews() {
    Row alice = spark.sql("SELECT ssn, salary FROM as_alice.db.customers").first();
    Row bob = spark.sql("SELECT ssn, salary FROM as_bob.db.customers").first();
    assertThat(alice.getString(0)).isEqualTo("111-22-3333");
    assertThat(alice.getDecimal(1)).isEqualByComparingTo("100.00");
    assertThat(bob.getString(0)).isEqualTo("*******3333");
    assertThat(bob.isNullAt(1)).isTrue();
  }

  @Test
  void newSessionWithAnotherUserSeesItsOwnView() {
    SparkSession other = spark.newSession();
    other.conf().set("spark.sql.catalog.as_alice.protector.user", "bob");
    assertThat(other.sql("SELECT salary FROM as_alice.db.customers").first().isNullAt(0)).isTrue();
    assertThat(spark.sql("SELECT salary FROM as_alice.db.customers").first().isNullAt(0)).isFalse();
  }

  @Test
  void sessionCatalogProtectsIcebergTables() throws Exception {
    // the etl principal has no read role: protected columns are NULL, the table is protected
    Row etl = spark.sql("SELECT id, ssn, salary FROM spark_catalog.db.customers").first();
    assertThat(etl.getLong(0)).isEqualTo(1L);
    assertThat(etl.isNullAt(1)).isTrue();
    assertThat(etl.isNullAt(2)).isTrue();
  }
}
