/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.compat.SparkCompat;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.table.ProtectedTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.IcebergBuild;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinCompressionCodec;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.shaded.org.apache.datasketches.memory.Memory;
import org.apache.iceberg.shaded.org.apache.datasketches.theta.CompactSketch;
import org.apache.iceberg.shaded.org.apache.datasketches.theta.Sketch;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.stats.ThetaSketchAgg;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * {@code compute_table_stats} on a protected table: Iceberg's NDV statistics (Apache DataSketches
 * theta sketches in a Puffin file, registered in the table metadata), as Iceberg 1.11.0's {@code
 * ComputeTableStatsSparkAction} computes them (see FORKS.md), for unprotected columns only, read
 * through the protected scan. A sketch of protected values would sit in plaintext metadata and let
 * anyone who reads it test whether a value occurs in the table, so protected columns (and fields
 * nested in them) are refused by name, and left out when no columns are named.
 */
public final class ProtectedTableStats {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedTableStats.class);
  private static final String NDV_PROPERTY = "ndv";

  private final SparkSession spark;
  private final ProtectedTable table;
  private final TableCatalog catalog;
  private final Identifier ident;
  private final String displayName;
  private Long snapshotId = null;
  private List<String> columns = null;

  /**
   * @param table the protected table, as its catalog loaded it
   * @param catalog the catalog that loaded it, and {@code ident} its identifier there (the read
   *     goes through them)
   * @param displayName the table's name in messages
   */
  public ProtectedTableStats(
      SparkSession spark,
      ProtectedTable table,
      TableCatalog catalog,
      Identifier ident,
      String displayName) {
    this.spark = spark;
    this.table = table;
    this.catalog = catalog;
    this.ident = ident;
    this.displayName = displayName;
  }

  public ProtectedTableStats snapshot(long id) {
    this.snapshotId = id;
    return this;
  }

  public ProtectedTableStats columns(List<String> names) {
    checkArgument(names != null && !names.isEmpty(), "Columns cannot be null/empty");
    this.columns = new ArrayList<>(new LinkedHashSet<>(names));
    return this;
  }

  /** Computes and registers the statistics; null when the table has no snapshot. */
  public StatisticsFile execute() {
    Table iceberg = table.table();
    Snapshot snapshot =
        snapshotId != null ? iceberg.snapshot(snapshotId) : iceberg.currentSnapshot();
    checkArgument(snapshotId == null || snapshot != null, "Snapshot not found: %s", snapshotId);
    if (snapshot == null) {
      LOG.info("No snapshot to compute stats for table {}", displayName);
      return null;
    }
    Schema schema = iceberg.schemas().get(snapshot.schemaId());
    ProtectionSpec spec = table.protectionFor(spark);
    List<String> names = columnsToSketch(schema, spec);
    LOG.info(
        "Computing NDV statistics of unprotected columns {} of {} (snapshot {})",
        names,
        displayName,
        snapshot.snapshotId());

    ProtectedTable atSnapshot = table.copyWithSnapshotId(snapshot.snapshotId());
    DataSourceV2Relation relation =
        DataSourceV2Relation.create(
            atSnapshot, Option.<CatalogPlugin>apply(catalog), Option.apply(ident));
    Dataset<Row> rows = SparkCompat.ofRows(spark, relation);
    Column[] sketches =
        names.stream()
            .map(name -> SparkCompat.column(new ThetaSketchAgg(name).toAggregateExpression()))
            .toArray(Column[]::new);
    Row result = rows.select(sketches).first();

    List<Blob> blobs = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      Types.NestedField field = schema.findField(names.get(i));
      Sketch sketch = CompactSketch.wrap(Memory.wrap((byte[]) result.get(i)));
      blobs.add(
          new Blob(
              StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1,
              List.of(field.fieldId()),
              snapshot.snapshotId(),
              snapshot.sequenceNumber(),
              ByteBuffer.wrap(sketch.toByteArray()),
              PuffinCompressionCodec.ZSTD,
              Map.of(NDV_PROPERTY, String.valueOf((long) sketch.getEstimate()))));
    }
    StatisticsFile file = write(iceberg, snapshot, blobs);
    iceberg.updateStatistics().setStatistics(file).commit();
    return file;
  }

  /**
   * The requested columns, or every unprotected top-level primitive column; never a protected one.
   */
  private List<String> columnsToSketch(Schema schema, ProtectionSpec spec) {
    Set<Integer> protectedIds = spec.protectedFieldIds(schema);
    if (columns == null) {
      List<String> names = new ArrayList<>();
      for (Types.NestedField field : schema.columns()) {
        if (field.type().isPrimitiveType() && !protectedIds.contains(field.fieldId())) {
          names.add(field.name());
        }
      }
      checkArgument(
          !names.isEmpty(),
          "No unprotected columns to compute statistics for in protected "
              + "table %s: NDV sketches of protected columns are never computed",
          displayName);
      return names;
    }
    List<String> refused = new ArrayList<>();
    for (String name : columns) {
      Types.NestedField field = schema.findField(name);
      checkArgument(field != null, "Can't find column %s in %s", name, schema);
      if (protectedIds.contains(field.fieldId())) {
        refused.add(name);
      } else if (!field.type().isPrimitiveType()) {
        throw new IllegalArgumentException(
            String.format(
                "Can't compute stats on non-primitive type column: %s (%s)", name, field.type()));
      }
    }
    if (!refused.isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Cannot compute statistics of protected column(s) %s of protected table %s: an NDV"
                  + " sketch of protected values, stored in plaintext table metadata, would let"
                  + " anyone who reads the metadata test whether a value occurs in the table. Name"
                  + " unprotected columns only, or none (then every unprotected column is used)",
              refused, displayName));
    }
    return columns;
  }

  private StatisticsFile write(Table iceberg, Snapshot snapshot, List<Blob> blobs) {
    String name = String.format("%s-%s.stats", snapshot.snapshotId(), UUID.randomUUID());
    OutputFile output =
        iceberg
            .io()
            .newOutputFile(((HasTableOperations) iceberg).operations().metadataFileLocation(name));
    String createdBy =
        String.format("Iceberg %s Spark %s", IcebergBuild.fullVersion(), spark.version());
    try (PuffinWriter writer = Puffin.write(output).createdBy(createdBy).build()) {
      blobs.forEach(writer::add);
      writer.finish();
      return new GenericStatisticsFile(
          snapshot.snapshotId(),
          output.location(),
          writer.fileSize(),
          writer.footerSize(),
          GenericBlobMetadata.from(writer.writtenBlobsMetadata()));
    } catch (IOException e) {
      throw new RuntimeIOException(e);
    }
  }
}
