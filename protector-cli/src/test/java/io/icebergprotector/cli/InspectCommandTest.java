/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.Group;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.io.LocalOutputFile;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageTypeParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect} without Spark: files written with parquet-mr directly, encrypted by our crypto.
 */
class InspectCommandTest {
  static final String POLICY =
      """
      protector {
        roles { admin { users = [alice] }, etl { users = [etl] } }
        keys { pii {}, fin {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            writers = [etl]
            columns {
              ssn { key = pii, clear = [admin] }
              "address.zip" { key = fin, clear = [admin] }
            }
          }
        }
      }
      """;
  static final MessageType PARQUET =
      MessageTypeParser.parseMessageType(
          "message customers {\n"
              + "  required int64 id = 1;\n"
              + "  optional binary ssn (UTF8) = 2;\n"
              + "  optional group address = 3 {\n"
              + "    optional binary street (UTF8) = 4;\n"
              + "    optional binary zip (UTF8) = 5;\n"
              + "  }\n"
              + "}");
  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "ssn", Types.StringType.get()),
          optional(
              3,
              "address",
              Types.StructType.of(
                  optional(4, "street", Types.StringType.get()),
                  optional(5, "zip", Types.StringType.get()))));

  @TempDir Path dir;
  Path keystore;
  Path passphrase;
  Path policy;

  @BeforeEach
  void keys() throws IOException {
    keystore = dir.resolve("keys.p12");
    passphrase = dir.resolve("passphrase");
    policy = dir.resolve("policy.conf");
    Files.writeString(passphrase, "inspect test passphrase");
    Files.writeString(policy, POLICY);
    try (Passphrase p = Passphrase.fromFile(passphrase);
        LocalKeyService keys = LocalKeyService.open(keystore, p, true)) {
      keys.createKey("pii");
      keys.createKey("fin");
      keys.createKey("footer");
    }
  }

  private Path write(String name, FileEncryptionProperties encryption) throws IOException {
    Path file = dir.resolve(name);
    SimpleGroupFactory groups = new SimpleGroupFactory(PARQUET);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(PARQUET)
            .withConf(new Configuration(false))
            .withEncryption(encryption)
            .build()) {
      for (int i = 0; i < 3; i++) {
        Group row = groups.newGroup().append("id", (long) i).append("ssn", "123-45-000" + i);
        row.addGroup("address").append("street", i + " Main St").append("zip", "9410" + i);
        writer.write(row);
      }
    }
    return file;
  }

  private Path writeEncrypted(String name) throws IOException {
    return writeEncrypted(name, null);
  }

  private ProtectionSpec etlSpec() throws IOException {
    Policy p = Policy.parse(Files.readString(policy), policy.toString());
    KmsSettings kms =
        KmsSettings.builder(KmsSettings.Type.LOCAL)
            .keystore(keystore.toString())
            .passphrase(SecretRef.ofFile(passphrase.toString()))
            .build();
    return ProtectionSpec.resolve(
        ProtectorContext.of(p, kms),
        p.table("db.customers").orElseThrow(),
        SCHEMA,
        Principal.user("etl"));
  }

  /** A file encrypted for the policy's table, bound to {@code tableUuid} unless it is null. */
  private Path writeEncrypted(String name, UUID tableUuid) throws IOException {
    ProtectionSpec spec = etlSpec();
    Path file = dir.resolve(name);
    return write(
        name,
        tableUuid == null
            ? ProtectorCrypto.unboundFileEncryption(spec, PARQUET, file.toString())
            : ProtectorCrypto.fileEncryption(
                spec, PARQUET, file.toString(), FileBinding.of(tableUuid)));
  }

  @Test
  void plaintextFile() throws IOException {
    Path file = write("plain.parquet", null);
    Cli.Result r = Cli.run("inspect", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .startsWith("File:       " + file)
        .contains("Footer:     PLAINTEXT (file is not encrypted)")
        .contains("Rows:       3 in 1 row group(s)")
        .contains("  id: plaintext\n")
        .contains("  address.zip: plaintext\n");
  }

  @Test
  void encryptedFooterWithoutKeysHidesColumns() throws IOException {
    Path file = writeEncrypted("enc.parquet");
    Cli.Result r = Cli.run("inspect", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("Footer:     ENCRYPTED (not decrypted: no keys supplied)")
        .contains("Algorithm:  AES_GCM_V1")
        .contains("Footer key: masterKeyID=footer")
        .contains("Columns:    hidden");
  }

  @Test
  void encryptedFooterWithKeystoreListsColumnKeys() throws IOException {
    Path file = writeEncrypted("enc.parquet");
    Path plain = write("plain.parquet", null);
    Cli.Result r = inspectWithKeys(file, plain.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("Footer:     ENCRYPTED (decrypted)")
        .contains("Columns:    4 (2 encrypted)")
        .contains("  id: plaintext\n")
        .containsPattern("  ssn: encrypted \\(column key\\) masterKeyID=pii ")
        .contains("  address.street: plaintext\n")
        .containsPattern("  address.zip: encrypted \\(column key\\) masterKeyID=fin ")
        // the second file follows after a blank line
        .contains("\n\nFile:       " + plain);
    assertThat(r.out()).doesNotContain("123-45-");
  }

  @Test
  @SuppressWarnings("unchecked")
  void jsonReportsNameKeysWithoutKeyMaterial() throws IOException {
    Path file = writeEncrypted("enc.parquet");
    Cli.Result r = inspectWithKeys(file, "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    java.util.Map<String, Object> doc =
        io.icebergprotector.kms.wire.JsonCodec.parseObject(r.out().strip());
    java.util.Map<String, Object> report =
        (java.util.Map<String, Object>) ((java.util.List<Object>) doc.get("files")).get(0);
    assertThat(report)
        .containsEntry("file", file.toString())
        .containsEntry("footer_mode", "encrypted")
        .containsEntry("columns_visible", true);
    assertThat((java.util.List<Object>) report.get("columns"))
        .anySatisfy(
            c ->
                assertThat((java.util.Map<String, Object>) c)
                    .containsEntry("column", "ssn")
                    .containsEntry("encrypted", true)
                    .containsEntry("master_key", "pii")
                    .containsEntry("key", "pii v1")
                    .containsEntry("master_key_version", 1L));
    assertThat(r.out()).doesNotContain("wrappedDEK").doesNotContain("123-45-");
  }

  @Test
  void aBoundFileStoresItsBindingAndAGivenTableUuidIsCheckedAgainstIt() throws IOException {
    UUID table = UUID.randomUUID();
    Path file = writeEncrypted("bound.parquet", table);

    Cli.Result noKeys = Cli.run("inspect", file.toString());
    assertThat(noKeys.code()).as(noKeys.err()).isZero();
    assertThat(noKeys.out())
        .contains(
            "(AAD prefix stored: iceberg-protector/file-binding/v1:" + table + ":bound.parquet)");

    Cli.Result withKeys = inspectWithKeys(file);
    assertThat(withKeys.code()).as(withKeys.err()).isZero();
    assertThat(withKeys.out()).contains("Footer:     ENCRYPTED (decrypted)");

    Cli.Result wrongUuid = inspectWithKeys(file, "--table-uuid", UUID.randomUUID().toString());
    assertThat(wrongUuid.code()).isEqualTo(1);
    assertThat(wrongUuid.err())
        .contains("Cannot decrypt the footer of")
        .contains("AAD Prefix in file and in decryption properties is not the same");
  }

  @Test
  void anOlderBoundFileNeedsItsTablesUuid() throws IOException {
    UUID table = UUID.randomUUID();
    Path file = writeBoundWithoutStoring("older.parquet", table);

    Cli.Result noKeys = Cli.run("inspect", file.toString());
    assertThat(noKeys.code()).as(noKeys.err()).isZero();
    assertThat(noKeys.out()).contains("AAD prefix not stored: readers must supply it");

    Cli.Result withoutUuid = inspectWithKeys(file);
    assertThat(withoutUuid.code()).isEqualTo(1);
    assertThat(withoutUuid.err())
        .contains(file.toString())
        .contains("is bound to its table")
        .contains("--table-uuid");

    Cli.Result wrongUuid = inspectWithKeys(file, "--table-uuid", UUID.randomUUID().toString());
    assertThat(wrongUuid.code()).isEqualTo(1);
    assertThat(wrongUuid.err())
        .contains("Cannot decrypt the footer of")
        .contains("authentication failed");

    Cli.Result withUuid = inspectWithKeys(file, "--table-uuid", table.toString());
    assertThat(withUuid.code()).as(withUuid.err()).isZero();
    assertThat(withUuid.out())
        .contains("Footer:     ENCRYPTED (decrypted)")
        .containsPattern("  ssn: encrypted \\(column key\\) masterKeyID=pii ");
  }

  private Cli.Result inspectWithKeys(Path file, String... more) {
    String[] args = concat(new String[] {"inspect", file.toString()}, more);
    return Cli.run(concat(args, keyOptions()));
  }

  private String[] keyOptions() {
    return new String[] {
      "--keystore",
      keystore.toString(),
      "--passphrase-file",
      passphrase.toString(),
      "--policy",
      policy.toString(),
      "--user",
      "nobody"
    };
  }

  /** A file bound to {@code tableUuid} as versions before stored bindings wrote it. */
  private Path writeBoundWithoutStoring(String name, UUID tableUuid) throws IOException {
    String location = dir.resolve(name).toString();
    org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties keys =
        ProtectorCrypto.unboundFileEncryption(etlSpec(), PARQUET, location);
    org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties.Builder bound =
        org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties.builder(
                keys.getFooterKey())
            .withFooterKeyMetadata(keys.getFooterKeyMetadata())
            .withAlgorithm(
                org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCipher.AES_GCM_V1)
            .withAADPrefix(FileBinding.of(tableUuid).aadPrefix(location))
            .withoutAADPrefixStorage();
    if (keys.getEncryptedColumns() != null) {
      bound.withEncryptedColumns(keys.getEncryptedColumns());
    }
    return write(name, bound.build());
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  @Test
  void badFilesAreOneLineErrors() throws IOException {
    Path notParquet = dir.resolve("notes.txt");
    Files.writeString(notParquet, "definitely not parquet, but long enough");
    Cli.Result r = Cli.run("inspect", notParquet.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: Not a Parquet file: ").contains("notes.txt");
    assertThat(r.err().lines()).hasSize(1);

    Cli.Result missing = Cli.run("inspect", dir.resolve("missing.parquet").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("file not found");
  }

  @Test
  void usageErrorsExit2() {
    assertThat(Cli.run("inspect").code()).isEqualTo(2);
    Cli.Result userWithoutKeys = Cli.run("inspect", "f.parquet", "--user", "alice");
    assertThat(userWithoutKeys.code()).isEqualTo(2);
    assertThat(userWithoutKeys.err())
        .startsWith("error: --passphrase-*, --policy, --user and --table-uuid need --keystore");
    assertThat(Cli.run("inspect", "--nope", "f.parquet").code()).isEqualTo(2);
  }
}
