package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Masks;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.ProtectorException;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.objects.Invoke;
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Policy masks as Catalyst expressions over Spark values, with the semantics of the Iceberg read
 * path and of {@link Masks}: {@code redact} constants, {@code partial} on code points, {@code year}
 * in UTC, {@code hash} through {@link HashMask}. Nulls stay null under every mask.
 */
public final class PathMasks {
  private static final UTF8String REDACTED_STRING = UTF8String.fromString(Masks.REDACTED_STRING);

  private PathMasks() {}

  /** The policy's name for a Spark type, for {@link Mask#appliesTo}. */
  static ColumnType columnType(DataType type) {
    if (type instanceof StringType) {
      return ColumnType.STRING;
    } else if (type instanceof BinaryType) {
      return ColumnType.BINARY;
    } else if (type instanceof BooleanType) {
      return ColumnType.BOOLEAN;
    } else if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
      return ColumnType.INT;
    } else if (type instanceof LongType) {
      return ColumnType.LONG;
    } else if (type instanceof FloatType) {
      return ColumnType.FLOAT;
    } else if (type instanceof DoubleType) {
      return ColumnType.DOUBLE;
    } else if (type instanceof DecimalType) {
      return ColumnType.DECIMAL;
    } else if (type instanceof DateType) {
      return ColumnType.DATE;
    } else if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      return ColumnType.TIMESTAMP;
    } else if (type instanceof StructType) {
      return ColumnType.STRUCT;
    } else if (type instanceof ArrayType) {
      return ColumnType.LIST;
    } else if (type instanceof MapType) {
      return ColumnType.MAP;
    }
    return ColumnType.OTHER;
  }

  /**
   * {@code mask} over {@code value} of {@code type}.
   *
   * @throws ProtectorException if the mask does not fit the type (a policy error)
   */
  static Expression mask(
      Mask mask, Expression value, DataType type, KeyScope keyScope, Policy policy, String keyId,
      String column, String location) {
    ColumnType columnType = columnType(type);
    if (!mask.appliesTo(columnType)) {
      throw new ProtectorException(
          String.format(
              "Mask '%s' of column '%s' under %s cannot be applied to type %s; fix the policy (the"
                  + " mask fits: %s)",
              mask.spec(), column, location, type.simpleString(), mask.applicableTypes()));
    }
    switch (mask.kind()) {
      case NULL:
        return new Literal(null, type);
      case REDACT:
        return new If(new IsNull(value), new Literal(null, type), new Literal(redacted(type), type));
      case PARTIAL:
        return staticInvoke(
            PathMasks.class, type, "partial", value,
            new Literal(mask.keepLast(), DataTypes.IntegerType));
      case YEAR:
        return type instanceof DateType
            ? staticInvoke(Masks.class, type, "yearOfEpochDay", value)
            : staticInvoke(Masks.class, type, "yearOfEpochMicros", value);
      case HASH:
        int precision = type instanceof DecimalType ? ((DecimalType) type).precision() : 0;
        int scale = type instanceof DecimalType ? ((DecimalType) type).scale() : 0;
        HashMask hash = new HashMask(keyScope, policy, keyId, precision, scale);
        return new Invoke(
            Literal.fromObject(hash), hashMethod(type), type, seq(List.of(value)), seq(List.of()),
            true, true, true);
      default:
        throw new ProtectorException("Unknown mask " + mask.spec());
    }
  }

  private static String hashMethod(DataType type) {
    if (type instanceof StringType) {
      return "hashString";
    } else if (type instanceof BinaryType) {
      return "hashBinary";
    } else if (type instanceof ByteType) {
      return "hashByte";
    } else if (type instanceof ShortType) {
      return "hashShort";
    } else if (type instanceof IntegerType) {
      return "hashInt";
    } else if (type instanceof LongType) {
      return "hashLong";
    } else if (type instanceof DecimalType) {
      return "hashDecimal";
    } else if (type instanceof DateType) {
      return "hashDate";
    } else if (type instanceof TimestampType) {
      return "hashTimestamp";
    } else if (type instanceof TimestampNTZType) {
      return "hashTimestampNtz";
    }
    throw new IllegalArgumentException("No hash mask for type " + type);
  }

  /** The {@code redact} constant as a Spark internal value (see {@link Masks}). */
  static Object redacted(DataType type) {
    if (type instanceof StringType) {
      return REDACTED_STRING;
    } else if (type instanceof BinaryType) {
      return Masks.redactedBinary();
    } else if (type instanceof BooleanType) {
      return Masks.REDACTED_BOOLEAN;
    } else if (type instanceof ByteType) {
      return (byte) 0;
    } else if (type instanceof ShortType) {
      return (short) 0;
    } else if (type instanceof IntegerType || type instanceof DateType) {
      return 0;
    } else if (type instanceof LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      return 0L;
    } else if (type instanceof FloatType) {
      return Masks.REDACTED_FLOAT;
    } else if (type instanceof DoubleType) {
      return Masks.REDACTED_DOUBLE;
    } else if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return Decimal.apply(0L, decimal.precision(), decimal.scale());
    }
    throw new IllegalArgumentException("No redaction constant for type " + type);
  }

  /**
   * {@link Masks#partial} on UTF-8: every code point but the last {@code keepLast} becomes {@code
   * '*'}. Public for generated code.
   */
  public static UTF8String partial(UTF8String value, int keepLast) {
    int total = value.numChars();
    int hide = Math.max(0, total - Math.max(0, keepLast));
    if (hide == 0) {
      return value;
    }
    UTF8String kept = value.substring(hide, total);
    byte[] out = new byte[hide + kept.numBytes()];
    Arrays.fill(out, 0, hide, (byte) '*');
    kept.writeToMemory(out, Platform.BYTE_ARRAY_OFFSET + hide);
    return UTF8String.fromBytes(out);
  }

  private static StaticInvoke staticInvoke(
      Class<?> target, DataType type, String method, Expression... arguments) {
    return new StaticInvoke(
        target, type, method, seq(Arrays.asList(arguments)), seq(List.<AbstractDataType>of()),
        true, true, true);
  }

  static <T> scala.collection.immutable.Seq<T> seq(List<T> list) {
    return CollectionConverters.asScala(list).toList();
  }
}
