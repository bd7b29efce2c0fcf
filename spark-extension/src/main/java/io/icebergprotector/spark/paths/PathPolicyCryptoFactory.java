/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.FooterMode;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.StrictSchema;
import io.icebergprotector.spark.core.TokenizedColumns;
import io.icebergprotector.spark.crypto.KeyTools;
import io.icebergprotector.spark.crypto.ProtectorUnshadedKmsClient;
import io.icebergprotector.spark.logs.PlanLogRedaction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.crypto.DecryptionKeyRetriever;
import org.apache.parquet.crypto.DecryptionPropertiesFactory;
import org.apache.parquet.crypto.EncryptionPropertiesFactory;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Spark's {@code parquet.crypto.factory.class} (unshaded parquet-mr) for plain Parquet paths. For a
 * file under a policy path prefix it builds Parquet Modular Encryption properties through
 * parquet-mr's {@link PropertiesDrivenCryptoFactory}: the policy's columns under their master keys,
 * the footer key, mode and algorithm, double wrapping, and {@link ProtectorUnshadedKmsClient} with
 * a per-principal access token. Files outside every prefix stay plaintext ({@code null}). A file is
 * under a prefix when it is as written or where it really is ({@link PathScope#policyFor}:
 * normalized, symbolic links resolved), decided per file, never per table.
 *
 * <p>It reads the principal and the policy from the job's Hadoop configuration ({@code
 * spark.protector.*}, copied there from the session), so it works the same on driver and executors.
 * It is registered by {@code ProtectorSparkSessionExtensions}; which columns a reader may see is
 * decided on the driver by the plan rules of this package, and key release by the key service per
 * master key.
 */
