package io.icebergprotector.server;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.TablePolicy;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Server token mode, table reads: a decode request names the table column it reads, and the caller
 * gets the view the server's policy gives it on that column. A clear reader gets the values; a
 * masked reader gets the column's mask applied here, so the clear value never leaves the server;
 * token and denied readers get nothing (they never need the server). The masks have the form the
 * Spark readers give for the column types a tokenized column can have (string, binary, int, long):
 * {@code null}, {@code redact} ({@code "****"}, empty bytes, 0), {@code partial(keep_last=N)} on
 * code points, and {@code hash}: HMAC-SHA256 over the UTF-8 text of the value, or its bytes for
 * binary; hex for strings, the 32 digest bytes for binary, the first 8 (long) or 4 (int) digest
 * bytes big-endian as a signed number. The hash key is derived with {@link
 * KeyService#TOKEN_HASH_MASK_CONTEXT} from the column's master key and never leaves the server:
 * whoever held it could hash every candidate of a small domain and read the values behind the
 * masks.
 */
final class TokenColumnView {
  private static final String HMAC_SHA256 = "HmacSHA256";
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final String table;
  private final String column;
  private final AccessLevel level;
  private final Mask mask;
  private final boolean ints;

  private TokenColumnView(String table, String column, Access access, boolean ints) {
    this.table = table;
    this.column = column;
    this.level = access.level();
    this.mask = access.level() == AccessLevel.MASKED ? access.mask() : null;
    this.ints = ints;
  }

  /**
   * The view of {@code column} of {@code table} for a caller with {@code roles}, or empty when the
   * policy has no such tokenized column of ({@code keyId}, {@code domain}): the caller gets the
   * same refusal as for a column it may not read.
   */
  static Optional<TokenColumnView> of(
      Policy policy,
      Set<String> roles,
      String keyId,
      String domain,
      String table,
      String column,
      boolean ints) {
    Optional<TablePolicy> entry = policy.table(table);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    for (ColumnPolicy c : entry.get().columns()) {
      if (c.path().equalsIgnoreCase(column)
          && c.tokenized()
          && c.keyId().equals(keyId)
          && c.domain().equals(domain)) {
        return Optional.of(new TokenColumnView(table, c.path(), c.accessFor(roles), ints));
      }
    }
    return Optional.empty();
  }

  /** Whether the caller reads the column detokenized: clear, or masked by the server. */
  boolean readable() {
    return level == AccessLevel.CLEAR || level == AccessLevel.MASKED;
  }

  /** The mask this server applies, or null for clear values. */
  Mask mask() {
    return mask;
  }

  /** {@code table.column}, for the audit line. */
  String name() {
    return table + "." + column;
  }

  /**
   * Replaces the decoded values by their masks in place (nulls stay null). Values are as in the
   * answer: strings, base64 strings of binary values, longs.
   *
   * @param keys derives the hash mask's key (only for {@code hash})
   * @param keyId the column's master key
   */
  void apply(Object[] values, boolean binary, KeyService keys, String keyId) {
    apply(values, binary, () -> keys.deriveKey(keyId, KeyService.TOKEN_HASH_MASK_CONTEXT));
  }

  /**
   * As {@link #apply(Object[], boolean, KeyService, String)}, with the hash mask's key from {@code
   * hashKey} (a copy this method wipes), asked for only by {@code hash} masks.
   */
  void apply(Object[] values, boolean binary, Supplier<byte[]> hashKey) {
    if (mask == null) {
      return;
    }
    Mac mac = mask.kind() == Mask.Kind.HASH ? mac(hashKey.get()) : null;
    for (int i = 0; i < values.length; i++) {
      if (values[i] != null) {
        values[i] = maskOne(values[i], binary, mac);
      }
    }
  }

  private Object maskOne(Object value, boolean binary, Mac mac) {
    switch (mask.kind()) {
      case NULL:
        return null;
      case REDACT:
        if (value instanceof Long) {
          return 0L;
        }
        return binary ? "" : "****";
      case PARTIAL:
        if (value instanceof Long || binary) {
          throw unsupported();
        }
        return partial((String) value, mask.keepLast());
      case HASH:
        if (value instanceof Long) {
          long hash =
              first8(mac.doFinal(Long.toString((Long) value).getBytes(StandardCharsets.UTF_8)));
          return ints ? (long) (int) (hash >> 32) : hash;
        }
        if (binary) {
          byte[] raw = Base64.getDecoder().decode((String) value);
          return Base64.getEncoder().encodeToString(mac.doFinal(raw));
        }
        return hex(mac.doFinal(((String) value).getBytes(StandardCharsets.UTF_8)));
      default:
        throw unsupported();
    }
  }

  private IllegalArgumentException unsupported() {
    return new IllegalArgumentException(
        "Cannot apply mask " + mask.spec() + " of column " + name() + " to its tokenized values");
  }

  /** Every code point but the last {@code keepLast} becomes {@code '*'}. */
  private static String partial(String value, int keepLast) {
    int total = value.codePointCount(0, value.length());
    int hide = Math.max(0, total - Math.max(0, keepLast));
    if (hide == 0) {
      return value;
    }
    int kept = value.offsetByCodePoints(0, hide);
    return "*".repeat(hide) + value.substring(kept);
  }

  private static Mac mac(byte[] key) {
    try {
      Mac mac = Mac.getInstance(HMAC_SHA256);
      mac.init(new SecretKeySpec(key, HMAC_SHA256));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot key " + HMAC_SHA256, e);
    } finally {
      Arrays.fill(key, (byte) 0); // the Mac keeps its own copy
    }
  }

  private static long first8(byte[] digest) {
    long result = 0;
    for (int i = 0; i < 8; i++) {
      result = (result << 8) | (digest[i] & 0xffL);
    }
    return result;
  }

  private static String hex(byte[] digest) {
    char[] out = new char[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      out[2 * i] = HEX[(digest[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[digest[i] & 0xf];
    }
    return new String(out);
  }
}
