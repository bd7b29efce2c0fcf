/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One local SparkSession per test class, with catalog {@code prot} = ProtectingSparkCatalog over a
 * Hadoop catalog in a temp dir, a local keystore and the test policy.
 */
public abstract class SparkTestBase {
  public static final String POLICY =
      TestPolicy.builder()
          .role("admin", "alice")
          .roleGroups("admin", "secops")
          .role("analyst", "bob")
          .role("etl", "etl")
          .keys("pii", "fin", "footer", "footer2")
          .table("db.customers", TestPolicy.customersTable())
          .table(
              "db.plainfooter",
              t ->
                  t.footerKey("footer2")
                      .footerMode("plaintext")
                      .algorithm("AES_GCM_CTR_V1")
                      .writers("etl")
                      .column("ssn", c -> c.key("pii").clear("admin").masked("analyst", "redact")))
          .table(
              "db.strict",
              t ->
                  t.footerKey("footer")
                      .writers("etl")
                      .column("salary", c -> c.key("fin").clear("admin").onDenied("fail")))
          .table(
              "db.tokens",
              t ->
                  t.footerKey("footer")
                      .writers("etl", "admin")
                      .column(
                          "ssn",
                          c ->
                              c.key("pii")
                                  .method("fpe(alphabet = digits, keep = '-')")
                                  .domain("ssn")
                                  .clear("admin")
                                  .token("analyst")))
          .render();

  protected static SparkSession spark;
  protected static Path root;
  protected static Path warehouse;
  protected static Path keystore;
  protected static Path passphraseFile;
  protected static Path policyFile;

