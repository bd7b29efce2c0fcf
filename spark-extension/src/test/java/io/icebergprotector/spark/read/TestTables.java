/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.Group;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.io.LocalOutputFile;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.types.Types;

/**
 * Writes test data files: plaintext ones through plain Iceberg (as a table written before it was
 * protected), and PME-encrypted ones through parquet-mr with {@link ProtectorCrypto#fileEncryption}
 * (a stand-in for the protected write path).
 */
final class TestTables {
  /**
   * A row of {@link ReadFixture#SCHEMA}: id, name, ssn, email, salary, birth, {city, zip}, tags.
   */
  record Person(
      long id,
      String name,
      String ssn,
      String email,
      BigDecimal salary,
      LocalDate birth,
      String city,
      String zip,
      List<String> tags) {
    boolean hasAddress() {
      return city != null || zip != null;
    }
  }

  private TestTables() {}

  /** A plain Parquet appender of records (Iceberg 1.12 has no GenericAppenderFactory). */
  static FileAppender<Record> plainAppender(File file, Schema schema) {
    try {
      return Parquet.write(org.apache.iceberg.Files.localOutput(file))
          .schema(schema)
          .createWriterFunc(GenericParquetWriter::create)
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static DataFile appendPlaintext(Table table, List<Person> people) {
    return appendPlaintext(table, people, null);
  }

  /**
   * Appends a plaintext file; {@code partitionPath} like {@code "name=Ann"} for partitioned tables.
   */
  static DataFile appendPlaintext(Table table, List<Person> people, String partitionPath) {
    Schema schema = table.schema();
    File file = dataFile(table, "plain");
    FileAppender<Record> appender = plainAppender(file, schema);
    Types.StructType addressType = schema.findType("address").asStructType();
    try (FileAppender<Record> closing = appender) {
      for (Person p : people) {
        GenericRecord record = GenericRecord.create(schema);
        record.setField("id", p.id());
        record.setField("name", p.name());
        record.setField("ssn", p.ssn());
        record.setField("email", p.email());
        record.setField("salary", p.salary());
        record.setField("birth", p.birth());
        if (p.hasAddress()) {
          GenericRecord address = GenericRecord.create(addressType);
          address.setField("city", p.city());
          address.setField("zip", p.zip());
          record.setField("address", address);
        }
        record.setField("tags", p.tags());
        closing.add(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFiles.Builder builder =
        DataFiles.builder(table.spec())
            .withInputFile(org.apache.iceberg.Files.localInput(file))
            .withMetrics(appender.metrics())
            .withFormat(FileFormat.PARQUET);
    if (partitionPath != null) {
      builder.withPartitionPath(partitionPath);
    }
    DataFile dataFile = builder.build();
    table.newAppend().appendFile(dataFile).commit();
    return dataFile;
  }

  /**
   * Writes {@code people} as a PME file encrypted for {@code writer}'s spec, {@code rowsPerGroup}
   * rows per row group, and appends it without column metrics. The file is unbound, as protector
   * versions before file binding wrote them, so the table reads it as a legacy file.
   */
  static DataFile appendEncrypted(
      Table table, ProtectionSpec writer, List<Person> people, int rowsPerGroup) {
    Schema schema = table.schema();
    File file = dataFile(table, "enc");
    MessageType type = ParquetSchemaUtil.convert(schema, "table");
    FileEncryptionProperties encryption =
        ProtectorCrypto.unboundFileEncryption(writer, type, file.getAbsolutePath());
    SimpleGroupFactory groups = new SimpleGroupFactory(type);
    try (ParquetWriter<Group> out =
        ExampleParquetWriter.builder(new LocalOutputFile(file.toPath()))
            .withType(type)
            .withEncryption(encryption)
            .withRowGroupRowCountLimit(rowsPerGroup)
            .withPageWriteChecksumEnabled(true)
            .build()) {
      for (Person p : people) {
        Group g = groups.newGroup();
        g.append("id", p.id());
        appendIfSet(g, "name", p.name());
        appendIfSet(g, "ssn", p.ssn());
        appendIfSet(g, "email", p.email());
        if (p.salary() != null) {
          g.append("salary", p.salary().setScale(2).unscaledValue().longValueExact());
        }
        if (p.birth() != null) {
          g.append("birth", (int) p.birth().toEpochDay());
        }
        if (p.hasAddress()) {
          Group address = g.addGroup("address");
          appendIfSet(address, "city", p.city());
          appendIfSet(address, "zip", p.zip());
        }
        if (p.tags() != null) {
          Group tags = g.addGroup("tags");
          for (String tag : p.tags()) {
            tags.addGroup("list").append("element", tag);
          }
        }
        out.write(g);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile dataFile =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(file.getAbsolutePath())
            .withFileSizeInBytes(file.length())
            .withRecordCount(people.size())
            .withFormat(FileFormat.PARQUET)
            .build();
    table.newAppend().appendFile(dataFile).commit();
    return dataFile;
  }

  private static void appendIfSet(Group group, String field, String value) {
    if (value != null) {
      group.append(field, value);
    }
  }

  private static File dataFile(Table table, String prefix) {
    String location = table.location();
    Path dir =
        (location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location))
            .resolve("data");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir.resolve(prefix + "-" + UUID.randomUUID() + ".parquet").toFile();
  }
}
