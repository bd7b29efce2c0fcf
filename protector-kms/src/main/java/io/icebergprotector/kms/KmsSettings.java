package io.icebergprotector.kms;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach a key service: the local keystore (a PKCS12 file and its passphrase) or the key
 * server (URL, token, trusted certificate). Secrets are held as {@link SecretRef}s, so the settings
 * can travel to executors and be shown in messages without carrying a token or a passphrase.
 */
public final class KmsSettings implements Serializable {
  private static final long serialVersionUID = 2L;

  public static final String TYPE = "protector.kms.type";
  public static final String KEYSTORE = "protector.kms.keystore";
  public static final String PASSPHRASE_ENV = "protector.kms.passphrase-env";
  public static final String PASSPHRASE_FILE = "protector.kms.passphrase-file";
  public static final String CREATE_MISSING_KEYS = "protector.kms.create-missing-keys";
  public static final String URL = "protector.kms.url";
  public static final String TRUST_STORE = "protector.kms.trust-store";
  public static final String TRUST_STORE_PASSWORD_ENV = "protector.kms.trust-store-password-env";
  public static final String ALLOW_INSECURE_HTTP = "protector.kms.allow-insecure-http";
  public static final String TOKEN = "protector.token";
  public static final String TOKEN_FILE = "protector.token-file";
  public static final String TOKEN_ENV = "protector.token-env";
  /** The token variable when no token option is set. */
  public static final String DEFAULT_TOKEN_ENV = "PROTECTOR_TOKEN";

  public enum Type {
    LOCAL,
    REMOTE
  }

  private final Type type;
  private final String keystore;
  private final SecretRef passphrase;
  private final boolean createMissingKeys;
  private final String url;
  private final SecretRef token;
  private final String trustStore;
  private final SecretRef trustStorePassword;
  private final boolean allowInsecureHttp;

  private KmsSettings(Builder b) {
    this.type = b.type;
    this.keystore = b.keystore;
    this.passphrase = b.passphrase;
    this.createMissingKeys = b.createMissingKeys;
    this.url = b.url;
    this.token = b.token;
    this.trustStore = b.trustStore;
    this.trustStorePassword = b.trustStorePassword;
    this.allowInsecureHttp = b.allowInsecureHttp;
  }

  public static Builder builder(Type type) {
    return new Builder(type);
  }

  /**
   * Reads the {@code protector.kms.*} and {@code protector.token*} options.
   *
   * @param owner what the options belong to, for messages (e.g. "catalog 'prod'")
   */
  public static KmsSettings fromOptions(Map<String, String> options, String owner) {
    String type = options.getOrDefault(TYPE, "local").trim().toLowerCase(Locale.ROOT);
    boolean create = Boolean.parseBoolean(options.getOrDefault(CREATE_MISSING_KEYS, "false").trim());
    try {
      switch (type) {
        case "local":
          return builder(Type.LOCAL)
              .keystore(options.get(KEYSTORE))
              .passphrase(SecretRef.choose(options, null, PASSPHRASE_FILE, PASSPHRASE_ENV, null))
              .createMissingKeys(create)
              .build();
        case "remote":
          if (create) {
            throw new IllegalArgumentException(
                CREATE_MISSING_KEYS + " applies to the local key service only");
          }
          String trustPasswordEnv = options.get(TRUST_STORE_PASSWORD_ENV);
          return builder(Type.REMOTE)
              .url(options.get(URL))
              .token(SecretRef.choose(options, TOKEN, TOKEN_FILE, TOKEN_ENV, DEFAULT_TOKEN_ENV))
              .trustStore(options.get(TRUST_STORE))
              .trustStorePassword(
                  trustPasswordEnv == null || trustPasswordEnv.isBlank()
                      ? null
                      : SecretRef.ofEnv(trustPasswordEnv))
              .allowInsecureHttp(
                  Boolean.parseBoolean(options.getOrDefault(ALLOW_INSECURE_HTTP, "false").trim()))
              .build();
        default:
          throw new IllegalArgumentException(
              String.format("unknown %s '%s' (expected local or remote)", TYPE, type));
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(owner + ": " + e.getMessage(), e);
    }
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

  public String trustStore() {
    return trustStore;
  }

  public SecretRef trustStorePassword() {
    return trustStorePassword;
  }

  public boolean allowInsecureHttp() {
    return allowInsecureHttp;
  }

  /** A stable, non-secret identity of the key-service endpoint. */
  public String endpoint() {
    return type == Type.LOCAL ? "local:" + keystore : "remote:" + url;
  }

  /**
   * A non-secret identity of the endpoint and the credential that reaches it: two settings with
   * equal identities open equivalent backends.
   */
  public String identity() {
    SecretRef credential = type == Type.LOCAL ? passphrase : token;
    return endpoint() + "|" + (credential == null ? "" : credential.fingerprint());
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
    return "KmsSettings{" + endpoint() + (token != null ? ", token from " + token.describe() : "")
        + "}";
  }

  public static final class Builder {
    private final Type type;
    private String keystore;
    private SecretRef passphrase;
    private boolean createMissingKeys;
    private String url;
    private SecretRef token;
    private String trustStore;
    private SecretRef trustStorePassword;
    private boolean allowInsecureHttp;

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

    public KmsSettings build() {
      if (type == Type.LOCAL) {
        if (keystore == null || keystore.isBlank()) {
          throw new IllegalArgumentException(KEYSTORE + " is required when " + TYPE + " = local");
        }
        if (passphrase == null) {
          throw new IllegalArgumentException(
              "set exactly one of " + PASSPHRASE_ENV + " or " + PASSPHRASE_FILE
                  + " for the local keystore " + keystore);
        }
      } else {
        if (url == null || url.isBlank()) {
          throw new IllegalArgumentException(URL + " is required when " + TYPE + " = remote");
        }
        if (token == null) {
          throw new IllegalArgumentException(
              "a token is required when " + TYPE + " = remote: set " + TOKEN_FILE + ", "
                  + TOKEN_ENV + " or " + TOKEN);
        }
      }
      return new KmsSettings(this);
    }
  }
}
