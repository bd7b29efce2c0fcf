/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.spark.ProtectorSparkSessionExtensions;
import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;

/**
 * Base of the path tests: one local Spark session per test class, with the protector extension and
 * {@code spark.protector.*} settings for a policy over a temporary directory, acting as {@code etl}
 * unless a test switches the principal.
 */
abstract class PathSessionTest {
  static SparkSession spark;
  static Path root;
  static Path keystore;
  static Path passphraseFile;
  static Path policyFile;

  /** Starts the class's session for the policy {@code policy(root)}. */
  static void startSession(String name, Function<Path, String> policy) throws IOException {
    root = Files.createTempDirectory(name).toRealPath();
    LocalCatalog files =
        LocalCatalog.create(root, policy.apply(root), name + "-passphrase-" + System.nanoTime());
    keystore = files.keystore();
    passphraseFile = files.passphraseFile();
    policyFile = files.policyFile();
    spark =
        TestSessions.config(TestSessions.local(name), files.sessionConf("etl"))
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.extensions", ProtectorSparkSessionExtensions.class.getName())
            // uncompressed pages, so that a byte search would see a clear value
            .config("spark.sql.parquet.compression.codec", "uncompressed")
            .config("spark.sql.warehouse.dir", root.resolve("warehouse").toString())
            .getOrCreate();
  }

  @AfterAll
  static void stopSession() {
    TestSessions.stop(spark);
    spark = null;
  }

  /** {@code file:<root>/<relative>}. */
  static String dir(String relative) {
    return "file:" + root.resolve(relative);
  }

  static <T> T asUser(String user, Supplier<T> action) {
    String previous = spark.conf().get("spark.protector.user");
    spark.conf().set("spark.protector.user", user);
    try {
      return action.get();
    } finally {
      spark.conf().set("spark.protector.user", previous);
    }
  }

  /** The settings of {@code user} as options keyed like the catalog's. */
  static Map<String, String> options(String user) {
    Map<String, String> options = new TreeMap<>();
    options.put("protector.policy", policyFile.toString());
    options.put("protector.kms.keystore", keystore.toString());
    options.put("protector.kms.passphrase-file", passphraseFile.toString());
    options.put("protector.user", user);
    return options;
  }

  static PathScope scopeOf(String user) {
    return PathScope.of(options(user), false).orElseThrow();
  }

  /** A string column of a Parquet file, read with parquet-mr's example reader and {@code conf}. */
  static List<String> readStrings(Path file, Configuration conf, String column) throws IOException {
    List<String> out = new ArrayList<>();
    try (ParquetReader<Group> reader =
        ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
            .withConf(conf)
            .build()) {
      Group group;
      while ((group = reader.read()) != null) {
        out.add(group.getString(column, 0));
      }
    }
    return out;
  }
}