public class PathPolicyCryptoFactory
    implements EncryptionPropertiesFactory, DecryptionPropertiesFactory {
  // Spark's Parquet writer records the Spark schema of a file under this key.
  private static final String SPARK_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.metadata";

  static {
    // Executors have no session extension: the first protected read here keeps parquet-java's
    // filter predicates (logged at INFO, values included) out of this JVM's log.
    PlanLogRedaction.install();
  }

  @Override
  public FileEncryptionProperties getFileEncryptionProperties(
      Configuration conf, Path file, WriteSupport.WriteContext context)
      throws ParquetCryptoRuntimeException {
    Optional<PathScope> maybeScope = PathScope.fromHadoop(conf);
    if (maybeScope.isEmpty()) {
      return null;
    }
    PathScope scope = maybeScope.get();
    String location = file.toString();
    Optional<TablePolicy> entry = scope.policyFor(location);
    if (entry.isEmpty()) {
      return null;
    }
    // The plan rule refused these already; checked again where the keys are used.
    scope.checkWrite(entry.get(), location);
    checkStrict(entry.get(), context, location, scope);
    Configuration crypto = cryptoConf(scope);
    TablePolicy policy = entry.get();
    TokenizedColumns.refuse(policy);
    crypto.set(
        PropertiesDrivenCryptoFactory.ENCRYPTION_ALGORITHM_PROPERTY_NAME,
        policy.algorithm().name());
    crypto.setBoolean(
        PropertiesDrivenCryptoFactory.PLAINTEXT_FOOTER_PROPERTY_NAME,
        policy.footerMode() == FooterMode.PLAINTEXT);
    String columnKeys = columnKeys(policy, context.getSchema());
    if (columnKeys.isEmpty()) {
      // None of the policy's columns is in this file: still a PME file, all under the footer key.
      crypto.set(PropertiesDrivenCryptoFactory.UNIFORM_KEY_PROPERTY_NAME, policy.footerKeyId());
    } else {
      crypto.set(PropertiesDrivenCryptoFactory.FOOTER_KEY_PROPERTY_NAME, policy.footerKeyId());
      crypto.set(PropertiesDrivenCryptoFactory.COLUMN_KEYS_PROPERTY_NAME, columnKeys);
    }
    return new PropertiesDrivenCryptoFactory().getFileEncryptionProperties(crypto, file, context);
  }

  /** A strict entry's check on the written schema (Spark's own, when its writer recorded it). */
  private static void checkStrict(
      TablePolicy entry, WriteSupport.WriteContext context, String location, PathScope scope) {
    if (!entry.strict()) {
      return;
    }
    String sparkSchema =
        context.getExtraMetaData() == null
            ? null
            : context.getExtraMetaData().get(SPARK_SCHEMA_KEY);
    StructType schema =
        sparkSchema != null
            ? (StructType) DataType.fromJson(sparkSchema)
            : new ParquetToSparkSchemaConverter(new Configuration(false))
                .convert(context.getSchema());
    StrictSchema.check(entry, schema, location, scope.policy().origin());
  }

  /**
   * Decryption of a file under a protected prefix, for the principal of the scan's settings:
   *
   * <ul>
   *   <li>the footer key for anyone (schema inference reads footers before any plan rule runs;
   *       every reader gets the footer key anyway);
   *   <li>column keys only for a scan marked with this principal's view ({@link PathViewMark}): a
   *       scan the plan rules did not give the view is refused at the file;
   *   <li>a plaintext file (one the protector did not write) only with {@link
   *       CatalogOptions#ACCEPT_PLAINTEXT_FILES}; else the read fails.
   * </ul>
   */
  @Override
  public FileDecryptionProperties getFileDecryptionProperties(Configuration conf, Path file)
      throws ParquetCryptoRuntimeException {
    if (file == null) {
      // parquet-mr asks without a file when it opens one whose footer it read already; an
      // encrypted file then brings the decryptor of that footer
      return null;
    }
    Optional<PathScope> maybeScope = PathScope.fromHadoop(conf);
    if (maybeScope.isEmpty()) {
      return null;
    }
    PathScope scope = maybeScope.get();
    Optional<TablePolicy> entry = scope.policyFor(file.toString());
    if (entry.isEmpty()) {
      return null;
    }
    // Column keys are fetched lazily, per column read: a pruned column never asks for its key.
    DecryptionKeyRetriever keys =
        new PropertiesDrivenCryptoFactory()
            .getFileDecryptionProperties(cryptoConf(scope), file)
            .getKeyRetriever();
    String mark = conf.get(PathViewMark.OPTION);
    if (mark == null || !scope.identity().equals(PathViewMark.identityOf(mark))) {
      keys = new FooterKeyOnly(keys, file, entry.get(), scope);
    }
    FileDecryptionProperties.Builder properties =
        FileDecryptionProperties.builder().withKeyRetriever(keys);
    if (scope.acceptPlaintextFiles()) {
      properties.withPlaintextFilesAllowed();
    } else {
      checkEncrypted(conf, file, entry.get(), scope);
    }
    return properties.build();
  }

  /**
   * Refuses a plaintext Parquet file under a protected prefix, naming it. Parquet's own check (a
   * decryptor applied to a plaintext file) would refuse it too, without naming the file; this reads
   * the file's last bytes first: {@code PARE} is an encrypted footer, and a {@code PAR1} file is
   * one of ours only if its plaintext footer says how it was encrypted.
   */
  private static void checkEncrypted(
      Configuration conf, Path file, TablePolicy entry, PathScope scope) {
    boolean encrypted;
    try {
      encrypted = ParquetFiles.isEncrypted(file, conf);
    } catch (IOException e) {
      // Parquet reports what is wrong with the file when it opens it; its decryptor still refuses
      // a plaintext file.
      return;
    }
    if (!encrypted) {
      throw new ParquetCryptoRuntimeException(
          String.format(
              "Refusing to read %s: it is under protected prefix %s of the policy %s but is a"
                  + " plaintext Parquet file, which Iceberg Protector did not write (planted, or"
                  + " from before the prefix was protected). Rewrite it through the protector, or"
                  + " set spark.%s=true to read such files with the principal's view.",
              file,
              entry.name(),
              scope.policy().origin(),
              CatalogOptions.ACCEPT_PLAINTEXT_FILES.key()));
    }
  }

  /** A key retriever that releases the footer key only, and refuses column keys naming the file. */
  private static final class FooterKeyOnly implements DecryptionKeyRetriever {
    private final DecryptionKeyRetriever delegate;
    private final Path file;
    private final TablePolicy entry;
    private final PathScope scope;

    FooterKeyOnly(DecryptionKeyRetriever delegate, Path file, TablePolicy entry, PathScope scope) {
      this.delegate = delegate;
      this.file = file;
      this.entry = entry;
      this.scope = scope;
    }

    @Override
    public byte[] getKey(byte[] keyMetadata) throws KeyAccessDeniedException {
      if (ParquetFiles.isFooterKeyMaterial(keyMetadata)) {
        return delegate.getKey(keyMetadata);
      }
      throw new KeyAccessDeniedException(
          String.format(
              "Refusing to decrypt columns of %s for %s: the file is under protected prefix %s of"
                  + " the policy %s, but this read did not get the principal's view (a table or"
                  + " partition located elsewhere, a link, or a read outside Spark SQL's Parquet"
                  + " source). Read the prefix itself with the protector's extension loaded.",
              file, scope.principal(), entry.name(), scope.policy().origin()));
    }
  }

  /** Key-tools settings for the scope's principal, with our plain parquet-mr KMS client. */
  static Configuration cryptoConf(PathScope scope) {
    return KeyTools.conf(
        scope.keyScope(), scope.policy(), ProtectorUnshadedKmsClient.class.getName(), "");
  }

  /**
   * {@code key1:a,b.c;key2:d} over the file's leaf columns: a leaf is encrypted with the key of the
   * policy column that covers it (itself or its nearest protected ancestor, matched
   * case-insensitively on field names, list and map wrappers left out).
   */
  static String columnKeys(TablePolicy policy, MessageType schema) {
    Map<String, String> keyByLeaf = new LinkedHashMap<>();
    for (ColumnDescriptor column : schema.getColumns()) {
      String[] path = column.getPath();
      Optional<ColumnPolicy> covering = policy.covering(logicalPath(schema, path));
      if (covering.isPresent()) {
        KeyTools.checkColumnKeyPath(path, policy.name());
        keyByLeaf.put(String.join(".", path), covering.get().keyId());
      }
    }
    return KeyTools.columnKeysProperty(keyByLeaf);
  }

  /**
   * The dotted path of a leaf as a policy names it: {@code tags.list.element} is {@code tags} and
   * {@code items.list.element.price} is {@code items.price} (also for the legacy 2-level lists and
   * map {@code key_value} groups).
   */
  static String logicalPath(MessageType schema, String[] path) {
    List<String> names = new ArrayList<>();
    GroupType grandparent = null;
    GroupType parent = schema;
    for (String name : path) {
      Type type = parent.getType(name);
      boolean wrapper = isListOrMap(parent);
      boolean element =
          grandparent != null
              && isList(grandparent)
              && parent.isRepetition(Type.Repetition.REPEATED)
              && parent.getFieldCount() == 1
              && !parent.getName().equals("array")
              && !parent.getName().endsWith("_tuple");
      if (!wrapper && !element) {
        names.add(name);
      }
      if (type.isPrimitive()) {
        break;
      }
      grandparent = parent;
      parent = type.asGroupType();
    }
    return String.join(".", names);
  }

  private static boolean isList(GroupType type) {
    return type.getLogicalTypeAnnotation()
        instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation;
  }

  private static boolean isListOrMap(GroupType type) {
    LogicalTypeAnnotation annotation = type.getLogicalTypeAnnotation();
    return annotation instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation
        || annotation instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
        || annotation instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation;
  }
}
