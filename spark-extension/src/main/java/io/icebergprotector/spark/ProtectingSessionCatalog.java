package io.icebergprotector.spark;

import org.apache.iceberg.spark.SparkSessionCatalog;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's {@code spark_catalog} replacement with column protection: Iceberg tables go through a
 * {@link ProtectingSparkCatalog}, other tables through Spark's built-in session catalog.
 */
public class ProtectingSessionCatalog<
        T extends
            TableCatalog
                & org.apache.spark.sql.connector.catalog.FunctionCatalog
                & org.apache.spark.sql.connector.catalog.SupportsNamespaces
                & org.apache.spark.sql.connector.catalog.ViewCatalog>
    extends SparkSessionCatalog<T> {

  private ProtectingSparkCatalog protecting;

  @Override
  protected TableCatalog buildSparkCatalog(String name, CaseInsensitiveStringMap options) {
    ProtectingSparkCatalog catalog = new ProtectingSparkCatalog();
    catalog.initialize(name, options);
    this.protecting = catalog;
    return catalog;
  }

  /** The protecting Iceberg catalog behind this session catalog. */
  public ProtectingSparkCatalog protectingCatalog() {
    return protecting;
  }
}
