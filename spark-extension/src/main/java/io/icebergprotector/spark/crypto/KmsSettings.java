package io.icebergprotector.spark.crypto;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * How executors reach the key service. Travels inside each scan or write task, so a remote token
 * never goes through the global Hadoop configuration.
 */
public final class KmsSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  public enum Type {
    LOCAL,
    REMOTE
  }

  private final Type type;
  private final String keystore;
  private final String passphraseEnv;
  private final String passphraseFile;
  private final boolean createMissingKeys;
  private final String url;
  private final String token;
  private final String trustStore;
  private final String trustStorePasswordEnv;
  private final boolean allowInsecureHttp;

  private KmsSettings(Builder b) {
    this.type = b.type;
    this.keystore = b.keystore;
    this.passphraseEnv = b.passphraseEnv;
    this.passphraseFile = b.passphraseFile;
    this.createMissingKeys = b.createMissingKeys;
    this.url = b.url;
    this.token = b.token;
    this.trustStore = b.trustStore;
    this.trustStorePasswordEnv = b.trustStorePasswordEnv;
    this.allowInsecureHttp = b.allowInsecureHttp;
  }

  public static Builder builder(Type type) {
    return new Builder(type);
  }

  public Type type() {
    return type;
  }

  public String keystore() {
    return keystore;
  }

  public String passphraseEnv() {
    return passphraseEnv;
  }

  public String passphraseFile() {
    return passphraseFile;
  }

  public boolean createMissingKeys() {
    return createMissingKeys;
  }

  public String url() {
    return url;
  }

  /** The remote token. Never logged: {@link #toString()} leaves it out. */
  public String token() {
    return token;
  }

  public String trustStore() {
    return trustStore;
  }

  public String trustStorePasswordEnv() {
    return trustStorePasswordEnv;
  }

  /** Whether plain http:// may reach a key server that is not on loopback. */
  public boolean allowInsecureHttp() {
    return allowInsecureHttp;
  }

  /** A stable, non-secret identity of the key-service endpoint (no token). */
  public String endpoint() {
    return type == Type.LOCAL ? "local:" + keystore : "remote:" + url;
  }

  /**
   * A digest that differs per endpoint, credential, principal and policy; safe to log and to use as
   * a key-cache token, so two principals in one JVM never share cached keys.
   */
  public String credentialDigestFor(String user, java.util.List<String> groups, String policyText) {
    return "ip-" + sha256Hex(String.join("\u0000", endpoint(), Objects.toString(token, ""),
        Objects.toString(user, ""), String.join(",", new java.util.TreeSet<>(groups)),
        Objects.toString(policyText, "")));
  }

  static String sha256Hex(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  @Override
  public String toString() {
    return "KmsSettings{" + endpoint() + (token != null ? ", token=<redacted>" : "") + "}";
  }

  public static final class Builder {
    private final Type type;
    private String keystore;
    private String passphraseEnv;
    private String passphraseFile;
    private boolean createMissingKeys;
    private String url;
    private String token;
    private String trustStore;
    private String trustStorePasswordEnv;
    private boolean allowInsecureHttp;

    private Builder(Type type) {
      this.type = Objects.requireNonNull(type, "type");
    }

    public Builder keystore(String path) {
      this.keystore = path;
      return this;
    }

    public Builder passphraseEnv(String var) {
      this.passphraseEnv = var;
      return this;
    }

    public Builder passphraseFile(String path) {
      this.passphraseFile = path;
      return this;
    }

    public Builder createMissingKeys(boolean create) {
      this.createMissingKeys = create;
      return this;
    }

    public Builder url(String kmsUrl) {
      this.url = kmsUrl;
      return this;
    }

    public Builder token(String kmsToken) {
      this.token = kmsToken;
      return this;
    }

    public Builder trustStore(String path) {
      this.trustStore = path;
      return this;
    }

    public Builder trustStorePasswordEnv(String var) {
      this.trustStorePasswordEnv = var;
      return this;
    }

    public Builder allowInsecureHttp(boolean allow) {
      this.allowInsecureHttp = allow;
      return this;
    }

    public KmsSettings build() {
      if (type == Type.LOCAL) {
        if (keystore == null || keystore.isBlank()) {
          throw new IllegalArgumentException(
              "protector.kms.keystore is required when protector.kms.type = local");
        }
        if ((passphraseEnv == null) == (passphraseFile == null)) {
          throw new IllegalArgumentException(
              "set exactly one of protector.kms.passphrase-env or protector.kms.passphrase-file"
                  + " for the local keystore " + keystore);
        }
      } else {
        if (url == null || url.isBlank()) {
          throw new IllegalArgumentException(
              "protector.kms.url is required when protector.kms.type = remote");
        }
        if (token == null || token.isBlank()) {
          throw new IllegalArgumentException(
              "a token is required when protector.kms.type = remote: set protector.token,"
                  + " protector.token-file or protector.token-env");
        }
      }
      return new KmsSettings(this);
    }
  }
}
