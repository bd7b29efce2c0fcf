/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.inspect.FooterReport.FooterMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ColumnEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCipher;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KmsClient;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.Group;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.iceberg.shaded.org.apache.parquet.io.LocalOutputFile;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetFooterInspectorTest {
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message customers {\n"
              + "  required int64 id;\n"
              + "  optional binary name (UTF8);\n"
              + "  optional binary ssn (UTF8);\n"
              + "  optional group address {\n"
              + "    optional binary street (UTF8);\n"
              + "    optional binary zip (UTF8);\n"
              + "  }\n"
              + "}");
  private static final int ROWS = 5;
  // Own token and KMS instance: parquet caches KMS clients per token, not per client class.
  private static final String TOKEN = "inspector-test-token";
  private static final String KMS_INSTANCE = "inspector-test-kms";

  @TempDir Path dir;

  // ---------------------------------------------------------------- unencrypted / broken files

  @Test
  void unencryptedFile() throws IOException {
    Path file = write("plain.parquet", null);

    FooterReport report = ParquetFooterInspector.inspect(file);

    assertThat(report.footerMode()).isEqualTo(FooterMode.PLAINTEXT);
    assertThat(report.encrypted()).isFalse();
    assertThat(report.algorithm()).isNull();
    assertThat(report.footerKey()).isEmpty();
    assertThat(report.columnsVisible()).isTrue();
    assertThat(report.numRows()).isEqualTo(ROWS);
    assertThat(report.rowGroups()).isEqualTo(1);
    assertThat(report.columns())
        .extracting(ColumnReport::path)
        .containsExactly("id", "name", "ssn", "address.street", "address.zip");
    assertThat(report.columns()).noneMatch(ColumnReport::encrypted);
    assertThat(report.location()).endsWith("plain.parquet");
    assertThat(report.toText())
        .contains("PLAINTEXT (file is not encrypted)", "address.zip: plaintext");
  }

  @Test
  void notAParquetFile() throws IOException {
    Path file = dir.resolve("notes.txt");
    Files.writeString(file, "hello, this is certainly not a parquet file");

    assertThatThrownBy(() -> ParquetFooterInspector.inspect(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Not a Parquet file")
        .hasMessageContaining("notes.txt")
        .hasMessageContaining("bad magic 'file'");
  }

  @Test
  void tooShortFile() throws IOException {
    Path file = dir.resolve("tiny.parquet");
    Files.write(file, "PAR1".getBytes(StandardCharsets.US_ASCII));

    assertThatThrownBy(() -> ParquetFooterInspector.inspect(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tiny.parquet")
        .hasMessageContaining("too short (4 bytes");
  }

  @Test
  void truncatedFile() throws IOException {
    Path file = write("whole.parquet", null);
    byte[] bytes = Files.readAllBytes(file);
    Path cut = dir.resolve("cut.parquet");
    Files.write(cut, Arrays.copyOf(bytes, bytes.length - 3));

    assertThatThrownBy(() -> ParquetFooterInspector.inspect(cut))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cut.parquet")
        .hasMessageContaining("bad magic")
        .hasMessageContaining("truncated");
  }

  @Test
  void corruptFooterLength() throws IOException {
    Path file = write("whole.parquet", null);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 5] = 0x7F; // high byte of the footer length
    Path broken = dir.resolve("broken.parquet");
    Files.write(broken, bytes);

    assertThatThrownBy(() -> ParquetFooterInspector.inspect(broken))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Corrupt Parquet file")
        .hasMessageContaining("broken.parquet")
        .hasMessageContaining("footer length");
  }

  @Test
  void missingFile() {
    Path missing = dir.resolve("missing.parquet");
    assertThatThrownBy(() -> ParquetFooterInspector.inspect(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing.parquet")
        .hasMessageContaining("file not found");
  }

  // ---------------------------------------------------------------- properties built directly

  @Test
  void directPropertiesEncryptedFooter() throws IOException {
    byte[] footerKey = key(1);
    FileEncryptionProperties props = directProperties(footerKey, false, ParquetCipher.AES_GCM_V1);
    Path file = write("direct-ef.parquet", props);

    FooterReport blind = ParquetFooterInspector.inspect(file);
    assertThat(blind.footerMode()).isEqualTo(FooterMode.ENCRYPTED);
    assertThat(blind.algorithm()).isEqualTo("AES_GCM_V1");
    assertThat(blind.columnsVisible()).isFalse();
    assertThat(blind.columns()).isEmpty();
    assertThat(blind.numRows()).isEqualTo(-1);
    assertThat(blind.footerKey()).get().extracting(KeyMaterial::masterKeyId).isEqualTo("footer");

    FooterReport report =
        ParquetFooterInspector.inspect(
            file, FileDecryptionProperties.builder().withFooterKey(footerKey).build());
    assertThat(report.footerMode()).isEqualTo(FooterMode.ENCRYPTED);
    assertThat(report.columnsVisible()).isTrue();
    assertThat(report.numRows()).isEqualTo(ROWS);
    assertDirectColumns(report);
  }

  @Test
  void directPropertiesPlaintextFooter() throws IOException {
    byte[] footerKey = key(2);
    FileEncryptionProperties props =
        directProperties(footerKey, true, ParquetCipher.AES_GCM_CTR_V1);
    Path file = write("direct-pf.parquet", props);

    FooterReport report = ParquetFooterInspector.inspect(file);
    assertThat(report.footerMode()).isEqualTo(FooterMode.PLAINTEXT_SIGNED);
    assertThat(report.algorithm()).isEqualTo("AES_GCM_CTR_V1");
    assertThat(report.footerSignatureVerified()).isFalse();
    assertThat(report.columnsVisible()).isTrue();
    assertThat(report.footerKey()).get().extracting(KeyMaterial::masterKeyId).isEqualTo("footer");
    assertDirectColumns(report);

    FooterReport verified =
        ParquetFooterInspector.inspect(
            file, FileDecryptionProperties.builder().withFooterKey(footerKey).build());
    assertThat(verified.footerSignatureVerified()).isTrue();
    assertThat(verified.toText()).contains("PLAINTEXT_SIGNED (signature verified)");

    assertThatThrownBy(
            () ->
                ParquetFooterInspector.inspect(
                    file, FileDecryptionProperties.builder().withFooterKey(key(9)).build()))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Footer signature mismatch")
        .hasMessageContaining("direct-pf.parquet")
        .hasMessageContaining("'footer'");
  }

  @Test
  void wrongFooterKeyForEncryptedFooter() throws IOException {
    Path file =
        write("wrong-key.parquet", directProperties(key(3), false, ParquetCipher.AES_GCM_V1));

    assertThatThrownBy(
            () ->
                ParquetFooterInspector.inspect(
                    file, FileDecryptionProperties.builder().withFooterKey(key(4)).build()))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot decrypt the footer")
        .hasMessageContaining("wrong-key.parquet")
        .hasMessageContaining("footer master key 'footer'")
        .hasMessageContaining("wrong footer key");
  }

  @Test
  void opaqueKeyMetadata() throws IOException {
    byte[] footerKey = key(5);
    ColumnEncryptionProperties ssn =
        ColumnEncryptionProperties.builder("ssn").withKey(key(6)).withKeyID("k-ssn").build();
    FileEncryptionProperties props =
        FileEncryptionProperties.builder(footerKey)
            .withFooterKeyID("k-footer")
            .withPlaintextFooter()
            .withEncryptedColumns(Map.of(ColumnPath.get("ssn"), ssn))
            .build();
    Path file = write("opaque.parquet", props);

    FooterReport report = ParquetFooterInspector.inspect(file);
    KeyMaterial material = report.column("ssn").orElseThrow().keyMaterial().orElseThrow();
    assertThat(material.isJson()).isFalse();
    assertThat(material.masterKeyId()).isNull();
    assertThat(material.toText()).contains("opaque key metadata 'k-ssn'");
    assertThat(report.footerKey().orElseThrow().toText()).contains("'k-footer'");
  }

  @Test
  void keyMaterialParsing() {
    KeyMaterial shortDek =
        KeyMaterial.parse(
            "{\"masterKeyID\":\"k\",\"wrappedDEK\":\"abcdefgh\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(shortDek.isJson()).isTrue();
    assertThat(shortDek.masterKeyId()).isEqualTo("k");
    assertThat(shortDek.internalStorage()).isTrue();
    assertThat(shortDek.wrappedDekPreview()).isEqualTo("abcd…");
    assertThat(shortDek.toText()).doesNotContain("abcdefgh");

    KeyMaterial binary = KeyMaterial.parse(new byte[] {(byte) 0xC3, 0x28, 0x00, 0x7F});
    assertThat(binary.isJson()).isFalse();
    assertThat(binary.toText()).contains("0xc328007f", "4 bytes");

    KeyMaterial notAnObject = KeyMaterial.parse("[1,2]".getBytes(StandardCharsets.UTF_8));
    assertThat(notAnObject.isJson()).isFalse();
    assertThat(notAnObject.rawJson()).isNull();
    assertThat(notAnObject.toText()).contains("'[1,2]'");
  }

  // ---------------------------------------------------------------- PropertiesDrivenCryptoFactory

  @Test
  void keyToolsEncryptedFooter() throws IOException {
    Path file = dir.resolve("tools-ef.parquet");
    write(file, toolsProperties(file, false, "AES_GCM_V1", true));

    FooterReport blind = ParquetFooterInspector.inspect(file);
    assertThat(blind.footerMode()).isEqualTo(FooterMode.ENCRYPTED);
    assertThat(blind.algorithm()).isEqualTo("AES_GCM_V1");
    assertThat(blind.columnsVisible()).isFalse();
    KeyMaterial footer = blind.footerKey().orElseThrow();
    assertThat(footer.masterKeyId()).isEqualTo("footer");
    assertThat(footer.keyMaterialType()).isEqualTo("PKMT1");
    assertThat(footer.isFooterKey()).isTrue();
    assertThat(footer.doubleWrapping()).isTrue();
    assertThat(footer.kmsInstanceId()).isEqualTo(KMS_INSTANCE);
    assertThat(blind.toText())
        .contains("ENCRYPTED (not decrypted: no keys supplied)", "masterKeyID=footer")
        .contains("Columns:    hidden");
    assertNoWrappedKeyLeaks(blind.toText(), footer);

    TestKms.UNWRAPPED.clear();
    FooterReport report = ParquetFooterInspector.inspect(file, toolsDecryption(file));
    assertThat(report.columnsVisible()).isTrue();
    assertThat(report.numRows()).isEqualTo(ROWS);
    assertToolsColumns(report);
    // Only the footer key is needed to list columns; column keys are never unwrapped.
    assertThat(TestKms.UNWRAPPED).doesNotContain("pii", "geo");
  }

  @Test
  void keyToolsPlaintextFooter() throws IOException {
    Path file = dir.resolve("tools-pf.parquet");
    write(file, toolsProperties(file, true, "AES_GCM_CTR_V1", true));

    FooterReport report = ParquetFooterInspector.inspect(file);
    assertThat(report.footerMode()).isEqualTo(FooterMode.PLAINTEXT_SIGNED);
    assertThat(report.algorithm()).isEqualTo("AES_GCM_CTR_V1");
    assertThat(report.columnsVisible()).isTrue();
    assertThat(report.footerKey().orElseThrow().masterKeyId()).isEqualTo("footer");
    assertToolsColumns(report);
    for (ColumnReport column : report.columns()) {
      column.keyMaterial().ifPresent(m -> assertNoWrappedKeyLeaks(report.toText(), m));
    }

    FooterReport verified = ParquetFooterInspector.inspect(file, toolsDecryption(file));
    assertThat(verified.footerSignatureVerified()).isTrue();
  }

  @Test
  void keyToolsSingleWrappingAndExternalMaterial() throws IOException {
    Path file = dir.resolve("tools-ext.parquet");
    Configuration conf = toolsConf(false, "AES_GCM_V1");
    conf.setBoolean(KeyToolkit.DOUBLE_WRAPPING_PROPERTY_NAME, false);
    conf.setBoolean(KeyToolkit.KEY_MATERIAL_INTERNAL_PROPERTY_NAME, false);
    write(file, encryptionProperties(conf, file));

    FooterReport report = ParquetFooterInspector.inspect(file);
    KeyMaterial footer = report.footerKey().orElseThrow();
    assertThat(footer.internalStorage()).isFalse();
    assertThat(footer.keyReference()).isNotBlank();
    assertThat(footer.masterKeyId()).isNull();
    assertThat(report.toText()).contains("storage=external");
  }

  @Test
  void keyToolsUnknownMasterKeyIsAClearError() throws IOException {
    Path file = dir.resolve("tools-denied.parquet");
    // Single wrapping: parquet caches unwrapped KEKs, so only then is the KMS always asked.
    write(file, toolsProperties(file, false, "AES_GCM_V1", false));
    TestKms.DENIED.add("footer");
    try {
      assertThatThrownBy(() -> ParquetFooterInspector.inspect(file, toolsDecryption(file)))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("Cannot obtain the footer key")
          .hasMessageContaining("tools-denied.parquet")
          .hasMessageContaining("'footer'");
    } finally {
      TestKms.DENIED.remove("footer");
    }
  }

  // ---------------------------------------------------------------- helpers

  private static void assertDirectColumns(FooterReport report) {
    assertThat(report.columns())
        .extracting(ColumnReport::path)
        .containsExactly("id", "name", "ssn", "address.street", "address.zip");
    assertThat(report.column("id").orElseThrow().encrypted()).isFalse();
    assertThat(report.column("address.street").orElseThrow().encrypted()).isFalse();

    ColumnReport ssn = report.column("ssn").orElseThrow();
    assertThat(ssn.encrypted()).isTrue();
    assertThat(ssn.encryptedWithFooterKey()).isFalse();
    KeyMaterial ssnKey = ssn.keyMaterial().orElseThrow();
    assertThat(ssnKey.masterKeyId()).isEqualTo("pii");
    assertThat(ssnKey.doubleWrapping()).isTrue();
    assertThat(ssnKey.keyEncryptionKeyId()).isEqualTo("kek-1");

    ColumnReport zip = report.column("address.zip").orElseThrow();
    assertThat(zip.encrypted()).isTrue();
    assertThat(zip.keyMaterial().orElseThrow().masterKeyId()).isEqualTo("geo");
    assertThat(zip.keyMaterial().orElseThrow().doubleWrapping()).isFalse();

    ColumnReport name = report.column("name").orElseThrow();
    assertThat(name.encrypted()).isTrue();
    assertThat(name.encryptedWithFooterKey()).isTrue();
    assertThat(name.keyMaterial()).isEmpty();

    String text = report.toText();
    assertThat(text)
        .contains("ssn: encrypted (column key) masterKeyID=pii")
        .contains("name: encrypted (footer key)")
        .contains("id: plaintext")
        .contains("Columns:    5 (3 encrypted)")
        .contains("wrappedDEK=QUJDREVGR0hJ…")
        .doesNotContain("QUJDREVGR0hJSktMTU5PUFFSU1RVVg==")
        .doesNotContain("S0VLLUtFSy1LRUstS0VL");
  }

  private static void assertToolsColumns(FooterReport report) {
    assertThat(report.columns())
        .extracting(ColumnReport::path)
        .containsExactly("id", "name", "ssn", "address.street", "address.zip");
    assertThat(report.columns())
        .extracting(ColumnReport::encrypted)
        .containsExactly(false, true, true, false, true);
    assertThat(report.columns()).noneMatch(ColumnReport::encryptedWithFooterKey);
    assertThat(report.column("name").orElseThrow().keyMaterial().orElseThrow().masterKeyId())
        .isEqualTo("pii");
    KeyMaterial ssn = report.column("ssn").orElseThrow().keyMaterial().orElseThrow();
    assertThat(ssn.masterKeyId()).isEqualTo("pii");
    assertThat(ssn.doubleWrapping()).isTrue();
    assertThat(ssn.keyMaterialType()).isEqualTo("PKMT1");
    assertThat(ssn.isFooterKey()).isFalse();
    assertThat(ssn.rawJson()).contains("\"wrappedDEK\"");
    assertThat(report.column("address.zip").orElseThrow().keyMaterial().orElseThrow().masterKeyId())
        .isEqualTo("geo");
  }

  /** toText shows at most a 12-character prefix of wrapped keys, never the full value. */
  private static void assertNoWrappedKeyLeaks(String text, KeyMaterial material) {
    try {
      var json = new ObjectMapper().readTree(material.rawJson());
      for (String field : List.of("wrappedDEK", "wrappedKEK")) {
        if (json.hasNonNull(field)) {
          String value = json.get(field).asText();
          assertThat(value.length()).isGreaterThan(12);
          assertThat(text).doesNotContain(value).contains(value.substring(0, 12) + "…");
        }
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private FileEncryptionProperties directProperties(
      byte[] footerKey, boolean plaintextFooter, ParquetCipher cipher) {
    String footerMetadata =
        "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":true,"
            + "\"isFooterKey\":true,\"masterKeyID\":\"footer\",\"doubleWrapping\":false,"
            + "\"wrappedDEK\":\"Rk9PVEVSLUZPT1RFUi1GT09URVI=\"}";
    String ssnMetadata =
        "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":true,"
            + "\"isFooterKey\":false,\"masterKeyID\":\"pii\",\"doubleWrapping\":true,"
            + "\"keyEncryptionKeyID\":\"kek-1\",\"wrappedKEK\":\"S0VLLUtFSy1LRUstS0VL\","
            + "\"wrappedDEK\":\"QUJDREVGR0hJSktMTU5PUFFSU1RVVg==\"}";
    String zipMetadata =
        "{\"masterKeyID\":\"geo\",\"doubleWrapping\":false,"
            + "\"wrappedDEK\":\"WklQLVpJUC1aSVAtWklQ\"}";
    Map<ColumnPath, ColumnEncryptionProperties> columns =
        Map.of(
            ColumnPath.get("ssn"),
            ColumnEncryptionProperties.builder("ssn")
                .withKey(key(11))
                .withKeyMetaData(ssnMetadata.getBytes(StandardCharsets.UTF_8))
                .build(),
            ColumnPath.get("address", "zip"),
            ColumnEncryptionProperties.builder(ColumnPath.get("address", "zip"))
                .withKey(key(12))
                .withKeyMetaData(zipMetadata.getBytes(StandardCharsets.UTF_8))
                .build(),
            ColumnPath.get("name"),
            ColumnEncryptionProperties.builder("name").build()); // encrypted with the footer key
    FileEncryptionProperties.Builder builder =
        FileEncryptionProperties.builder(footerKey)
            .withAlgorithm(cipher)
            .withFooterKeyMetadata(footerMetadata.getBytes(StandardCharsets.UTF_8))
            .withEncryptedColumns(columns);
    if (plaintextFooter) {
      builder.withPlaintextFooter();
    }
    return builder.build();
  }

  private static Configuration toolsConf(boolean plaintextFooter, String algorithm) {
    Configuration conf = new Configuration(false);
    conf.set(KeyToolkit.KMS_CLIENT_CLASS_PROPERTY_NAME, TestKms.class.getName());
    conf.set(KeyToolkit.KEY_ACCESS_TOKEN_PROPERTY_NAME, TOKEN);
    conf.set(KeyToolkit.KMS_INSTANCE_ID_PROPERTY_NAME, KMS_INSTANCE);
    conf.set(PropertiesDrivenCryptoFactory.FOOTER_KEY_PROPERTY_NAME, "footer");
    conf.set(
        PropertiesDrivenCryptoFactory.COLUMN_KEYS_PROPERTY_NAME, "pii:name,ssn;geo:address.zip");
    conf.setBoolean(PropertiesDrivenCryptoFactory.PLAINTEXT_FOOTER_PROPERTY_NAME, plaintextFooter);
    conf.set(PropertiesDrivenCryptoFactory.ENCRYPTION_ALGORITHM_PROPERTY_NAME, algorithm);
    return conf;
  }

  private static FileEncryptionProperties toolsProperties(
      Path file, boolean plaintextFooter, String algorithm, boolean doubleWrapping) {
    Configuration conf = toolsConf(plaintextFooter, algorithm);
    conf.setBoolean(KeyToolkit.DOUBLE_WRAPPING_PROPERTY_NAME, doubleWrapping);
    return encryptionProperties(conf, file);
  }

  private static FileEncryptionProperties encryptionProperties(Configuration conf, Path file) {
    return new PropertiesDrivenCryptoFactory()
        .getFileEncryptionProperties(
            conf,
            new org.apache.hadoop.fs.Path(file.toUri()),
            new WriteSupport.WriteContext(SCHEMA, Map.of()));
  }

  private static FileDecryptionProperties toolsDecryption(Path file) {
    return new PropertiesDrivenCryptoFactory()
        .getFileDecryptionProperties(
            toolsConf(false, "AES_GCM_V1"), new org.apache.hadoop.fs.Path(file.toUri()));
  }

  private Path write(String name, FileEncryptionProperties encryption) throws IOException {
    Path file = dir.resolve(name);
    write(file, encryption);
    return file;
  }

  private static void write(Path file, FileEncryptionProperties encryption) throws IOException {
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(SCHEMA)
            .withConf(new Configuration(false))
            .withEncryption(encryption)
            .build()) {
      for (int i = 0; i < ROWS; i++) {
        Group row =
            groups
                .newGroup()
                .append("id", (long) i)
                .append("name", "name-" + i)
                .append("ssn", "123-45-" + (1000 + i));
        row.addGroup("address").append("street", i + " Main St").append("zip", "9410" + i);
        writer.write(row);
      }
    }
  }

  private static byte[] key(int seed) {
    byte[] key = new byte[16];
    Arrays.fill(key, (byte) seed);
    return key;
  }

  /**
   * Test-only KMS: "wraps" by XOR with a per-master-key secret derived from the key id, then
   * Base64. Records which master keys were unwrapped; master keys in DENIED are refused.
   */
  public static final class TestKms implements KmsClient {
    static final Set<String> UNWRAPPED = ConcurrentHashMap.newKeySet();
    static final Set<String> DENIED = ConcurrentHashMap.newKeySet();

    @Override
    public void initialize(
        Configuration configuration,
        String kmsInstanceID,
        String kmsInstanceURL,
        String accessToken) {}

    @Override
    public String wrapKey(byte[] keyBytes, String masterKeyIdentifier) {
      return masterKeyIdentifier
          + ":"
          + Base64.getEncoder().encodeToString(xor(keyBytes, secret(masterKeyIdentifier)));
    }

    @Override
    public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
      if (DENIED.contains(masterKeyIdentifier)) {
        throw new KeyAccessDeniedException(
            "test KMS: access to '" + masterKeyIdentifier + "' denied");
      }
      int colon = wrappedKey.indexOf(':');
      if (colon < 0 || !wrappedKey.substring(0, colon).equals(masterKeyIdentifier)) {
        throw new KeyAccessDeniedException("test KMS: key was wrapped under another master key");
      }
      UNWRAPPED.add(masterKeyIdentifier);
      return xor(
          Base64.getDecoder().decode(wrappedKey.substring(colon + 1)), secret(masterKeyIdentifier));
    }

    private static byte[] secret(String masterKeyId) {
      try {
        return MessageDigest.getInstance("SHA-256")
            .digest(("test-secret/" + masterKeyId).getBytes(StandardCharsets.UTF_8));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    private static byte[] xor(byte[] data, byte[] secret) {
      byte[] out = new byte[data.length];
      for (int i = 0; i < data.length; i++) {
        out[i] = (byte) (data[i] ^ secret[i % secret.length]);
      }
      return out;
    }
  }
}
