/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.KeyTools;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.crypto.ProtectorKmsClient;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.Group;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** File-level properties: tampering is detected, and standard parquet-mr can decrypt. */
class ProtectedFilesTest extends SparkTestBase {

  @BeforeAll
  static void writeTable() {
    spark.sql(
        "CREATE TABLE prot.db.customers (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    spark.sql(
        "INSERT INTO prot.db.customers SELECT id, concat('n', id), concat('SSN-', id),"
            + " concat('e', id, '@x.test'), CAST(id AS DECIMAL(10,2)),"
            + " named_struct('city', 'c', 'zip', concat('Z', id)) FROM range(0, 50) ");
  }

  @Test
  void plainParquetMrReadsTheBoundFileWithItsStoredBinding() throws Exception {
    ProtectionSpec alice = specFor("alice");
    KeyServiceRegistry.obtain(alice.keyScope(), alice.policy());
    Path file = dataFiles("db.customers").get(0);
    Configuration conf = new Configuration();
    conf.set(KeyToolkit.KMS_CLIENT_CLASS_PROPERTY_NAME, ProtectorKmsClient.class.getName());
    conf.set(KeyToolkit.KMS_INSTANCE_ID_PROPERTY_NAME, alice.kms().endpoint());
    conf.set(
        KeyToolkit.KEY_ACCESS_TOKEN_PROPERTY_NAME,
        KeyTools.accessToken(alice.keyScope(), alice.writeGeneration()));
    org.apache.hadoop.fs.Path hadoopPath = new org.apache.hadoop.fs.Path(file.toUri());

    // parquet-mr's standard factory alone: the file stores its binding, the key material in the
    // footer is parquet-mr's own
    conf.set("parquet.crypto.factory.class", PropertiesDrivenCryptoFactory.class.getName());
    List<String> ssns =
        readSsns(ParquetReader.builder(new GroupReadSupport(), hadoopPath).withConf(conf));
    assertThat(ssns).isNotEmpty().allMatch(s -> s.startsWith("SSN-"));

    // a reader that supplies the prefix it expects (as the protector does) refuses another
    // binding: the bytes of this file where another file of the table was expected
    String uuid =
        org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, "prot.db.customers")
            .uuid()
            .toString();
    byte[] otherFile =
        ("iceberg-protector/file-binding/v1:" + uuid + ":another-file.parquet")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    conf.unset("parquet.crypto.factory.class");
    FileDecryptionProperties expectingAnother =
        FileDecryptionProperties.builder()
            .withKeyRetriever(
                new PropertiesDrivenCryptoFactory()
                    .getFileDecryptionProperties(conf, hadoopPath)
                    .getKeyRetriever())
            .withAADPrefix(otherFile)
            .build();
    assertThatThrownBy(
            () ->
                readSsns(
                    ParquetReader.builder(new GroupReadSupport(), hadoopPath)
                        .withConf(conf)
                        .withDecryption(expectingAnother)))
        .hasStackTraceContaining("AAD Prefix in file and in decryption properties is not the same");
  }

  private static List<String> readSsns(ParquetReader.Builder<Group> builder) throws Exception {
    List<String> ssns = new ArrayList<>();
    try (ParquetReader<Group> reader = builder.build()) {
      Group group;
      while ((group = reader.read()) != null) {
        ssns.add(group.getString("ssn", 0));
      }
    }
    return ssns;
  }

  @Test
  void footerMarksProtectedColumnsEncrypted() throws Exception {
    ProtectionSpec alice = specFor("alice");
    Path file = dataFiles("db.customers").get(0);
    try (ParquetFileReader reader = open(file, alice)) {
      BlockMetaData block = reader.getFooter().getBlocks().get(0);
      for (ColumnChunkMetaData column : block.getColumns()) {
        String path = column.getPath().toDotString();
        boolean expectEncrypted =
            path.equals("ssn")
                || path.equals("email")
                || path.equals("salary")
                || path.equals("address.zip");
        assertThat(column.isEncrypted()).as("encryption of %s", path).isEqualTo(expectEncrypted);
      }
    }
  }

  @Test
  void tamperedEncryptedChunkFailsToRead() throws Exception {
    // AES_GCM_V1 authenticates page bodies too (AES_GCM_CTR_V1 only headers and metadata)
    spark.sql("CREATE TABLE prot.db.strict (id BIGINT, salary DECIMAL(10,2)) USING iceberg");
    spark.sql("INSERT INTO prot.db.strict SELECT id, CAST(id AS DECIMAL(10,2)) FROM range(0, 200)");
    assertThat(sqlAs("alice", "SELECT salary FROM prot.db.strict")).hasSize(200);

    ProtectionSpec alice = specFor("alice");
    Path file = dataFiles("db.strict").get(0);
    long start;
    long size;
    try (ParquetFileReader reader = open(file, alice)) {
      ColumnChunkMetaData chunk =
          reader.getFooter().getBlocks().get(0).getColumns().stream()
              .filter(c -> c.getPath().toDotString().equals("salary"))
              .findFirst()
              .orElseThrow();
      start = chunk.getStartingPos();
      size = chunk.getTotalSize();
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      long pos = start + size / 2;
      raf.seek(pos);
      int b = raf.read();
      raf.seek(pos);
      raf.write(b ^ 0x01);
    }
    // Hadoop's local file system would catch the flip through its .crc sidecar; drop it so the
    // read reaches the AES-GCM check, as it would on S3.
    java.nio.file.Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
    assertThatThrownBy(() -> sqlAs("alice", "SELECT salary FROM prot.db.strict"))
        .satisfies(
            e -> {
              String trace = stackTrace(e).toLowerCase(java.util.Locale.ROOT);
              assertThat(trace).containsAnyOf("tag mismatch", "integrity", "decrypt");
            });
    // the unprotected column of the same file still reads
    assertThat(sqlAs("bob", "SELECT id FROM prot.db.strict")).hasSize(200);
    spark.sql("DROP TABLE prot.db.strict PURGE");
  }

  @Test
  void plaintextFooterModeWithCtrAlgorithm() {
    spark.sql("CREATE TABLE prot.db.plainfooter (id BIGINT, ssn STRING) USING iceberg");
    spark.sql(
        "INSERT INTO prot.db.plainfooter SELECT id, concat('PF-CANARY-', id) FROM range(0, 20)");
    assertThat(filesContaining("db.plainfooter", "PF-CANARY-")).isEmpty();
    byte[] magic = tail(dataFiles("db.plainfooter").get(0));
    assertThat(new String(magic, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PAR1");
    assertThat(
            sqlAs("alice", "SELECT ssn FROM prot.db.plainfooter WHERE id = 3").get(0).getString(0))
        .isEqualTo("PF-CANARY-3");
    assertThat(sqlAs("bob", "SELECT ssn FROM prot.db.plainfooter WHERE id = 3").get(0).getString(0))
        .isEqualTo("****");
    spark.sql("DROP TABLE prot.db.plainfooter PURGE");
  }

  private static byte[] tail(Path file) {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      byte[] magic = new byte[4];
      raf.seek(raf.length() - 4);
      raf.readFully(magic);
      return magic;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Opens a data file's footer with the decryption properties of a principal's spec. */
  private static ParquetFileReader open(Path file, ProtectionSpec spec) throws java.io.IOException {
    String table =
        "prot."
            + warehouse.relativize(file).getName(0)
            + "."
            + warehouse.relativize(file).getName(1);
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(ProtectorCrypto.fileDecryption(spec, file.toString(), bindingOf(table)))
            .build();
    return ParquetFileReader.open(
        HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()),
        options);
  }
}
