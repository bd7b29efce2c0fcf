/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.HashMaskKeys;
import io.icebergprotector.spark.masks.HashKeySource;
import io.icebergprotector.spark.masks.MaskEngine;
import io.icebergprotector.spark.masks.MaskType;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;

/**
 * The masks of a principal's view of a path, as Catalyst expressions that call the kernels of
 * {@link MaskEngine}, the same as the Iceberg read path: a value masks alike in a file under a path
 * and in an Iceberg table.
 */
final class PathMasks {
  private PathMasks() {}

  /**
   * {@code mask} over {@code value} of {@code type}.
   *
   * @throws ProtectorException if the mask does not fit the type (a policy error)
   */
  static Expression mask(
      Mask mask,
      Expression value,
      DataType type,
      KeyScope keyScope,
      Policy policy,
      String keyId,
      String column,
      String location) {
    return MaskEngine.expression(
        mask,
        value,
        MaskType.of(type),
        column,
        "under " + location,
        new HashKey(keyScope, policy, keyId));
  }

  static <T> scala.collection.immutable.List<T> seq(List<T> list) {
    return ScalaCollections.asScalaList(list);
  }

  /**
   * The principal's HMAC key of hash masks under a master key, derived by the key service where the
   * plan runs ({@link HashMaskKeys}); the plan holds only the scope and the key id, and shows only
   * the key id and the principal.
   */
  static final class HashKey implements HashKeySource {
    private static final long serialVersionUID = 1L;

    private final KeyScope keyScope;
    private final Policy policy;
    private final String keyId;

    HashKey(KeyScope keyScope, Policy policy, String keyId) {
      this.keyScope = Objects.requireNonNull(keyScope, "keyScope");
      this.policy = Objects.requireNonNull(policy, "policy");
      this.keyId = Objects.requireNonNull(keyId, "keyId");
    }

    @Override
    public byte[] get() {
      return HashMaskKeys.get(keyScope, policy, keyId);
    }

    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof HashKey)) {
        return false;
      }
      HashKey other = (HashKey) o;
      return keyId.equals(other.keyId) && keyScope.equals(other.keyScope);
    }

    @Override
    public int hashCode() {
      return Objects.hash(keyId, keyScope);
    }

    @Override
    public String toString() {
      return "hash(key=" + keyId + ", principal=" + keyScope.principal() + ")";
    }
  }
}
