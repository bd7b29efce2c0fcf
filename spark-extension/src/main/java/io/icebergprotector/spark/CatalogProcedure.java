package io.icebergprotector.spark;

import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter;
import org.apache.spark.sql.types.StructType;

/** A procedure the protecting catalog serves itself: its signature, and the catalog it runs in. */
abstract class CatalogProcedure implements Procedure {
  private final ProcedureParameter[] parameters;
  private final StructType output;
  private final String description;
  final ProtectingSparkCatalog catalog;

  CatalogProcedure(
      ProtectingSparkCatalog catalog,
      ProcedureParameter[] parameters,
      StructType output,
      String description) {
    this.catalog = catalog;
    this.parameters = parameters;
    this.output = output;
    this.description = description;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return parameters.clone();
  }

  @Override
  public StructType outputType() {
    return output;
  }

  @Override
  public String description() {
    return description;
  }
}
