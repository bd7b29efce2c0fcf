/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnDescriptor;
import org.apache.iceberg.shaded.org.apache.parquet.filter.RecordFilter;
import org.apache.iceberg.shaded.org.apache.parquet.filter.UnboundRecordFilter;
import org.apache.iceberg.shaded.org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.iceberg.shaded.org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.iceberg.shaded.org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.iceberg.shaded.org.apache.parquet.filter2.predicate.Operators;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.iceberg.shaded.org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.iceberg.shaded.org.apache.parquet.internal.filter2.columnindex.ColumnIndexFilter;
import org.apache.iceberg.shaded.org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.iceberg.shaded.org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.iceberg.shaded.org.apache.parquet.io.api.Binary;
import org.apache.iceberg.shaded.org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.PrimitiveType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Which rows of a row group a scan reads, from the Parquet page indexes (column index and offset
 * index): only pages whose rows can match the scan's filter.
 *
 * <p>The filter is the one row groups are pruned with, over columns the principal reads in clear
 * only (a filter on a masked or denied column is never used: their indexes must not become an
 * oracle). Iceberg's readers read every page a column reader is given, in order, and know nothing
 * of row indexes; so the rows read are widened until, for every requested column, they are exactly
 * the rows of whole pages. Then each column's reader gets exactly those pages and the columns stay
 * row-aligned. The rows outside the filter that this keeps are removed by Spark's filter above the
 * scan, as for any row group that may match.
 *
 * <p>The indexes of a requested protected column are decrypted with its column key, which the scan
 * fetches for its pages anyway; no key is requested only to filter. Not used when the reader needs
 * row positions (row-level deletes, {@code _pos}, row lineage): those count rows from the row
 * group's start.
 */
final class PageFilter {
  private final FilterPredicate predicate;

  private PageFilter(FilterPredicate predicate) {
    this.predicate = predicate;
  }

  /**
   * The page filter of {@code filter} over a file, or null when no part of it can use the page
   * indexes (then every page of a matching row group is read).
   */
  static PageFilter of(
      Schema filterSchema, Expression filter, MessageType typeWithIds, boolean caseSensitive) {
    if (filter == null || filter == Expressions.alwaysTrue()) {
      return null;
    }
    Expression bound =
        Binder.bind(filterSchema.asStruct(), Expressions.rewriteNot(filter), caseSensitive);
    FilterPredicate predicate =
        ExpressionVisitors.visit(bound, new ToParquet(leavesById(typeWithIds)));
    return predicate == null ? null : new PageFilter(predicate);
  }

  /**
   * Read options need a record filter before {@code ParquetFileReader} reads a row group by row
   * ranges; this one only marks the reader as filtering (it prunes nothing on its own, and no
   * Parquet record reader ever binds it): the row ranges come from {@link #rowsToRead}.
   */
  static FilterCompat.Filter rangesFromCaller() {
    return FilterCompat.get(new RangesFromCaller());
  }

