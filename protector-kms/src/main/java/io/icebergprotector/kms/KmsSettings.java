/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.kms.KmsOptions.ALLOW_INSECURE_HTTP;
import static io.icebergprotector.kms.KmsOptions.CREATE_MISSING_KEYS;
import static io.icebergprotector.kms.KmsOptions.KEYSTORE;
import static io.icebergprotector.kms.KmsOptions.KEY_CACHE_SECONDS;
import static io.icebergprotector.kms.KmsOptions.PASSPHRASE_ENV;
import static io.icebergprotector.kms.KmsOptions.PASSPHRASE_FILE;
import static io.icebergprotector.kms.KmsOptions.PIN_ENV;
import static io.icebergprotector.kms.KmsOptions.PIN_FILE;
import static io.icebergprotector.kms.KmsOptions.PKCS11_LIBRARY;
import static io.icebergprotector.kms.KmsOptions.RUNTIME_TOKEN_ENV;
import static io.icebergprotector.kms.KmsOptions.RUNTIME_TOKEN_FILE;
import static io.icebergprotector.kms.KmsOptions.SLOT;
import static io.icebergprotector.kms.KmsOptions.SLOT_LIST_INDEX;
import static io.icebergprotector.kms.KmsOptions.TOKEN;
import static io.icebergprotector.kms.KmsOptions.TOKEN_ENV;
import static io.icebergprotector.kms.KmsOptions.TOKEN_FILE;
import static io.icebergprotector.kms.KmsOptions.TOKEN_LABEL;
import static io.icebergprotector.kms.KmsOptions.TOKEN_MODE;
import static io.icebergprotector.kms.KmsOptions.TRUST_STORE;
import static io.icebergprotector.kms.KmsOptions.TRUST_STORE_PASSWORD_ENV;
import static io.icebergprotector.kms.KmsOptions.TYPE;
import static io.icebergprotector.kms.KmsOptions.URL;
import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.token.TokenMode;
import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How to reach a key service: the local keystore (a PKCS12 file and its passphrase), the key server
 * (URL, token, trusted certificate), or a PKCS#11 token (library, slot or token label, user PIN).
 * Secrets are held as {@link SecretRef}s, so the settings can travel to executors and be shown in
 * messages without carrying a token, a passphrase or a PIN.
 */
public final class KmsSettings implements Serializable {
  private static final long serialVersionUID = 5L;

  /**
   * How long a JVM may use a key it obtained from the key service (key-encryption keys, derived
   * keys) before it asks again: the bound on how long a rotation, a destroyed key or a revoked
   * grant takes to reach running executors.
   */
  public static final int DEFAULT_KEY_CACHE_SECONDS = 30;

  /** The longest {@link KmsOptions#KEY_CACHE_SECONDS} accepted: Parquet's own default. */
  public static final int MAX_KEY_CACHE_SECONDS = 600;

  /** The token variable when no token option is set. */
  public static final String DEFAULT_TOKEN_ENV = "PROTECTOR_TOKEN";

  private static final System.Logger LOG = System.getLogger(KmsSettings.class.getName());
  // Owners (catalogs, session settings) already warned about an inline token, once per JVM.
  private static final Set<String> WARNED_INLINE_TOKEN = ConcurrentHashMap.newKeySet();

  public enum Type {
    LOCAL,
    REMOTE,
    PKCS11
  }

  private final Type type;
  private final String keystore;
  private final SecretRef passphrase;
  private final boolean createMissingKeys;
  private final String url;
  private final SecretRef token;
  private final SecretRef runtimeToken;
  private final String trustStore;
  private final SecretRef trustStorePassword;
  private final boolean allowInsecureHttp;
  private final String pkcs11Library;
  private final String tokenLabel;
  private final Long slot;
  private final Integer slotListIndex;
  private final SecretRef pin;
  private final int keyCacheSeconds;
  private final TokenMode tokenMode;

