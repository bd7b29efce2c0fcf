package io.icebergprotector.spark.masks;

import java.util.Arrays;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code partial(keep_last=N)} on strings: every code point but the last N becomes {@code '*'}, so
 * the result has as many characters as the value ({@code "123-45-6789"} with N = 4 is {@code
 * "*******6789"}).
 */
public final class PartialMask {
  private PartialMask() {}

  /** The value kernel, on UTF-8 bytes (no round trip through a String). Public for Catalyst. */
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

  static ColumnMask bind(MaskType type, int keepLast) {
    return ColumnMask.strings(type, value -> partial(value, keepLast));
  }

  static Expression expression(Expression value, MaskType type, int keepLast) {
    return MaskEngine.staticInvoke(
        PartialMask.class,
        type.sparkType(),
        "partial",
        value,
        new Literal(keepLast, DataTypes.IntegerType));
  }
}
