package io.icebergprotector.spark;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import java.io.Serializable;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.runtime.AbstractFunction1;

/**
 * One {@code protect} or {@code unprotect} call site, as the function of its {@code ScalaUDF}: one
 * value per {@link #apply}, or a batch per {@link #applyAll} (what {@link TokenCallBatching} uses
 * in server mode). Each task opens its own tokenizer and closes it, wiping the key, when it ends.
 */
final class TokenCall extends AbstractFunction1<Object, Object> implements Serializable {
  private static final long serialVersionUID = 1L;

  private final KeyScope scope;
  private final Policy policy;
  private final String keyId;
  private final String domain;
  // the method as its spec: the policy model travels as text
  private final String method;
  private final boolean forward;
  private final Kind kind;
  private transient Tokenizer tokenizer;

  private enum Kind {
    STRING,
    BINARY,
    LONG
  }

  TokenCall(KeyScope scope, Policy policy, ColumnPolicy column, boolean forward, DataType type) {
    this.scope = scope;
    this.policy = policy;
    this.keyId = column.keyId();
    this.domain = column.domain();
    this.method = column.method().spec();
    this.forward = forward;
    this.kind =
        type.equals(DataTypes.LongType)
            ? Kind.LONG
            : type.equals(DataTypes.BinaryType) ? Kind.BINARY : Kind.STRING;
  }

  /** True where each batch of values is one key server request, not one local computation. */
  boolean batchesPay() {
    return scope.kms().tokenMode() == TokenMode.SERVER;
  }

  @Override
  public Object apply(Object value) {
    if (value == null) {
      return null;
    }
    Tokenizer t = tokenizer();
    switch (kind) {
      case LONG:
        long v = ((Number) value).longValue();
        return forward ? t.protect(v) : t.unprotect(v);
      case BINARY:
        return forward ? t.protect((byte[]) value) : t.unprotect((byte[]) value);
      default:
        return forward ? t.protect((String) value) : t.unprotect((String) value);
    }
  }

  /** Replaces the first {@code count} values (nulls stay null) with their results. */
  void applyAll(Object[] values, int count) {
    Tokenizer t = tokenizer();
    switch (kind) {
      case LONG:
        long[] longs = new long[count];
        int[] at = new int[count];
        int n = 0;
        for (int i = 0; i < count; i++) {
          if (values[i] != null) {
            at[n] = i;
            longs[n++] = ((Number) values[i]).longValue();
          }
        }
        if (forward) {
          t.protectAll(longs, n);
        } else {
          t.unprotectAll(longs, n);
        }
        for (int j = 0; j < n; j++) {
          values[at[j]] = longs[j];
        }
        break;
      case BINARY:
        byte[][] binaries = new byte[count][];
        for (int i = 0; i < count; i++) {
          binaries[i] = (byte[]) values[i];
        }
        if (forward) {
          t.protectAll(binaries, count);
        } else {
          t.unprotectAll(binaries, count);
        }
        System.arraycopy(binaries, 0, values, 0, count);
        break;
      default:
        String[] strings = new String[count];
        for (int i = 0; i < count; i++) {
          strings[i] = (String) values[i];
        }
        if (forward) {
          t.protectAll(strings, count);
        } else {
          t.unprotectAll(strings, count);
        }
        System.arraycopy(strings, 0, values, 0, count);
    }
  }

  private Tokenizer tokenizer() {
    if (tokenizer == null) {
      KeyService keys = KeyServiceRegistry.obtain(scope, policy);
      ProtectionMethod m = ProtectionMethod.parse(method);
      // local: the task derives the token key; server: the values go to the key server
      tokenizer =
          keys.tokenizer(keyId, KeyService.LATEST_VERSION, domain, m, scope.kms().tokenMode());
      Tokenizer opened = tokenizer;
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener(
            (org.apache.spark.util.TaskCompletionListener) ctx -> opened.close());
      }
    }
    return tokenizer;
  }

  @Override
  public String toString() {
    return (forward ? "protect" : "unprotect") + "(domain " + domain + ")";
  }
}
