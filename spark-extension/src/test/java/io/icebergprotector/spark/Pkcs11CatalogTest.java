/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.pkcs11.SoftHsm;
import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog with {@code protector.kms.type = pkcs11} writes and reads a protected table, its master
 * keys in a SoftHSM2 token. Spark runs in a child JVM ({@link Session}): SoftHSM reads its token
 * directory from the environment once per process, so the process must start with it.
 */
class Pkcs11CatalogTest {
  private static final String PIN_ENV = "PROTECTOR_TEST_PIN";
  private static final String PASSED = "PKCS11 CATALOG PASSED";
  // Written in clear by the test, must not appear in any file of the table.
  private static final String CANARY_SSN = "987-65-4321";
  private static final String POLICY =
      TestPolicy.resource(Pkcs11CatalogTest.class, "policies/Pkcs11CatalogTest.conf");

  @TempDir Path dir;

  @Test
  @Timeout(300)
  void protectedTableWithKeysInASoftHsmToken() throws Exception {
    SoftHsm hsm = SoftHsm.withToken(dir.resolve("hsm"), "protector");
    Path policy = Files.writeString(dir.resolve("policy.conf"), POLICY);
    Path warehouse = dir.resolve("warehouse");

    List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
    // Spark on Java 17 needs the surefire JVM's --add-opens.
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .forEach(jvm::add);
    SoftHsm.Result result =
        hsm.runJava(
            Session.class.getName(),
            jvm,
            List.of(warehouse.toString(), policy.toString(), hsm.library().toString()),
            Map.of(PIN_ENV, SoftHsm.PIN),
            240);
    assertThat(result.exitCode())
        .as("Spark session in a child JVM, output:%n%s", result.output())
        .isZero();
    assertThat(result.output()).contains(PASSED);

    List<Path> files;
    try (Stream<Path> walk = Files.walk(warehouse.resolve("db/customers"))) {
      files = walk.filter(Files::isRegularFile).collect(Collectors.toList());
    }
    assertThat(files).anyMatch(f -> f.toString().endsWith(".parquet"));
    assertThat(files)
        .as("files of db.customers holding the clear ssn")
        .noneMatch(Pkcs11CatalogTest::holdsCanary);
  }

  private static boolean holdsCanary(Path file) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(CANARY_SSN);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The child JVM: keys created in the token, then a protected write and reads as three users. */
  public static final class Session {
    private Session() {}

    public static void main(String[] args) {
      try {
        run(Path.of(args[0]), args[1], args[2]);
        System.out.println(PASSED);
        System.out.flush();
        System.exit(0);
      } catch (Throwable t) {
        t.printStackTrace(System.out);
        System.out.flush();
        System.exit(1);
      }
    }

    private static void run(Path warehouse, String policy, String library) throws Exception {
      Map<String, String> options = new LinkedHashMap<>();
      options.put("type", "hadoop");
      options.put("warehouse", warehouse.toUri().toString());
      options.put("protector.policy", policy);
      options.put(KmsOptions.TYPE.key(), "pkcs11");
      options.put(KmsOptions.PKCS11_LIBRARY.key(), library);
      options.put(KmsOptions.TOKEN_LABEL.key(), "protector");
      options.put(KmsOptions.PIN_ENV.key(), PIN_ENV);
      options.put("protector.user", "etl");

      // The key admin's part: the policy's keys, created in the token through the catalog's own
      // settings.
      try (KeyService keys = KeyServices.open(KmsSettings.fromOptions(options, "catalog 'prot'"))) {
        for (String key : List.of("pii", "fin", "footer")) {
          keys.createKey(key);
        }
      }

      SparkSession.Builder builder =
          TestSessions.config(
              TestSessions.protector("protector-pkcs11"),
              LocalCatalog.catalogConf("prot", LocalCatalog.CATALOG_CLASS, options));
      SparkSession spark = builder.getOrCreate();
      try {
        spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
        spark.sql(
            "CREATE TABLE prot.db.customers (id BIGINT, ssn STRING, salary DOUBLE) USING iceberg");
        // Through a DataFrame rather than SQL text, so the canary is in no statement Spark might
        // log.
        StructType schema =
            new StructType()
                .add("id", DataTypes.LongType)
                .add("ssn", DataTypes.StringType)
                .add("salary", DataTypes.DoubleType);
        spark
            .createDataFrame(
                List.of(
                    RowFactory.create(1L, CANARY_SSN, 4242.5),
                    RowFactory.create(2L, "111-22-3333", 10.0)),
                schema)
            .writeTo("prot.db.customers")
            .append();

        Row alice = readAs(spark, "alice");
        check(CANARY_SSN.equals(alice.getString(1)), "alice (admin) reads ssn in clear");
        check(alice.getDouble(2) == 4242.5, "alice (admin) reads salary in clear");
        Row bob = readAs(spark, "bob");
        check(
            "*******4321".equals(bob.getString(1)), "bob (analyst) reads ssn masked to its last 4");
        check(bob.isNullAt(2), "bob (analyst) reads salary as NULL");
        Row carol = readAs(spark, "carol");
        check(carol.isNullAt(1) && carol.isNullAt(2), "carol (no role) reads NULLs");
      } finally {
        spark.stop();
      }
    }

    private static Row readAs(SparkSession spark, String user) {
      spark.conf().set("spark.sql.catalog.prot.protector.user", user);
      return spark
          .sql("SELECT id, ssn, salary FROM prot.db.customers WHERE id = 1")
          .collectAsList()
          .get(0);
    }

    /** Fails naming the expectation, never the values read (they may be the canary). */
    private static void check(boolean condition, String expectation) {
      if (!condition) {
        throw new AssertionError("expected: " + expectation);
      }
    }
  }
}