  private KmsSettings(Builder b) {
    this.type = b.type;
    this.keystore = b.keystore;
    this.passphrase = b.passphrase;
    this.createMissingKeys = b.createMissingKeys;
    this.url = b.url;
    this.token = b.token;
    this.runtimeToken = b.runtimeToken;
    this.trustStore = b.trustStore;
    this.trustStorePassword = b.trustStorePassword;
    this.allowInsecureHttp = b.allowInsecureHttp;
    this.pkcs11Library = b.pkcs11Library;
    this.tokenLabel = b.tokenLabel;
    this.slot = b.slot;
    this.slotListIndex = b.slotListIndex;
    this.pin = b.pin;
    this.keyCacheSeconds = b.keyCacheSeconds;
    this.tokenMode = b.tokenMode;
  }

  public static Builder builder(Type type) {
    return new Builder(type);
  }

  /**
   * Reads the {@code protector.kms.*} and {@code protector.token*} options. Secrets are chosen with
   * {@link SecretRef#choose}: at most one source each, never read here.
   *
   * @param owner what the options belong to, for messages (e.g. "catalog 'prod'"), or null
   */
  public static KmsSettings fromOptions(Map<String, String> options, String owner) {
    try {
      return builderFromOptions(options, owner)
          .keyCacheSeconds(keyCacheSeconds(options.get(KEY_CACHE_SECONDS.key())))
          .tokenMode(tokenMode(options.get(TOKEN_MODE.key())))
          .build();
    } catch (IllegalArgumentException e) {
      if (owner == null) {
        throw e;
      }
      throw new IllegalArgumentException(owner + ": " + e.getMessage(), e);
    }
  }

