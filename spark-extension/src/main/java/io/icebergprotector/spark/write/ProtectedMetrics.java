package io.icebergprotector.spark.write;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableProperties;

/**
 * Column metrics for protected tables: bounds of protected columns would put their plaintext (or
 * a prefix of it) into manifests, so protected columns get at most {@code counts}, whatever the
 * table properties say.
 */
public final class ProtectedMetrics {
  private ProtectedMetrics() {}

  /**
   * The table's metrics config with every protected field (and every field nested below one)
   * capped at {@code counts}. A field the table already sets to {@code none} stays {@code none}.
   *
   * @param props table properties (with write options applied)
   * @param schema the schema whose column names the data files use
   * @param sortOrder the table sort order (sorted columns default to truncate(16)), may be null
   * @param protectedIds field ids from {@code ProtectionSpec.protectedFieldIds(schema)}
   */
  public static MetricsConfig metricsConfig(
      Map<String, String> props, Schema schema, SortOrder sortOrder, Set<Integer> protectedIds) {
    MetricsConfig tableConfig = MetricsConfig.from(props, schema, sortOrder);
    Map<String, String> capped = new HashMap<>(props);
    for (int id : protectedIds) {
      String name = schema.findColumnName(id);
      if (name == null) {
        continue;
      }
      String mode =
          tableConfig.columnMode(name) == MetricsModes.None.get()
              ? MetricsModes.None.get().toString()
              : MetricsModes.Counts.get().toString();
      capped.put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + name, mode);
    }
    return MetricsConfig.from(capped, schema, sortOrder);
  }

  /** True if {@code metrics} holds a lower or upper bound for any of {@code fieldIds}. */
  public static boolean hasBounds(Metrics metrics, Set<Integer> fieldIds) {
    return anyKey(metrics.lowerBounds(), fieldIds) || anyKey(metrics.upperBounds(), fieldIds);
  }

  /**
   * Metrics with no bounds for {@code fieldIds}. Returns {@code metrics} itself when it has none;
   * otherwise the counts of those fields are dropped as well, because Iceberg offers no public way
   * to drop only bounds while keeping the bound types of the other fields.
   */
  public static Metrics withoutBounds(Metrics metrics, Set<Integer> fieldIds) {
    if (!hasBounds(metrics, fieldIds)) {
      return metrics;
    }
    return MetricsUtil.copyWithoutFieldCountsAndBounds(metrics, fieldIds);
  }

  private static boolean anyKey(Map<Integer, ByteBuffer> map, Set<Integer> ids) {
    if (map == null || map.isEmpty()) {
      return false;
    }
    for (Integer id : ids) {
      if (map.containsKey(id)) {
        return true;
      }
    }
    return false;
  }
}
