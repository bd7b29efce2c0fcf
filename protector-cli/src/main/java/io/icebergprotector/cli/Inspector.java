/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.inspect.ColumnReport;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.KeyMaterial;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;

/**
 * Runs {@link ParquetFooterInspector} on files, optionally with a footer key from a keystore. A
 * file bound to its table ({@link FileBinding}) needs its table's UUID to be decrypted: given, or
 * read from the Hadoop-layout table the file lies in ({@code <table>/data/...} next to {@code
 * <table>/metadata/version-hint.text}).
 */
final class Inspector {
  private Inspector() {}

  /**
   * How to unwrap an encrypted footer's key: a key backend, used as {@code user} under {@code
   * policy}.
   */
  record Keys(KmsSettings kms, Path policy, String user, UUID tableUuid) {}

  static int run(List<Path> files, Keys keys, PrintWriter out, boolean json) {
    if (json) {
      List<Object> reports = new java.util.ArrayList<>();
      for (Path file : files) {
        reports.add(
            toJson(
                keys == null
                    ? ParquetFooterInspector.inspect(file)
                    : ParquetFooterInspector.inspect(file, footerDecryption(keys, file))));
      }
      OutputFormat.print(out, JsonCodec.object("files", reports));
      return ProtectorCli.OK;
    }
    boolean first = true;
    for (Path file : files) {
      if (!first) {
        out.println();
      }
      first = false;
      FooterReport report =
          keys == null
              ? ParquetFooterInspector.inspect(file)
              : ParquetFooterInspector.inspect(file, footerDecryption(keys, file));
      out.print(report.toText());
      out.flush();
    }
    return ProtectorCli.OK;
  }

  /**
   * One file's report for {@code --format json}; wrapped keys are never included, only ids and
   * versions.
   */
  static Map<String, Object> toJson(FooterReport report) {
    List<Object> columns = new java.util.ArrayList<>();
    if (report.columnsVisible()) {
      for (ColumnReport c : report.columns()) {
        Map<String, Object> column =
            JsonCodec.object(
                "column",
                c.path(),
                "encrypted",
                c.encrypted(),
                "footer_key",
                c.encryptedWithFooterKey());
        c.keyMaterial().ifPresent(k -> column.putAll(keyJson(k)));
        columns.add(column);
      }
    }
    Map<String, Object> doc =
        JsonCodec.object(
            "file", report.location(),
            "bytes", report.fileLength(),
            "footer_mode", report.footerMode().name().toLowerCase(java.util.Locale.ROOT),
            "algorithm", report.algorithm(),
            "aad_prefix_required", report.aadPrefixRequired(),
            "aad_prefix_stored", report.storedAadPrefix().orElse(null),
            "columns_visible", report.columnsVisible());
    doc.put("footer_key", report.footerKey().map(Inspector::keyJson).orElse(null));
    if (report.columnsVisible()) {
      doc.put("rows", report.numRows());
      doc.put("row_groups", report.rowGroups());
      doc.put("columns", columns);
    }
    return doc;
  }

  private static Map<String, Object> keyJson(KeyMaterial k) {
    Integer version = k.masterKeyVersion().isPresent() ? k.masterKeyVersion().getAsInt() : null;
    return JsonCodec.object(
        "master_key",
        k.masterKeyId(),
        "master_key_version",
        version,
        "key",
        k.masterKeyId() == null ? null : k.masterKeyId() + (version == null ? "" : " v" + version),
        "double_wrapping",
        k.doubleWrapping());
  }

  static FileDecryptionProperties footerDecryption(Keys keys, Path file) {
    String text;
    try {
      text = Files.readString(keys.policy(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read policy " + keys.policy() + ": " + e.getMessage(), e);
    }
    Policy policy = Policy.parse(text, keys.policy().toString());
    return footerDecryption(
        ProtectorContext.of(policy, keys.kms()),
        Principal.user(keys.user()),
        file,
        keys.tableUuid());
  }

  /**
   * Decryption properties acting as {@code principal}: keys are unwrapped through the policy's
   * authorization, and Parquet asks only for the footer key when just the footer is read. A bound
   * file gets its binding from {@code tableUuid} or, if null, from the table it lies in.
   */
  static FileDecryptionProperties footerDecryption(
      ProtectorContext context, Principal principal, Path file, UUID tableUuid) {
    String location = file.toAbsolutePath().toString();
    Policy policy = context.policy();
    TablePolicy any =
        policy.tables().values().stream()
            .findFirst()
            .or(() -> policy.paths().values().stream().findFirst())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Policy "
                            + policy.origin()
                            + " protects no table, so it allows no footer key"));
    // Only the key-service settings and the principal matter for reading a footer.
    ProtectionSpec spec = ProtectionSpec.resolve(context, any, new Schema(), principal);
    FileBinding binding = null;
    FooterReport unread = ParquetFooterInspector.inspect(file);
    if (unread.storedAadPrefix().isPresent() && tableUuid != null) {
      // the file names its binding; a given table UUID is checked against it
      binding = FileBinding.of(tableUuid);
    } else if (unread.aadPrefixRequired()) {
      UUID uuid = tableUuid != null ? tableUuid : tableUuidAround(file);
      checkArgument(
          uuid != null,
          "Cannot inspect %s: it is bound to its table (its AAD prefix is not stored in "
              + "it): give the table's UUID with --table-uuid (\"table-uuid\" "
              + "in the table's metadata JSON), or inspect the file inside its "
              + "table directory",
          file);
      binding = FileBinding.of(uuid);
    }
    return ProtectorCrypto.fileDecryption(spec, location, binding);
  }

  /** The UUID of the Hadoop-layout Iceberg table whose directory holds {@code file}, or null. */
  static UUID tableUuidAround(Path file) {
    for (Path dir = file.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("metadata").resolve("version-hint.text"))) {
        return new HadoopTables(new Configuration()).load(dir.toUri().toString()).uuid();
      }
    }
    return null;
  }
}
