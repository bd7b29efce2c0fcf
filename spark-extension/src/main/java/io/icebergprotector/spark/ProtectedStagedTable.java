package io.icebergprotector.spark;

import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.connector.catalog.StagedTable;

/** CTAS / RTAS target: writes go through the protected path into Iceberg's pending transaction. */
final class ProtectedStagedTable extends ProtectedTable implements StagedTable {
  private final StagedTable staged;

  ProtectedStagedTable(
      org.apache.iceberg.spark.source.SparkTable stagedSparkTable,
      Function<Schema, ProtectionSpec> resolver) {
    super(stagedSparkTable.table(), null, null, false, resolver);
    this.staged = (StagedTable) stagedSparkTable;
  }

  @Override
  public void commitStagedChanges() {
    staged.commitStagedChanges();
  }

  @Override
  public void abortStagedChanges() {
    staged.abortStagedChanges();
  }
}
