package io.icebergprotector.spark;

import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter;
import org.apache.spark.sql.types.StructType;

/**
 * Refuses Iceberg procedures that would write, import or derive plaintext data for a protected
 * table (they bypass the protected write path). Other procedures pass through unchanged.
 */
final class GuardedProcedure implements Procedure {
  static final Set<String> REFUSED =
      Set.of(
          "rewrite_data_files",
          "rewrite_position_delete_files",
          "add_files",
          "migrate",
          "snapshot",
          "compute_table_stats",
          "create_changelog_view");

  private final String name;
  private final Procedure delegate;
  private final ProtectingSparkCatalog catalog;

  private GuardedProcedure(String name, Procedure delegate, ProtectingSparkCatalog catalog) {
    this.name = name;
    this.delegate = delegate;
    this.catalog = catalog;
  }

  static Procedure guard(String name, Procedure procedure, ProtectingSparkCatalog catalog) {
    String lower = name.toLowerCase(Locale.ROOT);
    return REFUSED.contains(lower) ? new GuardedProcedure(lower, procedure, catalog) : procedure;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return delegate.parameters();
  }

  @Override
  public StructType outputType() {
    return delegate.outputType();
  }

  @Override
  public String description() {
    return delegate.description();
  }

  @Override
  public InternalRow[] call(InternalRow args) {
    ProcedureParameter[] params = delegate.parameters();
    for (int i = 0; i < params.length; i++) {
      if ("table".equalsIgnoreCase(params[i].name()) && !args.isNullAt(i)) {
        String table = args.getUTF8String(i).toString();
        if (catalog.policyFor(table).isPresent()) {
          throw new ProtectorException(
              String.format(
                  "Procedure %s is not supported on protected table %s: it would write or derive"
                      + " plaintext of protected columns outside the protected write path",
                  name, table));
        }
      }
    }
    return delegate.call(args);
  }
}
