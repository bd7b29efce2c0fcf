package io.icebergprotector.spark;

import io.icebergprotector.policy.TablePolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
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
 * The session extension's parts for protected Iceberg tables: every rule, parser and check that
 * links Iceberg classes (Iceberg's SQL plans such as {@code CallStatement} or {@code
 * AddPartitionField}, the protecting catalogs, protected tables and scans). {@link
 * ProtectorSparkSessionExtensions} loads this class by name, and only when Iceberg is on the
 * classpath, so a paths-only setup never links them. Rules that touch Iceberg go in {@link
 * #accept}.
 */
final class IcebergRules implements Consumer<SparkSessionExtensions> {
  /** Instantiated by name by {@link ProtectorSparkSessionExtensions}. */
  IcebergRules() {}

  @Override
  public void accept(SparkSessionExtensions extensions) {
    // CALL <catalog>.system.rewrite_protected(...)
    extensions.injectParser(
        (session, parser) -> (ParserInterface) new ProtectorSqlParser(parser));
    // Partition evolution onto protected columns (partition values are plaintext metadata).
    extensions.injectCheckRule(
        session -> (Function1<LogicalPlan, BoxedUnit>) plan -> checkPlan(session, plan));
    // Cached data of protected tables never answers another principal.
    extensions.injectOptimizerRule(ProtectedCacheCheck::new);
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
