package io.icebergprotector.spark.masks;

import java.util.function.IntUnaryOperator;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One mask bound to one column type, with its two kernels over Spark's internal values: the value
 * kernel {@link #apply} masks one value (row reads), the vector kernel {@link #fill} a column
 * vector (columnar reads). Both run the same per-value function of the mask, so a row and a vector
 * of the same value always mask alike. The vector kernel is one typed loop per value type (no
 * boxing, no allocation beyond what the mask's function does). Nulls stay null. Build one with
 * {@link MaskEngine#columnMask}; not thread-safe (a hash mask keeps one keyed HMAC): one per
 * reader.
 */
public abstract class ColumnMask {
  private final MaskType type;

  ColumnMask(MaskType type) {
    this.type = type;
  }

  /** The type of the values, and of the masked values (a mask keeps the column's type). */
  public MaskType type() {
    return type;
  }

  /** The masked form of one non-null value (null for the {@code null} mask). */
  public abstract Object apply(Object value);

  /**
   * Writes the masked form of the first {@code numRows} values of {@code in} to {@code out}, a
   * vector of {@link #type()} with room for them; a NULL input is a NULL output.
   */
  public abstract void fill(ColumnVector in, int numRows, WritableColumnVector out);

  // The shapes of the kernels, one per value type. Each takes a primitive or reference function,
  // so the loops neither box nor dispatch on the type per value.

  static ColumnMask ints(MaskType type, IntUnaryOperator fn) {
    return new Ints(type, fn);
  }

  static ColumnMask longs(MaskType type, LongUnaryOperator fn) {
    return new Longs(type, fn);
  }

  /** Bytes: {@code fn} returns a value in the byte range. */
  static ColumnMask bytes(MaskType type, IntUnaryOperator fn) {
    return new Bytes(type, fn);
  }

  /** Shorts: {@code fn} returns a value in the short range. */
  static ColumnMask shorts(MaskType type, IntUnaryOperator fn) {
    return new Shorts(type, fn);
  }

  static ColumnMask strings(MaskType type, UnaryOperator<UTF8String> fn) {
    return new Strings(type, fn);
  }

  static ColumnMask binaries(MaskType type, UnaryOperator<byte[]> fn) {
    return new Binaries(type, fn);
  }

  static ColumnMask decimals(MaskType type, UnaryOperator<Decimal> fn) {
    return new Decimals(type, fn);
  }

  /**
   * The same value for every non-null input, which is never read.
   *
   * @param constant a fresh copy of the value per call (arrays are mutable)
   * @param put writes the value at a row of a vector
   */
  static ColumnMask constant(
      MaskType type, Supplier<Object> constant, RowWriter put) {
    return new Constant(type, constant, put);
  }

  static ColumnMask nulls(MaskType type) {
    return new Nulls(type);
  }

  /** Writes a fixed value at one row of a vector. */
  @FunctionalInterface
  interface RowWriter {
    void put(WritableColumnVector out, int row);
  }

  private static final class Ints extends ColumnMask {
    private final IntUnaryOperator fn;

    Ints(MaskType type, IntUnaryOperator fn) {
      super(type);
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return fn.applyAsInt((Integer) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
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

  private static final class Longs extends ColumnMask {
    private final LongUnaryOperator fn;

    Longs(MaskType type, LongUnaryOperator fn) {
      super(type);
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return fn.applyAsLong((Long) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
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

  private static final class Bytes extends ColumnMask {
    private final IntUnaryOperator fn;

    Bytes(MaskType type, IntUnaryOperator fn) {
      super(type);
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return (byte) fn.applyAsInt((Byte) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putByte(i, (byte) fn.applyAsInt(in.getByte(i)));
        }
      }
    }
  }

  private static final class Shorts extends ColumnMask {
    private final IntUnaryOperator fn;

    Shorts(MaskType type, IntUnaryOperator fn) {
      super(type);
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return (short) fn.applyAsInt((Short) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          out.putShort(i, (short) fn.applyAsInt(in.getShort(i)));
        }
      }
    }
  }

  private static final class Strings extends ColumnMask {
    private final UnaryOperator<UTF8String> fn;

    Strings(MaskType type, UnaryOperator<UTF8String> fn) {
      super(type);
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return fn.apply((UTF8String) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
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

  private static final class Binaries extends ColumnMask {
    private final UnaryOperator<byte[]> fn;

    Binaries(MaskType type, UnaryOperator<byte[]> fn) {
      super(type);
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return fn.apply((byte[]) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
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

  private static final class Decimals extends ColumnMask {
    private final int precision;
    private final int scale;
    private final UnaryOperator<Decimal> fn;

    Decimals(MaskType type, UnaryOperator<Decimal> fn) {
      super(type);
      DecimalType decimal = (DecimalType) type.sparkType();
      this.precision = decimal.precision();
      this.scale = decimal.scale();
      this.fn = fn;
    }

    @Override
    public Object apply(Object value) {
      return fn.apply((Decimal) value);
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
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

  private static final class Constant extends ColumnMask {
    private final Supplier<Object> constant;
    private final RowWriter put;

    Constant(MaskType type, Supplier<Object> constant, RowWriter put) {
      super(type);
      this.constant = constant;
      this.put = put;
    }

    @Override
    public Object apply(Object value) {
      return constant.get();
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      boolean nulls = in.hasNull();
      for (int i = 0; i < numRows; i++) {
        if (nulls && in.isNullAt(i)) {
          out.putNull(i);
        } else {
          put.put(out, i);
        }
      }
    }
  }

  private static final class Nulls extends ColumnMask {
    Nulls(MaskType type) {
      super(type);
    }

    @Override
    public Object apply(Object value) {
      return null;
    }

    @Override
    public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
      out.putNulls(0, numRows);
    }
  }
}