  @BeforeAll
  static void startSpark() throws IOException {
    root = Files.createTempDirectory("protector-test");
    LocalCatalog catalog = LocalCatalog.create(root, POLICY);
    warehouse = catalog.warehouse();
    keystore = catalog.keystore();
    passphraseFile = catalog.passphraseFile();
    policyFile = catalog.policyFile();
    spark =
        TestSessions.withCatalog(TestSessions.protector("protector-tests"), "prot", catalog, "etl")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "2")
            .getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
  }

  @AfterAll
  static void stopSpark() {
    TestSessions.stop(spark);
    spark = null;
  }

  /**
   * Runs {@code call} and asserts it fails with a {@link ProtectorException} naming every fragment.
   */
  protected static void assertRefused(ThrowingCallable call, String... fragments) {
    Throwable thrown = catchThrowable(call);
    assertThat(thrown).as("the operation must be refused").isNotNull();
    Throwable cause = thrown;
    while (cause != null && !(cause instanceof ProtectorException)) {
      cause = cause.getCause();
    }
    assertThat(cause)
        .as("a ProtectorException in %s", thrown)
        .isInstanceOf(ProtectorException.class);
    assertThat(cause.getMessage()).contains(fragments);
  }

  /** Runs {@code sql} as {@code user} and asserts it is refused, naming every fragment. */
  protected static void assertRefusedAs(String user, String sql, String... fragments) {
    asUser(user, () -> assertRefused(() -> spark.sql(sql), fragments));
  }

  /** Runs SQL as {@code user} through catalog {@code prot}. */
  protected static List<Row> sqlAs(String user, String query) {
    String previous = spark.conf().get("spark.sql.catalog.prot.protector.user");
    spark.conf().set("spark.sql.catalog.prot.protector.user", user);
    try {
      return spark.sql(query).collectAsList();
    } finally {
      spark.conf().set("spark.sql.catalog.prot.protector.user", previous);
    }
  }

  /** The protection of {@code prot.db.customers} as {@code user} sees it. */
  protected static ProtectionSpec specFor(String user) {
    String previous = spark.conf().get("spark.sql.catalog.prot.protector.user");
    spark.conf().set("spark.sql.catalog.prot.protector.user", user);
    try {
      ProtectingSparkCatalog catalog =
          (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot");
      return ((ProtectedTable)
              catalog.loadTable(
                  org.apache.spark.sql.connector.catalog.Identifier.of(
                      new String[] {"db"}, "customers")))
          .protection();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      spark.conf().set("spark.sql.catalog.prot.protector.user", previous);
    }
  }

  protected static void asUser(String user, Runnable action) {
    String previous = spark.conf().get("spark.sql.catalog.prot.protector.user");
    spark.conf().set("spark.sql.catalog.prot.protector.user", user);
    try {
      action.run();
    } finally {
      spark.conf().set("spark.sql.catalog.prot.protector.user", previous);
    }
  }

  /**
   * Adds catalog {@code name}: a protecting catalog like {@code prot} (acting as etl) over {@code
   * warehouse}, without a table cache so that commits through other catalogs show at once.
   */
  protected static void addProtectingCatalog(String name, Path warehouse) {
    String p = "spark.sql.catalog." + name;
    spark.conf().set(p, ProtectingSparkCatalog.class.getName());
    spark.conf().set(p + ".type", "hadoop");
    spark.conf().set(p + ".warehouse", warehouse.toUri().toString());
    spark.conf().set(p + ".cache-enabled", "false");
    spark.conf().set(p + ".protector.policy", policyFile.toString());
    spark.conf().set(p + ".protector.kms.keystore", keystore.toString());
    spark.conf().set(p + ".protector.kms.passphrase-file", passphraseFile.toString());
    spark.conf().set(p + ".protector.kms.create-missing-keys", "true");
    spark.conf().set(p + ".protector.user", "etl");
  }

  /**
   * Adds catalog {@code name}: Iceberg's own catalog over {@code warehouse}, without protection.
   */
  protected static void addPlainCatalog(String name, Path warehouse) {
    String p = "spark.sql.catalog." + name;
    spark.conf().set(p, org.apache.iceberg.spark.SparkCatalog.class.getName());
    spark.conf().set(p + ".type", "hadoop");
    spark.conf().set(p + ".warehouse", warehouse.toUri().toString());
    spark.conf().set(p + ".cache-enabled", "false");
  }

  /** Runs {@code action} with catalog {@code catalog} acting as {@code user}. */
  protected static <T> T asUser(
      String catalog, String user, java.util.function.Supplier<T> action) {
    String key = "spark.sql.catalog." + catalog + ".protector.user";
    String previous = spark.conf().get(key);
    spark.conf().set(key, user);
    try {
      return action.get();
    } finally {
      spark.conf().set(key, previous);
    }
  }

  /** The first {@code type} in the cause chain of {@code failure}; fails the test if none. */
  protected static <T extends Throwable> T causeOf(Throwable failure, Class<T> type) {
    if (failure == null) {
      throw new AssertionError("expected a failure with a " + type.getSimpleName() + ", got none");
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in " + stackTrace(failure));
  }

  /** The stack trace of {@code failure} with every cause, as text. */
  protected static String stackTrace(Throwable failure) {
    java.io.StringWriter out = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  /** The file binding of an Iceberg table, e.g. {@code bindingOf("prot.db.customers")}. */
  protected static FileBinding bindingOf(String qualifiedTable) {
    try {
      return FileBinding.of(
          org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, qualifiedTable));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + qualifiedTable, e);
    }
  }

  protected static Path tableDir(String table) {
    return warehouse.resolve(table.replace('.', '/'));
  }

  /** Every file under the table location (data, manifests, manifest lists, metadata JSON). */
  protected static List<Path> allFiles(String table) {
    return allFiles(tableDir(table));
  }

  /** Every file under {@code dir}. */
  protected static List<Path> allFiles(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  protected static List<Path> dataFiles(String table) {
    return allFiles(table).stream()
        .filter(p -> p.toString().endsWith(".parquet"))
        .collect(Collectors.toList());
  }

  /** Files under the table whose bytes contain any canary; empty means nothing leaked. */
  protected static List<String> filesContaining(String table, String... canaries) {
    return filesContaining(tableDir(table), canaries);
  }

  /** Files under {@code dir} whose bytes contain any canary; empty means nothing leaked. */
  protected static List<String> filesContaining(Path dir, String... canaries) {
    List<String> hits = new ArrayList<>();
    for (Path file : allFiles(dir)) {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String canary : canaries) {
        if (indexOf(bytes, canary.getBytes(StandardCharsets.UTF_8)) >= 0) {
          hits.add(file.getFileName() + " contains " + canary);
        }
      }
    }
    return hits;
  }

  protected static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
