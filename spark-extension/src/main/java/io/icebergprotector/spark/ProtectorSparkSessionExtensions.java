package io.icebergprotector.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * Session extension, configured next to Iceberg's: {@code spark.sql.extensions=
 * org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,
 * io.icebergprotector.spark.ProtectorSparkSessionExtensions}. Its check rule guards what bypasses
 * the catalog: Iceberg's table commands ({@link IcebergCommandCheck}: writer role, no partitioning
 * or ordering by protected columns) and Spark's V1 commands on non-Iceberg tables the policy lists
 * ({@link NonIcebergTables}); the catalog and the protected tables enforce the rest.
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
    // Cached data of protected tables never answers another principal.
    extensions.injectOptimizerRule(ProtectedCacheCheck::new);
    // Plain Parquet paths under the policy's `paths` prefixes (spark.protector.* settings).
    io.icebergprotector.spark.paths.PathProtection.register(extensions);
    return BoxedUnit.UNIT;
  }

  private static BoxedUnit checkPlan(SparkSession session, LogicalPlan plan) {
    IcebergCommandCheck.checkPlan(session, plan);
    NonIcebergTables.checkPlan(session, plan);
    return BoxedUnit.UNIT;
  }
}
