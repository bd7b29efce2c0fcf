package io.icebergprotector.spark.read;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Masks;
import java.util.function.IntUnaryOperator;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Masks over whole column vectors, for the columnar read path: one typed loop per batch and
 * column, writing into an on-heap vector that the mask owns and reuses from batch to batch (Spark
 * consumes a batch before asking for the next, as Iceberg's own reused Arrow vectors assume).
 * Nulls stay null. The per-value kernels are those of {@link ValueMasks}, so rows and vectors mask
 * alike.
 */
final class VectorMasks {
  private VectorMasks() {}

  /**
   * The vector mask of a masked column. NULL masks never get here: such columns are constant NULL
   * vectors that are never read.
   *
   * @param hashKey the column's HMAC key, fetched only when a value is first hashed
   * @param column the column path, for error messages
   * @throws io.icebergprotector.spark.ProtectorException if the mask does not fit the type
   */
  static VectorMask forType(Mask mask, Type type, Supplier<byte[]> hashKey, String column) {
    DataType sparkType = SparkSchemaUtil.convert(type);
    switch (mask.kind()) {
      case REDACT:
        ValueMasks.checkRedactable(mask, type, column);
        return new ConstantMask(sparkType, ValueMasks.redacted(type));
      case PARTIAL:
        if (type.typeId() == Type.TypeID.STRING) {
          int keep = mask.keepLast();
          return new StringMask(sparkType, value -> ValueMasks.partial(value, keep));
        }
        throw ValueMasks.unsupported(mask, type, column);
      case YEAR:
        if (type.typeId() == Type.TypeID.DATE) {
          return new IntMask(sparkType, Masks::yearOfEpochDay);
        } else if (type.typeId() == Type.TypeID.TIMESTAMP) {
          return new LongMask(sparkType, Masks::yearOfEpochMicros);
        }
        throw ValueMasks.unsupported(mask, type, column);
      case HASH:
        return hash(mask, type, sparkType, new ValueHash(hashKey), column);
      default:
        throw ValueMasks.unsupported(mask, type, column);
    }
  }

  private static VectorMask hash(
      Mask mask, Type type, DataType sparkType, ValueHash hash, String column) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
        return new StringMask(sparkType, hash::string);
      case BINARY:
        return new BinaryMask(sparkType, hash::digest);
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return new BinaryMask(sparkType, value -> hash.fixed(value, length));
      case INTEGER:
        return new IntMask(sparkType, hash::ofInt);
      case DATE:
        return new IntMask(sparkType, hash::ofDate);
      case LONG:
        return new LongMask(sparkType, hash::ofLong);
      case TIMESTAMP:
        boolean withZone = ((Types.TimestampType) type).shouldAdjustToUTC();
        return new LongMask(sparkType, value -> hash.ofTimestamp(value, withZone));
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        int precision = decimal.precision();
        int scale = decimal.scale();
        return new DecimalMask(
            sparkType, precision, scale, value -> hash.ofDecimal(value, precision, scale));
      default:
        throw ValueMasks.unsupported(mask, type, column);
    }
  }

  /** A mask over one column's vectors. Not thread-safe: one per reader. */
  abstract static class VectorMask implements AutoCloseable {
    private final DataType sparkType;
    private WritableColumnVector out = null;
    private int capacity = 0;

    VectorMask(DataType sparkType) {
      this.sparkType = sparkType;
    }

    /**
     * The masked copy of the first {@code numRows} values of {@code in}. The result is valid until
     * the next call.
     */
    final ColumnVector apply(ColumnVector in, int numRows) {
      if (out == null || capacity < numRows) {
        close();
        capacity = Math.max(numRows, 1);
        out = new OnHeapColumnVector(capacity, sparkType);
      } else {
        out.reset();
      }
      fill(in, numRows, out);
      return out;
    }

    abstract void fill(ColumnVector in, int numRows, WritableColumnVector out);

    @Override
    public void close() {
      if (out != null) {
        out.close();
        out = null;
      }
    }
  }

  private static final class IntMask extends VectorMask {
    private final IntUnaryOperator fn;

    IntMask(DataType sparkType, IntUnaryOperator fn) {
      super(sparkType);
      this.fn = fn;
    }

    @Override
    void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putInt(i, fn.applyAsInt(in.getInt(i)));
        }
      }
    }
  }

  private static final class LongMask extends VectorMask {
    private final LongUnaryOperator fn;

    LongMask(DataType sparkType, LongUnaryOperator fn) {
      super(sparkType);
      this.fn = fn;
    }

    @Override
    void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putLong(i, fn.applyAsLong(in.getLong(i)));
        }
      }
    }
  }

  private static final class StringMask extends VectorMask {
    private final UnaryOperator<UTF8String> fn;

    StringMask(DataType sparkType, UnaryOperator<UTF8String> fn) {
      super(sparkType);
      this.fn = fn;
    }

    @Override
    void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putByteArray(i, fn.apply(in.getUTF8String(i)).getBytes());
        }
      }
    }
  }

  private static final class BinaryMask extends VectorMask {
    private final UnaryOperator<byte[]> fn;

    BinaryMask(DataType sparkType, UnaryOperator<byte[]> fn) {
      super(sparkType);
      this.fn = fn;
    }

    @Override
    void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putByteArray(i, fn.apply(in.getBinary(i)));
        }
      }
    }
  }

  private static final class DecimalMask extends VectorMask {
    private final int precision;
    private final int scale;
    private final UnaryOperator<Decimal> fn;

    DecimalMask(DataType sparkType, int precision, int scale, UnaryOperator<Decimal> fn) {
      super(sparkType);
      this.precision = precision;
      this.scale = scale;
      this.fn = fn;
    }

    @Override
    void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putDecimal(i, fn.apply(in.getDecimal(i, precision, scale)), precision);
        }
      }
    }
  }

  /** {@code redact}: the type's constant wherever the input is not null; values are never read. */
  private static final class ConstantMask extends VectorMask {
    private final Object constant;

    ConstantMask(DataType sparkType, Object constant) {
      super(sparkType);
      this.constant = constant;
    }

    @Override
    void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      for (int i = 0; i < numRows; i++) {
        if (in.isNullAt(i)) {
          out.putNull(i);
        } else {
          put(out, i);
        }
      }
    }

    private void put(WritableColumnVector out, int row) {
      if (constant instanceof UTF8String) {
        out.putByteArray(row, ((UTF8String) constant).getBytes());
      } else if (constant instanceof byte[]) {
        out.putByteArray(row, (byte[]) constant);
      } else if (constant instanceof Integer) {
        out.putInt(row, (Integer) constant);
      } else if (constant instanceof Long) {
        out.putLong(row, (Long) constant);
      } else if (constant instanceof Boolean) {
        out.putBoolean(row, (Boolean) constant);
      } else if (constant instanceof Float) {
        out.putFloat(row, (Float) constant);
      } else if (constant instanceof Double) {
        out.putDouble(row, (Double) constant);
      } else if (constant instanceof Decimal) {
        Decimal decimal = (Decimal) constant;
        out.putDecimal(row, decimal, decimal.precision());
      } else {
        throw new IllegalStateException("Unexpected redaction constant: " + constant.getClass());
      }
    }
  }
}