  /**
   * The rows of row group {@code index} to read, whole pages of every column of {@code requested};
   * null to read the row group whole.
   */
  RowRanges rowsToRead(
      ParquetFileReader reader, int index, BlockMetaData rowGroup, MessageType requested) {
    long rows = rowGroup.getRowCount();
    ColumnIndexStore indexes = reader.getColumnIndexStore(index);
    Set<ColumnPath> paths = new HashSet<>();
    for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
      paths.add(chunk.getPath()); // never decrypts
    }
    RowRanges matching =
        ColumnIndexFilter.calculateRowRanges(FilterCompat.get(predicate), indexes, paths, rows);
    if (matching.rowCount() == rows) {
      return null;
    }
    if (matching.rowCount() == 0) {
      return matching;
    }
    OffsetIndex[] pages = new OffsetIndex[requested.getColumns().size()];
    for (int c = 0; c < pages.length; c++) {
      ColumnPath path = ColumnPath.get(requested.getColumns().get(c).getPath());
      try {
        pages[c] = indexes.getOffsetIndex(path);
      } catch (ColumnIndexStore.MissingOffsetIndexException e) {
        return null; // a column without page locations: it can only be read whole
      }
    }
    RowRanges ranges = matching;
    while (true) {
      RowRanges widened = ranges;
      for (OffsetIndex offsets : pages) {
        widened = RowRanges.union(widened, pagesOverlapping(ranges, offsets, rows));
      }
      // union only adds rows: an equal count is the same set, whole pages of every column
      if (widened.rowCount() == ranges.rowCount()) {
        break;
      }
      ranges = widened;
    }
    return ranges.rowCount() == rows ? null : ranges;
  }

  private static RowRanges pagesOverlapping(RowRanges ranges, OffsetIndex offsets, long rows) {
    PrimitiveIterator.OfInt overlapping =
        IntStream.range(0, offsets.getPageCount())
            .filter(
                p ->
                    ranges.isOverlapping(
                        offsets.getFirstRowIndex(p), offsets.getLastRowIndex(p, rows)))
            .iterator();
    return RowRanges.create(rows, overlapping, offsets);
  }

  /** Top-level and nested leaves outside lists and maps, by Iceberg field id. */
  private static Map<Integer, ColumnDescriptor> leavesById(MessageType typeWithIds) {
    Map<Integer, ColumnDescriptor> leaves = new HashMap<>();
    for (ColumnDescriptor column : typeWithIds.getColumns()) {
      org.apache.iceberg.shaded.org.apache.parquet.schema.Type leaf =
          typeWithIds.getType(column.getPath());
      if (leaf.getId() != null && column.getMaxRepetitionLevel() == 0) {
        leaves.put(leaf.getId().intValue(), column);
      }
    }
    return leaves;
  }

  /**
   * Iceberg predicates as Parquet predicates, where the file's column has the physical type the
   * literal compares with. Null means "any row may match": an AND keeps its other side, an OR
   * becomes null. NOTs were rewritten away before.
   */
  private static final class ToParquet
      extends ExpressionVisitors.BoundExpressionVisitor<FilterPredicate> {
    private final Map<Integer, ColumnDescriptor> leaves;

    ToParquet(Map<Integer, ColumnDescriptor> leaves) {
      this.leaves = leaves;
    }

    @Override
    public <T> FilterPredicate handleNonReference(org.apache.iceberg.expressions.Bound<T> term) {
      return null; // a transform or extract: any row may match
    }

    @Override
    public FilterPredicate alwaysTrue() {
      return null;
    }

    @Override
    public FilterPredicate alwaysFalse() {
      return null;
    }

    @Override
    public FilterPredicate not(FilterPredicate result) {
      return null;
    }

    @Override
    public FilterPredicate and(FilterPredicate left, FilterPredicate right) {
      if (left == null) {
        return right;
      }
      return right == null ? left : FilterApi.and(left, right);
    }

    @Override
    public FilterPredicate or(FilterPredicate left, FilterPredicate right) {
      return left == null || right == null ? null : FilterApi.or(left, right);
    }

    @Override
    public <T> FilterPredicate isNull(BoundReference<T> ref) {
      return compare(ref, null, Op.EQ);
    }

    @Override
    public <T> FilterPredicate notNull(BoundReference<T> ref) {
      return compare(ref, null, Op.NOT_EQ);
    }

    @Override
    public <T> FilterPredicate lt(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, lit, Op.LT);
    }

    @Override
    public <T> FilterPredicate ltEq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, lit, Op.LT_EQ);
    }

    @Override
    public <T> FilterPredicate gt(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, lit, Op.GT);
    }

    @Override
    public <T> FilterPredicate gtEq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, lit, Op.GT_EQ);
    }

    @Override
    public <T> FilterPredicate eq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, lit, Op.EQ);
    }

    @Override
    public <T> FilterPredicate notEq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, lit, Op.NOT_EQ);
    }

    @Override
    public <T> FilterPredicate in(BoundReference<T> ref, Set<T> literals) {
      FilterPredicate any = null;
      for (T value : literals) {
        FilterPredicate one = compare(ref, Expressions.lit(value), Op.EQ);
        if (one == null) {
          return null;
        }
        any = any == null ? one : FilterApi.or(any, one);
      }
      return any;
    }

    @Override
    public <T> FilterPredicate notIn(BoundReference<T> ref, Set<T> literals) {
      return null;
    }

    @Override
    public <T> FilterPredicate isNaN(BoundReference<T> ref) {
      return null;
    }

    @Override
    public <T> FilterPredicate notNaN(BoundReference<T> ref) {
      return null;
    }

    @Override
    public <T> FilterPredicate startsWith(BoundReference<T> ref, Literal<T> lit) {
      return null;
    }

    @Override
    public <T> FilterPredicate notStartsWith(BoundReference<T> ref, Literal<T> lit) {
      return null;
    }

    private <T> FilterPredicate compare(BoundReference<T> ref, Literal<T> lit, Op op) {
      ColumnDescriptor column = leaves.get(ref.fieldId());
      if (column == null) {
        return null;
      }
      String path = String.join(".", column.getPath());
      PrimitiveType physical = column.getPrimitiveType();
      LogicalTypeAnnotation logical = physical.getLogicalTypeAnnotation();
      Object value = lit == null ? null : lit.value();
      Type type = ref.type();
      switch (type.typeId()) {
        case INTEGER:
        case DATE:
          if (physical.getPrimitiveTypeName() != PrimitiveTypeName.INT32
              || !(logical == null
                  || logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
                  || isSignedInt(logical, 32))) {
            return null;
          }
          return op.apply(FilterApi.intColumn(path), (Integer) value);
        case LONG:
          if (physical.getPrimitiveTypeName() != PrimitiveTypeName.INT64
              || !(logical == null || isSignedInt(logical, 64))) {
            return null;
          }
          return op.apply(FilterApi.longColumn(path), (Long) value);
        case TIMESTAMP:
          if (physical.getPrimitiveTypeName() != PrimitiveTypeName.INT64
              || !(logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation)
              || ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) logical).getUnit()
                  != LogicalTypeAnnotation.TimeUnit.MICROS
              || ((Types.TimestampType) type).shouldAdjustToUTC()
                  != ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) logical)
                      .isAdjustedToUTC()) {
            return null;
          }
          return op.apply(FilterApi.longColumn(path), (Long) value);
        case FLOAT:
          if (physical.getPrimitiveTypeName() != PrimitiveTypeName.FLOAT) {
            return null;
          }
          return op.apply(FilterApi.floatColumn(path), (Float) value);
        case DOUBLE:
          if (physical.getPrimitiveTypeName() != PrimitiveTypeName.DOUBLE) {
            return null;
          }
          return op.apply(FilterApi.doubleColumn(path), (Double) value);
        case STRING:
          if (physical.getPrimitiveTypeName() != PrimitiveTypeName.BINARY
              || !(logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation)) {
            return null;
          }
          return op.apply(
              FilterApi.binaryColumn(path),
              value == null ? null : Binary.fromString(value.toString()));
        default:
          return null;
      }
    }

    private static boolean isSignedInt(LogicalTypeAnnotation logical, int bits) {
      return logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation
          && ((LogicalTypeAnnotation.IntLogicalTypeAnnotation) logical).isSigned()
          && ((LogicalTypeAnnotation.IntLogicalTypeAnnotation) logical).getBitWidth() == bits;
    }
  }

  /** The comparisons Parquet's column index filter evaluates. */
  private enum Op {
    LT,
    LT_EQ,
    GT,
    GT_EQ,
    EQ,
    NOT_EQ;

    <C extends Comparable<C>, K extends Operators.Column<C> & Operators.SupportsLtGt>
        FilterPredicate apply(K column, C value) {
      switch (this) {
        case EQ:
          return FilterApi.eq(column, value);
        case NOT_EQ:
          return FilterApi.notEq(column, value);
        default:
          if (value == null) {
            return null;
          }
          switch (this) {
            case LT:
              return FilterApi.lt(column, value);
            case LT_EQ:
              return FilterApi.ltEq(column, value);
            case GT:
              return FilterApi.gt(column, value);
            default:
              return FilterApi.gtEq(column, value);
          }
      }
    }
  }

  /** See {@link #rangesFromCaller()}. */
  private static final class RangesFromCaller implements UnboundRecordFilter {
    @Override
    public RecordFilter bind(
        Iterable<org.apache.iceberg.shaded.org.apache.parquet.column.ColumnReader> readers) {
      throw new UnsupportedOperationException(
          "Iceberg Protector reads pages by row ranges; no Parquet record reader binds this filter");
    }
  }
}
