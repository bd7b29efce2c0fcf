/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import java.util.List;

/**
 * The lifecycle of master keys: create, rotate, retire old versions, destroy (crypto-shredding),
 * list and describe. Key administrators and {@code bin/protector keys} use it; readers and writers
 * never need it.
 */
public interface KeyAdministration {
  /**
   * Creates version 1 of a new master key. @throws KeyAlreadyExistsException if the id exists (or
   * was destroyed)
   */
  KeyInfo createKey(String keyId);

  /**
   * Adds version latest+1, which becomes the version used by {@link KeyWrapping#wrapKey}; old
   * versions still unwrap.
   */
  KeyInfo rotateKey(String keyId);

  /**
   * Crypto-shredding: removes all versions' material; later wraps and unwraps throw {@link
   * KeyDestroyedException}.
   */
  void destroyKey(String keyId);

  /**
   * Retires every version below {@code minDecryptionVersion}: from then on {@link
   * KeyWrapping#unwrapKey} of a blob wrapped under such a version throws {@link
   * KeyVersionRetiredException}. The minimum only moves forward (setting the current value again is
   * a no-op) and cannot exceed the latest version. {@link KeyWrapping#deriveKey} is unaffected.
   *
   * @throws IllegalArgumentException if the minimum is below the current one or above the latest
   *     version
   * @throws KeyNotFoundException if the key does not exist
   */
  KeyInfo setMinDecryptionVersion(String keyId, int minDecryptionVersion);

  List<KeyInfo> listKeys();

  /**
   * @throws KeyNotFoundException if the key does not exist
   */
  KeyInfo describeKey(String keyId);
}
