/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.ParquetReader;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/** A local keystore, a policy and Hadoop tables in a temp dir, shared by the write tests. */
final class WriteFixture {
  static final String POLICY =
      TestPolicy.resource(WriteFixture.class, "policies/WriteFixture.conf");

  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "name", Types.StringType.get()),
          optional(3, "ssn", Types.StringType.get()),
          optional(4, "salary", Types.DecimalType.of(10, 2)),
          optional(
              5,
              "address",
              Types.StructType.of(
                  optional(7, "city", Types.StringType.get()),
                  optional(8, "zip", Types.StringType.get()))),
          optional(6, "score", Types.DoubleType.get()));

  static final String SSN_CANARY = "CANARY-SSN-000123";
  static final String ZIP_CANARY = "CANARY-ZIP-98765";
  static final String NAME_CONTROL = "PLAIN-NAME-CONTROL";
  static final BigDecimal SALARY_CANARY = new BigDecimal("98765432.17");
  static final double SCORE_CANARY = 31415.926535897932;
  static final long ID_CONTROL = 0x0123456789ABCDEFL;

  final Path root;
  final ProtectorContext context;
  final Policy policy;
  private final HadoopTables tables = new HadoopTables(new Configuration());
  private int tableCount = 0;

  WriteFixture(Path root) {
    this.root = root;
    try {
      Path passphrase = root.resolve("passphrase");
      Files.writeString(passphrase, "test-passphrase-for-write-tests\n", StandardCharsets.UTF_8);
      Path keystore = root.resolve("keystore.p12");
      try (KeyService keys =
          LocalKeyService.open(keystore, Passphrase.fromFile(passphrase), true)) {
        keys.createKey("pii");
        keys.createKey("fin");
        keys.createKey("footer");
      }
      this.policy = Policy.parse(POLICY, "inline-test-policy");
      KmsSettings kms =
          KmsSettings.builder(KmsSettings.Type.LOCAL)
              .keystore(keystore.toString())
              .passphrase(io.icebergprotector.kms.SecretRef.ofFile(passphrase.toString()))
              .build();
      this.context = ProtectorContext.of(policy, kms);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Table createTable(PartitionSpec.Builder spec, Map<String, String> props) {
    tableCount += 1;
    String location = root.resolve("warehouse").resolve("t" + tableCount).toUri().toString();
    PartitionSpec partitionSpec = spec == null ? PartitionSpec.unpartitioned() : spec.build();
    return tables.create(SCHEMA, partitionSpec, props, location);
  }

  ProtectionSpec spec(String tableName, Table table, String user) {
    return ProtectionSpec.resolve(
        context, policy.table(tableName).orElseThrow(), table.schema(), Principal.user(user));
  }

  static InternalRow row(
      long id, String name, String ssn, BigDecimal salary, String city, String zip, Double score) {
    return new GenericInternalRow(
        new Object[] {
          id,
          utf8(name),
          utf8(ssn),
          salary == null ? null : Decimal.apply(salary, 10, 2),
          new GenericInternalRow(new Object[] {utf8(city), utf8(zip)}),
          score
        });
  }

  /** Rows whose protected columns carry the canaries and whose unprotected ones the controls. */
  static List<InternalRow> canaryRows(int count) {
    List<InternalRow> rows = new ArrayList<>();
    rows.add(
        row(
            ID_CONTROL,
            NAME_CONTROL,
            SSN_CANARY,
            SALARY_CANARY,
            "Springfield",
            ZIP_CANARY,
            SCORE_CANARY));
    for (int i = 1; i < count; i++) {
      rows.add(
          row(
              i,
              "name-" + i,
              "ssn-" + i,
              new BigDecimal(i + ".25"),
              "city-" + (i % 3),
              "zip-" + i,
              i % 7 == 0 ? Double.NaN : i * 1.5));
    }
    rows.add(row(-1L, null, null, null, null, null, null));
    return rows;
  }

  /** Writes rows into one new data file through the factory and appends it to the table. */
  DataFile writeAndAppend(Table table, ProtectionSpec spec, List<InternalRow> rows) {
    ProtectedFileWriterFactory factory =
        new ProtectedFileWriterFactory(table, table.schema(), null, table.sortOrder(), spec);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    EncryptedOutputFile out = files.newOutputFile();
    DataWriter<InternalRow> writer = factory.newDataWriter(out, table.spec(), null);
    try (DataWriter<InternalRow> w = writer) {
      rows.forEach(w::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
    return file;
  }

  static List<InternalRow> read(Table table, String location, ProtectionSpec readSpec) {
    return read(table, location, readSpec, table.schema());
  }

  static List<InternalRow> read(
      Table table, String location, ProtectionSpec readSpec, Schema projection) {
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(
                ProtectorCrypto.fileDecryption(
                    readSpec, location, io.icebergprotector.spark.crypto.FileBinding.of(table)))
            .build();
    List<InternalRow> rows = new ArrayList<>();
    try (CloseableIterable<InternalRow> reader =
        new ParquetReader<>(
            table.io().newInputFile(location),
            projection,
            options,
            fileType -> SparkParquetReaders.buildReader(projection, fileType),
            null,
            Expressions.alwaysTrue(),
            false,
            true)) {
      reader.forEach(rows::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  static ParquetMetadata footer(String location, FileDecryptionProperties decryption) {
    ParquetReadOptions.Builder options = ParquetReadOptions.builder();
    if (decryption != null) {
      options.withDecryption(decryption);
    }
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()),
            options.build())) {
      return reader.getFooter();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every regular file under a table location: data, manifests, manifest lists, metadata. */
  static List<Path> filesUnder(String tableLocation) {
    try (Stream<Path> walk = Files.walk(Path.of(java.net.URI.create(tableLocation)))) {
      return walk.filter(Files::isRegularFile).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path localPath(String location) {
    return Path.of(java.net.URI.create(location));
  }

  private static UTF8String utf8(String s) {
    return s == null ? null : UTF8String.fromString(s);
  }
}
