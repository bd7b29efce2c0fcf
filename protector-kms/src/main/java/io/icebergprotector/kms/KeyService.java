package io.icebergprotector.kms;

import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ProtectionMethod;
import java.util.List;

/**
 * Holds master keys and wraps/unwraps data keys under them. The master key material never leaves
 * the implementation; callers only see wrapped blobs in Vault Transit format ({@code
 * vault:v<N>:<base64>}).
 *
 * <p>Every failure is a typed {@link KeyServiceException}; a refusal is never answered with a wrong
 * key.
 */
public interface KeyService extends AutoCloseable {

  /**
   * Creates version 1 of a new master key. @throws KeyAlreadyExistsException if the id exists (or
   * was destroyed)
   */
  KeyInfo createKey(String keyId);

  /**
   * Adds version latest+1, which becomes the version used by {@link #wrap}; old versions still
   * unwrap.
   */
  KeyInfo rotateKey(String keyId);

  /**
   * Crypto-shredding: removes all versions' material; later wrap/unwrap throw {@link
   * KeyDestroyedException}.
   */
  void destroyKey(String keyId);

  /**
   * Retires every version below {@code minDecryptionVersion}: from then on {@link #unwrap} of a
   * blob wrapped under such a version throws {@link KeyVersionRetiredException}. The minimum only
   * moves forward (setting the current value again is a no-op) and cannot exceed the latest
   * version. {@link #deriveKey} is unaffected.
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

  /**
   * Wraps a data key under the latest version of the master key; returns {@code
   * vault:v<N>:<base64>}.
   */
  String wrap(String keyId, byte[] plaintext);

  /**
   * Unwraps a blob produced by {@link #wrap} for the same key id; the version is read from the
   * blob.
   *
   * @throws KeyIntegrityException if the tag does not verify or the blob was wrapped under another
   *     key id
   */
  byte[] unwrap(String keyId, String wrapped);

  /**
   * The prefix of the {@link #deriveKey} contexts of the protector's own keys: a key service
   * releases none of them but {@link #HASH_MASK_CONTEXT}, and that one only to the principals that
   * mask with it ({@link KeyGrants#checkDerive}).
   */
  String RESERVED_CONTEXT_PREFIX = "iceberg-protector/";

  /**
   * The {@link #deriveKey} context of the keys of {@code hash} masks of PME columns, one per master
   * key: the Spark readers of a masked column derive it (its principal holds the column key
   * anyway).
   */
  String HASH_MASK_CONTEXT = "iceberg-protector/mask/hash/v1";

  /**
   * The {@link #deriveKey} context of the key server's {@code hash} masks of tokenized columns
   * (server token mode), one per master key. It is never released: the masked reader of a tokenized
   * column holds neither its token key nor this key, so it cannot hash candidates to reverse a
   * mask.
   */
  String TOKEN_HASH_MASK_CONTEXT = "iceberg-protector/mask/hash/token/v1";

  /**
   * HMAC-SHA256(version-1 material of keyId, UTF-8 context): 32 bytes, stable across rotation (hash
   * masks).
   */
  byte[] deriveKey(String keyId, String context);

  /** {@link #deriveTokenKey}'s version for the latest version of the master key. */
  int LATEST_VERSION = 0;

  /**
   * The token key of ({@code keyId}, {@code version}, {@code domain}) for a tokenizing method: HKDF
   * of that version's material (see {@link TokenKey#derive}). {@link #LATEST_VERSION} asks for the
   * latest version (writers); the returned key names the version it was derived from. A retired
   * version is refused, as for {@link #unwrap}. The caller closes the key to wipe it.
   *
   * @throws TokenKeysUnsupportedException where the implementation cannot derive token keys
   */
  default TokenKey deriveTokenKey(
      String keyId, int version, String domain, ProtectionMethod.Kind kind) {
    throw new TokenKeysUnsupportedException(
        "Cannot derive token keys with " + this + ": it has no token-key derivation");
  }

  /**
   * A tokenizer of {@code domain} under ({@code keyId}, {@code version}; {@link #LATEST_VERSION}
   * for writers). {@link TokenMode#LOCAL} derives the token key ({@link #deriveTokenKey}, with its
   * checks and audit) and tokenizes in this process; {@link TokenMode#SERVER} leaves the key in the
   * key service, which tokenizes each batch the tokenizer sends. The caller closes the tokenizer.
   *
   * @throws KeyServiceException where the mode is not available, or the key is refused
   */
  default Tokenizer tokenizer(
      String keyId, int version, String domain, ProtectionMethod method, TokenMode mode) {
    if (mode == TokenMode.SERVER) {
      throw new KeyServiceException(
          "Cannot tokenize domain '"
              + domain
              + "' in token mode server with "
              + this
              + ": only a key server tokenizes for its callers; use token mode local");
    }
    try (TokenKey key = deriveTokenKey(keyId, version, domain, method.kind())) {
      return Tokenizer.of(key, method);
    }
  }

  @Override
  void close();
}