  private static int keyCacheSeconds(String text) {
    if (text == null || text.isBlank()) {
      return DEFAULT_KEY_CACHE_SECONDS;
    }
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          String.format(
              "Invalid %s: must be a whole number of seconds, got '%s'",
              KEY_CACHE_SECONDS.key(), text.trim()),
          e);
    }
  }

  private static TokenMode tokenMode(String text) {
    if (text == null || text.isBlank()) {
      return TokenMode.LOCAL;
    }
    return TokenMode.parse(TOKEN_MODE.key(), text.trim());
  }

  private static Builder builderFromOptions(Map<String, String> options, String owner) {
    String type =
        options.getOrDefault(TYPE.key(), TYPE.defaultValue()).trim().toLowerCase(Locale.ROOT);
    boolean create =
        Boolean.parseBoolean(
            options
                .getOrDefault(CREATE_MISSING_KEYS.key(), CREATE_MISSING_KEYS.defaultValue())
                .trim());
    switch (type) {
      case "local":
        return builder(Type.LOCAL)
            .keystore(options.get(KEYSTORE.key()))
            .passphrase(
                SecretRef.choose(options, null, PASSPHRASE_FILE.key(), PASSPHRASE_ENV.key(), null))
            .createMissingKeys(create);
      case "remote":
        refuseCreateMissingKeys(create);
        String trustPasswordEnv = options.get(TRUST_STORE_PASSWORD_ENV.key());
        SecretRef token =
            SecretRef.choose(
                options, TOKEN.key(), TOKEN_FILE.key(), TOKEN_ENV.key(), DEFAULT_TOKEN_ENV);
        if (token.source() == SecretRef.Source.VALUE && WARNED_INLINE_TOKEN.add(owner)) {
          LOG.log(
              System.Logger.Level.WARNING,
              owner
                  + ": "
                  + TOKEN.key()
                  + " (an inline token) is"
                  + " deprecated: Spark copies its configuration into every job and task, where any"
                  + " code of the application can read the token. Use "
                  + TOKEN_FILE.key()
                  + " or "
                  + TOKEN_ENV.key()
                  + ", and one principal per JVM");
        }
        return builder(Type.REMOTE)
            .url(options.get(URL.key()))
            .token(token)
            .runtimeToken(
                SecretRef.choose(
                    options, null, RUNTIME_TOKEN_FILE.key(), RUNTIME_TOKEN_ENV.key(), null))
            .trustStore(options.get(TRUST_STORE.key()))
            .trustStorePassword(
                trustPasswordEnv == null || trustPasswordEnv.isBlank()
                    ? null
                    : SecretRef.ofEnv(trustPasswordEnv))
            .allowInsecureHttp(
                Boolean.parseBoolean(
                    options
                        .getOrDefault(ALLOW_INSECURE_HTTP.key(), ALLOW_INSECURE_HTTP.defaultValue())
                        .trim()));
      case "pkcs11":
        refuseCreateMissingKeys(create);
        return builder(Type.PKCS11)
            .pkcs11Library(options.get(PKCS11_LIBRARY.key()))
            .tokenLabel(options.get(TOKEN_LABEL.key()))
            .slot(number(options, SLOT.key()))
            .slotListIndex(index(options, SLOT_LIST_INDEX.key()))
            .pin(SecretRef.choose(options, null, PIN_FILE.key(), PIN_ENV.key(), null));
      default:
        throw new IllegalArgumentException(
            String.format("Unknown %s '%s' (expected local, remote or pkcs11)", TYPE.key(), type));
    }
  }

  private static void refuseCreateMissingKeys(boolean create) {
    checkArgument(
        !create, "Invalid %s: it applies to the local key service only", CREATE_MISSING_KEYS.key());
  }

  private static Long number(Map<String, String> options, String key) {
    String text = options.get(key);
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          String.format("Invalid %s: must be a whole number, got '%s'", key, text.trim()), e);
    }
  }

  private static Integer index(Map<String, String> options, String key) {
    Long n = number(options, key);
    checkArgument(n == null || n <= Integer.MAX_VALUE, "Invalid %s: too large, got %s", key, n);
    return n == null ? null : n.intValue();
  }

  public Type type() {
    return type;
  }

  public String keystore() {
    return keystore;
  }

  public SecretRef passphrase() {
    return passphrase;
  }

  public boolean createMissingKeys() {
    return createMissingKeys;
  }

  public String url() {
    return url;
  }

  /** Where the remote token comes from; read it with {@link SecretRef#read()}. */
  public SecretRef token() {
    return token;
  }

  /** Where a trusted runtime's credential comes from, or null when this client is no runtime. */
  public SecretRef runtimeToken() {
    return runtimeToken;
  }

  public String trustStore() {
    return trustStore;
  }

  public SecretRef trustStorePassword() {
    return trustStorePassword;
  }

  public boolean allowInsecureHttp() {
    return allowInsecureHttp;
  }

  /** PKCS#11: the path of the token's PKCS#11 library (e.g. SoftHSM2's libsofthsm2.so). */
  public String pkcs11Library() {
    return pkcs11Library;
  }

  /** PKCS#11: the label of the token, or null when it is selected by slot. */
  public String tokenLabel() {
    return tokenLabel;
  }

  /** PKCS#11: the slot id of the token, or null. */
  public Long slot() {
    return slot;
  }

  /** PKCS#11: the token's index among the library's slots with a token, or null. */
  public Integer slotListIndex() {
    return slotListIndex;
  }

  /**
   * PKCS#11: where the token's user PIN comes from; read it with {@link
   * SecretRef#readPassphrase()}.
   */
  public SecretRef pin() {
    return pin;
  }

  /**
   * How long, in seconds, a JVM may use a key it obtained from this key service before it asks
   * again ({@link KmsOptions#KEY_CACHE_SECONDS}, default {@value #DEFAULT_KEY_CACHE_SECONDS}).
   */
  public int keyCacheSeconds() {
    return keyCacheSeconds;
  }

  /**
   * Where tokens of tokenized columns and of {@code protect}/{@code unprotect} are computed ({@link
   * #TOKEN_MODE}, default {@code local}): {@code local} derives the token key and tokenizes in the
   * executor; {@code server} sends batches to the key server, which keeps the key.
   */
  public TokenMode tokenMode() {
    return tokenMode;
  }

  /** A stable, non-secret identity of the key-service endpoint. */
  public String endpoint() {
    switch (type) {
      case LOCAL:
        return "local:" + keystore;
      case REMOTE:
        return "remote:" + url;
      default:
        return "pkcs11:" + pkcs11Library + "#" + tokenSelection();
    }
  }

  /** PKCS#11: how the token is selected, e.g. {@code token-label=protector}. */
  private String tokenSelection() {
    if (tokenLabel != null) {
      return "token-label=" + tokenLabel;
    }
    return slot != null ? "slot=" + slot : "slot-list-index=" + slotListIndex;
  }

  /**
   * A non-secret identity of the endpoint and the credential that reaches it: two settings with
   * equal identities open equivalent backends.
   */
  public String identity() {
    SecretRef credential = credential();
    // the cache lifetime too: a backend's caches expire as the settings that opened it say
    // and the runtime credential: a runtime gets keys its principals' own tokens do not
    return endpoint()
        + "|"
        + (credential == null ? "" : credential.fingerprint())
        + (runtimeToken == null ? "" : "|runtime:" + runtimeToken.fingerprint())
        + "|"
        + keyCacheSeconds
        + "s";
  }

  /** The secret that opens the backend: keystore passphrase, token or PIN. */
  public SecretRef credential() {
    switch (type) {
      case LOCAL:
        return passphrase;
      case REMOTE:
        return token;
      default:
        return pin;
    }
  }

  /**
   * Whether the backend tells any principal a key's versions and state (the local keystore and a
   * PKCS#11 token do; the key server shows them to admins only).
   */
  public boolean describesKeysToAnyone() {
    return type != Type.REMOTE;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KmsSettings && ((KmsSettings) o).identity().equals(identity());
  }

  @Override
  public int hashCode() {
    return Objects.hash(identity());
  }

  @Override
  public String toString() {
    return "KmsSettings{"
        + endpoint()
        + (token != null ? ", token from " + token.describe() : "")
        + (pin != null ? ", PIN from " + pin.describe() : "")
        + (tokenMode == TokenMode.SERVER ? ", token mode server" : "")
        + "}";
  }

  public static final class Builder {
    private final Type type;
    private String keystore;
    private SecretRef passphrase;
    private boolean createMissingKeys;
    private String url;
    private SecretRef token;
    private SecretRef runtimeToken;
    private String trustStore;
    private SecretRef trustStorePassword;
    private boolean allowInsecureHttp;
    private String pkcs11Library;
    private String tokenLabel;
    private Long slot;
    private Integer slotListIndex;
    private SecretRef pin;
    private int keyCacheSeconds = DEFAULT_KEY_CACHE_SECONDS;
    private TokenMode tokenMode = TokenMode.LOCAL;

    private Builder(Type type) {
      this.type = Objects.requireNonNull(type, "type");
    }

    public Builder keystore(String path) {
      this.keystore = path;
      return this;
    }

    public Builder passphrase(SecretRef ref) {
      this.passphrase = ref;
      return this;
    }

    public Builder createMissingKeys(boolean create) {
      this.createMissingKeys = create;
      return this;
    }

    public Builder url(String kmsUrl) {
      this.url = kmsUrl == null ? null : kmsUrl.trim().replaceFirst("/+$", "");
      return this;
    }

    public Builder token(SecretRef ref) {
      this.token = ref;
      return this;
    }

    /** A trusted runtime's credential (remote only); null when the client is no runtime. */
    public Builder runtimeToken(SecretRef ref) {
      this.runtimeToken = ref;
      return this;
    }

    public Builder trustStore(String path) {
      this.trustStore = path == null || path.isBlank() ? null : path.trim();
      return this;
    }

    public Builder trustStorePassword(SecretRef ref) {
      this.trustStorePassword = ref;
      return this;
    }

    public Builder allowInsecureHttp(boolean allow) {
      this.allowInsecureHttp = allow;
      return this;
    }

    public Builder pkcs11Library(String path) {
      this.pkcs11Library = path == null || path.isBlank() ? null : path.trim();
      return this;
    }

    public Builder tokenLabel(String label) {
      this.tokenLabel = label == null || label.isBlank() ? null : label;
      return this;
    }

    public Builder slot(Long id) {
      checkArgument(id == null || id >= 0, "Invalid %s: must be >= 0, got %s", SLOT.key(), id);
      this.slot = id;
      return this;
    }

    public Builder slotListIndex(Integer index) {
      checkArgument(
          index == null || index >= 0,
          "Invalid %s: must be >= 0, got %s",
          SLOT_LIST_INDEX.key(),
          index);
      this.slotListIndex = index;
      return this;
    }

    public Builder pin(SecretRef ref) {
      this.pin = ref;
      return this;
    }

    /** See {@link KmsSettings#keyCacheSeconds()}: 1 to {@value #MAX_KEY_CACHE_SECONDS}. */
    public Builder keyCacheSeconds(int seconds) {
      checkArgument(
          seconds >= 1 && seconds <= MAX_KEY_CACHE_SECONDS,
          "Invalid %s: must be between 1 and %s seconds, got %s",
          KEY_CACHE_SECONDS.key(),
          MAX_KEY_CACHE_SECONDS,
          seconds);
      this.keyCacheSeconds = seconds;
      return this;
    }

    /** See {@link KmsSettings#tokenMode()}: {@code server} needs {@code type = remote}. */
    public Builder tokenMode(TokenMode mode) {
      this.tokenMode = Objects.requireNonNull(mode, TOKEN_MODE.key());
      return this;
    }

    public KmsSettings build() {
      checkArgument(
          tokenMode != TokenMode.SERVER || type == Type.REMOTE,
          "Invalid %s = server: it needs %s = remote (only the key server tokenizes "
              + "for its callers), got %s = %s; use %s = local",
          TOKEN_MODE.key(),
          TYPE.key(),
          TYPE.key(),
          type.name().toLowerCase(Locale.ROOT),
          TOKEN_MODE.key());
      if (type == Type.PKCS11) {
        checkPkcs11();
      } else if (type == Type.LOCAL) {
        checkArgument(
            keystore != null && !keystore.isBlank(),
            "Missing %s: it is required when %s = local",
            KEYSTORE.key(),
            TYPE.key());
        checkArgument(
            passphrase != null,
            "Set exactly one of %s or %s for the local keystore %s",
            PASSPHRASE_ENV.key(),
            PASSPHRASE_FILE.key(),
            keystore);
      } else {
        checkArgument(
            url != null && !url.isBlank(),
            "Missing %s: it is required when %s = remote",
            URL.key(),
            TYPE.key());
        checkArgument(
            token != null,
            "A token is required when %s = remote: set %s, %s or %s",
            TYPE.key(),
            TOKEN_FILE.key(),
            TOKEN_ENV.key(),
            TOKEN.key());
      }
      return new KmsSettings(this);
    }

    private void checkPkcs11() {
      checkArgument(
          pkcs11Library != null,
          "Missing %s: it is required when %s = pkcs11 (the token's PKCS#11 library, "
              + "e.g. /usr/lib/softhsm/libsofthsm2.so)",
          PKCS11_LIBRARY.key(),
          TYPE.key());
      int selections =
          (tokenLabel != null ? 1 : 0) + (slot != null ? 1 : 0) + (slotListIndex != null ? 1 : 0);
      checkArgument(
          selections == 1,
          "Set exactly one of %s, %s or %s to select the PKCS#11 token of %s%s",
          TOKEN_LABEL.key(),
          SLOT.key(),
          SLOT_LIST_INDEX.key(),
          pkcs11Library,
          (selections == 0 ? "" : " (" + selections + " are set)"));
      checkArgument(
          pin != null,
          "Set exactly one of %s or %s for the user PIN of the PKCS#11 token of %s",
          PIN_ENV.key(),
          PIN_FILE.key(),
          pkcs11Library);
      checkArgument(
          pin.source() != SecretRef.Source.VALUE,
          "The PKCS#11 user PIN comes from %s or %s, never from an inline value",
          PIN_ENV.key(),
          PIN_FILE.key());
    }
  }
}
