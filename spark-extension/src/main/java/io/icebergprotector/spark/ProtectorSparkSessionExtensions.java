package io.icebergprotector.spark;

import io.icebergprotector.policy.TablePolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.AddPartitionField;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ReplacePartitionField;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/**
 * Session extension, configured next to Iceberg's: {@code spark.sql.extensions=
 * org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,
 * io.icebergprotector.spark.ProtectorSparkSessionExtensions}. It refuses partition evolution onto
 * protected columns at analysis time (partition values are plaintext metadata); the catalog and
 * the protected tables enforce the rest.
 */
public class ProtectorSparkSessionExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(
        (session, parser) -> (org.apache.spark.sql.catalyst.parser.ParserInterface) new ProtectorSqlParser(parser));
    extensions.injectCheckRule(
        session -> (Function1<LogicalPlan, BoxedUnit>) plan -> checkPlan(session, plan));
    // What protected reads may store: no views as data, no declassification by accident.
    extensions.injectCheckRule(io.icebergprotector.spark.flow.DataFlowCheck::forSession);
    // Plain Parquet paths under the policy's `paths` prefixes (spark.protector.* settings).
    io.icebergprotector.spark.paths.PathProtection.register(extensions);
    return BoxedUnit.UNIT;
  }

  private static BoxedUnit checkPlan(SparkSession session, LogicalPlan plan) {
    if (plan instanceof AddPartitionField) {
      AddPartitionField add = (AddPartitionField) plan;
      checkPartitionSource(session, CollectionConverters.asJava(add.table()), add.transform());
    } else if (plan instanceof ReplacePartitionField) {
      ReplacePartitionField replace = (ReplacePartitionField) plan;
      checkPartitionSource(
          session, CollectionConverters.asJava(replace.table()), replace.transformTo());
    }
    return BoxedUnit.UNIT;
  }

  private static void checkPartitionSource(
      SparkSession session, List<String> nameParts, Transform transform) {
    CatalogManager manager = session.sessionState().catalogManager();
    CatalogPlugin catalog;
    List<String> tableParts;
    if (nameParts.size() > 1 && manager.isCatalogRegistered(nameParts.get(0))) {
      catalog = manager.catalog(nameParts.get(0));
      tableParts = nameParts.subList(1, nameParts.size());
    } else {
      catalog = manager.currentCatalog();
      tableParts = new ArrayList<>(Arrays.asList(manager.currentNamespace()));
      if (nameParts.size() > 1) {
        tableParts = nameParts;
      } else {
        tableParts.addAll(nameParts);
      }
    }
    ProtectingSparkCatalog protecting = protectingCatalog(catalog);
    if (protecting == null) {
      return;
    }
    String tableName = String.join(".", tableParts);
    Optional<TablePolicy> policy = protecting.policyFor(tableName);
    if (policy.isEmpty()) {
      return;
    }
    for (NamedReference ref : transform.references()) {
      String column = String.join(".", ref.fieldNames());
      if (policy.get().column(column).isPresent()) {
        throw new ProtectorException(
            String.format(
                "Cannot partition protected table %s by protected column '%s' (%s):"
                    + " partition values are stored in plaintext in Iceberg metadata",
                tableName, column, transform.describe()));
      }
    }
  }

  private static ProtectingSparkCatalog protectingCatalog(CatalogPlugin catalog) {
    if (catalog instanceof ProtectingSparkCatalog) {
      return (ProtectingSparkCatalog) catalog;
    }
    if (catalog instanceof ProtectingSessionCatalog) {
      return ((ProtectingSessionCatalog<?>) catalog).protectingCatalog();
    }
    return null;
  }
}
