/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

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
 * Column metrics for protected tables. Manifests are plaintext metadata: bounds would put the
 * values (or a prefix of them) there, column sizes reveal value lengths, and value, null and NaN
 * counts reveal which values are NULL or NaN. So protected columns get no metrics of any kind,
 * whatever the table properties say; unprotected columns keep the table's metrics.
 */
public final class ProtectedMetrics {
  private ProtectedMetrics() {}

  /**
   * The table's metrics config with every protected field (and every field nested below one) set to
   * {@code none}. With mode {@code none}, Iceberg's {@code ParquetUtil.footerMetrics} records
   * neither the column size nor counts, NaN counts or bounds of a field.
   *
   * @param props table properties (with write options applied)
   * @param schema the schema whose column names the data files use
   * @param sortOrder the table sort order (sorted columns default to truncate(16)), may be null
   * @param protectedIds field ids from {@code ProtectionSpec.protectedFieldIds(schema)}
   */
  public static MetricsConfig metricsConfig(
      Map<String, String> props, Schema schema, SortOrder sortOrder, Set<Integer> protectedIds) {
    Map<String, String> capped = new HashMap<>(props);
    String none = MetricsModes.None.get().toString();
    for (int id : protectedIds) {
      String name = schema.findColumnName(id);
      if (name != null) {
        // overrides the table's column setting and the sort order's truncate(16) default
        capped.put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + name, none);
      }
    }
    return MetricsConfig.from(capped, schema, sortOrder);
  }

  /** True if {@code metrics} holds any per-field entry for any of {@code fieldIds}. */
  public static boolean hasFieldMetrics(Metrics metrics, Set<Integer> fieldIds) {
    return anyKey(metrics.columnSizes(), fieldIds)
        || anyKey(metrics.valueCounts(), fieldIds)
        || anyKey(metrics.nullValueCounts(), fieldIds)
        || anyKey(metrics.nanValueCounts(), fieldIds)
        || anyKey(metrics.lowerBounds(), fieldIds)
        || anyKey(metrics.upperBounds(), fieldIds);
  }

  /**
   * Metrics without any entry for {@code fieldIds}: no column size, value, null or NaN count, and
   * no bound. Returns {@code metrics} itself when it has none.
   */
  public static Metrics withoutFieldMetrics(Metrics metrics, Set<Integer> fieldIds) {
    if (!hasFieldMetrics(metrics, fieldIds)) {
      return metrics;
    }
    // keeps the bound types Iceberg records for the other fields, but not their column sizes
    Metrics stripped = MetricsUtil.copyWithoutFieldCountsAndBounds(metrics, fieldIds);
    if (!anyKey(stripped.columnSizes(), fieldIds)) {
      return stripped;
    }
    // No public copy drops column sizes and keeps those bound types; losing them only drops the
    // typed field stats Iceberg derives from bounds, never a bound itself.
    return new Metrics(
        stripped.recordCount(),
        without(stripped.columnSizes(), fieldIds),
        stripped.valueCounts(),
        stripped.nullValueCounts(),
        stripped.nanValueCounts(),
        stripped.lowerBounds(),
        stripped.upperBounds());
  }

  private static <V> Map<Integer, V> without(Map<Integer, V> map, Set<Integer> ids) {
    if (map == null) {
      return null;
    }
    Map<Integer, V> kept = new HashMap<>(map);
    kept.keySet().removeAll(ids);
    return kept.isEmpty() ? null : kept;
  }

  private static boolean anyKey(Map<Integer, ?> map, Set<Integer> ids) {
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
