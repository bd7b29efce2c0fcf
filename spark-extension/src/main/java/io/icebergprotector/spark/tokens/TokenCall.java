/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.spark.core.PrincipalBinding;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.runtime.AbstractFunction1;

/**
 * One {@code protect} or {@code unprotect} call site, as the function of its {@code ScalaUDF}: one
 * value per {@link #apply}, or a batch per {@link #applyAll} (what {@link TokenCallBatching} uses
 * in server mode). Each task opens its own tokenizer and closes it, wiping the key, when it ends.
 *
 * <p>The analyzer builds a call <em>unbound</em>: it names the catalog and domain but holds no
 * keys, so a view, a global temp view or a DataFrame carries no principal's keys to whoever runs
 * it. {@link TokenCallBinding} binds each call, in the session that optimizes the query, to that
 * session's principal ({@link #boundTo}); a call that was never bound refuses to run. In local mode
 * a bound call's tasks also check that their session still acts as that principal.
 */
final class TokenCall extends AbstractFunction1<Object, Object> implements Serializable {
  private static final long serialVersionUID = 2L;

  private final String catalogName;
  private final String keyId;
  private final String domain;
  // the method as its spec: the policy model travels as text
  private final String method;
  private final boolean forward;
  private final Kind kind;
  // set by boundTo, in the session that runs the query
  private final KeyScope scope;
  private final Policy policy;
  private final PrincipalBinding binding;
  private transient Tokenizer tokenizer;

  private enum Kind {
    STRING,
    BINARY,
    LONG
  }

  /** An unbound call of {@code catalogName}'s token domain {@code column.domain()}. */
  TokenCall(String catalogName, ColumnPolicy column, boolean forward, DataType type) {
    this(
        catalogName,
        column.keyId(),
        column.domain(),
        column.method().spec(),
        forward,
        type.equals(DataTypes.LongType)
            ? Kind.LONG
            : type.equals(DataTypes.BinaryType) ? Kind.BINARY : Kind.STRING,
        null,
        null,
        null);
  }

  private TokenCall(
      String catalogName,
      String keyId,
      String domain,
      String method,
      boolean forward,
      Kind kind,
      KeyScope scope,
      Policy policy,
      PrincipalBinding binding) {
    this.catalogName = catalogName;
    this.keyId = keyId;
    this.domain = domain;
    this.method = method;
    this.forward = forward;
    this.kind = kind;
    this.scope = scope;
    this.policy = policy;
    this.binding = binding;
  }

  /** This call with the keys of the principal that {@code binding} names. */
  TokenCall boundTo(KeyScope keyScope, Policy keyPolicy, PrincipalBinding principalBinding) {
    return new TokenCall(
        catalogName,
        keyId,
        domain,
        method,
        forward,
        kind,
        Objects.requireNonNull(keyScope, "scope"),
        Objects.requireNonNull(keyPolicy, "policy"),
        Objects.requireNonNull(principalBinding, "binding"));
  }

  String catalogName() {
    return catalogName;
  }

  String domain() {
    return domain;
  }

  boolean forward() {
    return forward;
  }

  /** The principal this call runs as, or null while unbound. */
  PrincipalBinding binding() {
    return binding;
  }

  /** E.g. {@code unprotect(token, 'ssn')}, for messages. */
  String describe() {
    return (forward ? "protect(value, '" : "unprotect(token, '") + domain + "')";
  }

  /** True where each batch of values is one key server request, not one local computation. */
  boolean batchesPay() {
    return scope != null && scope.kms().tokenMode() == TokenMode.SERVER;
  }

  @Override
  public Object apply(Object value) {
    if (value == null) {
      return null;
    }
    if (TaskContext.get() == null) {
      // the driver (the optimizer folding a call over a local relation): no task ends to wipe a
      // key that stays open, so each evaluation opens and closes its own tokenizer
      try (Tokenizer t = openTokenizer()) {
        return apply(t, value);
      }
    }
    return apply(tokenizer(), value);
  }

  private Object apply(Tokenizer t, Object value) {
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
      tokenizer = openTokenizer();
      Tokenizer opened = tokenizer;
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener(
            (org.apache.spark.util.TaskCompletionListener) ctx -> opened.close());
      }
    }
    return tokenizer;
  }

  private Tokenizer openTokenizer() {
    if (binding == null) {
      // fail closed: only TokenCallBinding gives a call keys, for the session that runs it
      throw new ProtectorException(
          String.format(
              "Cannot run %s: the call was not bound to the principal of the session that runs"
                  + " it (the session has no Iceberg Protector session extension, or the plan"
                  + " skipped its analyzer)",
              describe()));
    }
    binding.checkTask();
    KeyService keys = KeyServiceRegistry.obtain(scope, policy);
    // local: the task derives the token key; server: the values go to the key server
    return keys.tokenizer(
        keyId,
        KeyService.LATEST_VERSION,
        domain,
        ProtectionMethod.parse(method),
        scope.kms().tokenMode());
  }

  // Equal calls are the same call for the same principal: Spark compares plans (its cache, its
  // common-subexpression elimination) through their functions.
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TokenCall)) {
      return false;
    }
    TokenCall other = (TokenCall) o;
    return catalogName.equals(other.catalogName)
        && keyId.equals(other.keyId)
        && domain.equals(other.domain)
        && method.equals(other.method)
        && forward == other.forward
        && kind == other.kind
        && Objects.equals(binding, other.binding);
  }

  @Override
  public int hashCode() {
    return Objects.hash(catalogName, domain, forward, kind, binding);
  }

  @Override
  public String toString() {
    return (forward ? "protect" : "unprotect")
        + "(domain "
        + domain
        + (binding == null ? ", unbound" : ", as " + binding)
        + ")";
  }
}
