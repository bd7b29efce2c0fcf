/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.server.config.ServerConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {
  @TempDir Path dir;

  private Path prepared() throws Exception {
    ServerFixture.prepare(dir);
    return dir.resolve("server.conf");
  }

  private Path withOverrides(String overrides) throws Exception {
    Path conf = prepared();
    Files.writeString(conf, Files.readString(conf) + "\n" + overrides + "\n");
    return conf;
  }

  @Test
  void plainHttpIsRefusedOffLoopback() throws Exception {
    Path conf =
        withOverrides("protector-server { allow-insecure-http = true, bind.host = \"0.0.0.0\" }");
    assertThatThrownBy(() -> ProtectorServer.start(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Refusing to serve plain HTTP on 0.0.0.0")
        .hasMessageContaining("loopback");
  }

  @Test
  void plainHttpOnLoopbackWorksWhenAllowed() throws Exception {
    Path conf = withOverrides("protector-server { allow-insecure-http = true }");
    try (ProtectorServer server = ProtectorServer.start(conf)) {
      assertThat(server.url().getScheme()).isEqualTo("http");
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(server.url() + "/health")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(r.body()).isEqualTo("{\"status\":\"ok\"}");
    }
  }

  @Test
  void tlsIsRequiredOtherwise() throws Exception {
    Path conf = withOverrides("protector-server.tls { keystore = \"\" }");
    assertThatThrownBy(() -> ServerConfig.load(conf))
        .hasMessageContaining("protector-server.tls.keystore is required");
  }

  @Test
  void inlineSecretsAndBadValuesAreRefused() throws Exception {
    assertThatThrownBy(
            () -> ServerConfig.load(withOverrides("protector-server.tls.password = \"hunter2\"")))
        .hasMessageContaining("must not hold a secret inline")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void badValuesNameTheSetting() throws Exception {
    Path conf = prepared();
    String base = Files.readString(conf);
    for (String[] c :
        new String[][] {
          {
            "protector-server.audit.sync = sometimes",
            "protector-server.audit.sync must be none, flush or fsync"
          },
          {"protector-server.bind.port = 70000", "protector-server.bind.port must be 0..65535"},
          {
            "protector-server.auth.tokens = [{ sha256 = \"abc\", principal = x }]",
            "must be 64 hex characters"
          },
          {
            "protector-server.auth.jwt.issuer = \"\"",
            "protector-server.auth.jwt.issuer is required"
          },
          {"protector-server.limits.max-body-size = 10", "max-body-size must be between"},
          {
            "protector-server.auth.jwt.jwks-url = \"http://idp.example.com/jwks.json\"",
            "protector-server.auth.jwt.jwks-url must use https unless the provider is on loopback,"
                + " got 'http://idp.example.com/jwks.json'"
          },
          {
            "protector-server.auth.jwt.jwks-url = \"idp.example.com/jwks\"",
            "protector-server.auth.jwt.jwks-url must be an https:// URL with a host"
          },
          {
            "protector-server.auth.jwt { jwks-url = \"https://idp.test/jwks\","
                + " jwks-min-refresh-interval = 10m }",
            "protector-server.auth.jwt.jwks-min-refresh-interval must be between 0s and"
                + " jwks-cache-lifetime (PT5M), got PT10M"
          },
          {
            "protector-server.limits.rate.period = 0s",
            "protector-server.limits.rate.period must be between 1ms and 1h"
          },
        }) {
      Files.writeString(conf, base + "\n" + c[0] + "\n");
      assertThatThrownBy(() -> ServerConfig.load(conf)).as(c[0]).hasMessageContaining(c[1]);
    }
  }

  @Test
  void pkcs11KeySettingsAreNamedAsInThisFile() throws Exception {
    Path conf = prepared();
    String base =
        Files.readString(conf)
            + "\nprotector-server.keys { keystore = null, passphrase-file = null }\n";
    String pkcs11 =
        "protector-server.keys { type = pkcs11, pkcs11-library = \"/opt/hsm/libpkcs11.so\" }\n";
    for (String[] c :
        new String[][] {
          {
            "protector-server.keys.type = hsm",
            "protector-server.keys.type must be local or pkcs11, got 'hsm'"
          },
          {
            pkcs11,
            "Set exactly one of protector-server.keys.token-label, protector-server.keys.slot or"
                + " protector-server.keys.slot-list-index to select the PKCS#11 token of /opt/hsm/libpkcs11.so"
          },
          {
            pkcs11 + "protector-server.keys.token-label = t",
            "Set exactly one of protector-server.keys.pin-env or protector-server.keys.pin-file"
          },
          {
            pkcs11 + "protector-server.keys { token-label = t, pin-env = A, pin-file = b }",
            "set only one of protector-server.keys.pin-file, protector-server.keys.pin-env"
          },
          {
            pkcs11
                + "protector-server.keys { token-label = t, pin-env = A, create-if-missing = true }",
            "protector-server.keys.create-if-missing applies to type = local only"
          },
          {
            "protector-server.keys.type = local",
            "Missing protector-server.keys.keystore: it is required when"
                + " protector-server.keys.type = local"
          },
        }) {
      Files.writeString(conf, base + c[0] + "\n");
      assertThatThrownBy(() -> ServerConfig.load(conf))
          .as(c[0])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Server config " + conf)
          .hasMessageContaining(c[1]);
    }
    Files.writeString(
        conf, base + pkcs11 + "protector-server.keys { token-label = t, pin = \"4321\" }\n");
    assertThatThrownBy(() -> ServerConfig.load(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "protector-server.keys.pin must not hold a secret inline; use pin-env or pin-file")
        .hasMessageNotContaining("4321");

    Files.writeString(
        conf, base + pkcs11 + "protector-server.keys { slot-list-index = 0, pin-file = pin }\n");
    ServerConfig config = ServerConfig.load(conf);
    assertThat(config.keyService().type()).isEqualTo(KmsSettings.Type.PKCS11);
    assertThat(config.keyService().slotListIndex()).isZero();
    assertThat(config.keyService().pin())
        .isEqualTo(SecretRef.ofFile(dir.resolve("pin").toString()));
  }

  @Test
  void defaultsComeFromReferenceConfAndNewLimitsAreChecked() throws Exception {
    Path conf = prepared();
    String base = Files.readString(conf);
    ServerConfig config = ServerConfig.load(conf);
    assertThat(config.idleTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(config.maxHeaderBytes()).isEqualTo(16 * 1024);
    assertThat(config.maxConnections()).isEqualTo(4096);
    assertThat(config.queueSize()).isEqualTo(1024);
    assertThat(config.tlsProtocols()).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(config.jwt().clockSkew()).isEqualTo(java.time.Duration.ofSeconds(5)); // fixture's
    assertThat(config.jwt().principalClaim()).isEqualTo("sub"); // reference.conf's

    Files.writeString(conf, base + "\nprotector-server.limits.idle-timeout = 10ms\n");
    assertThatThrownBy(() -> ServerConfig.load(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protector-server.limits.idle-timeout must be between 100ms and 1h");
    Files.writeString(conf, base + "\nprotector-server.limits.max-connections = 0\n");
    assertThatThrownBy(() -> ServerConfig.load(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protector-server.limits.max-connections must be >= 1, got 0");

    assertThat(config.maxBatchValues()).isEqualTo(10_000);
    assertThat(config.maxBatchBodyBytes()).isEqualTo(4L * 1024 * 1024);
    Files.writeString(conf, base + "\nprotector-server.limits.max-batch-values = 0\n");
    assertThatThrownBy(() -> ServerConfig.load(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protector-server.limits.max-batch-values must be 1..1000000, got 0");
    Files.writeString(conf, base + "\nprotector-server.limits.max-batch-body-size = 1k\n");
    assertThatThrownBy(() -> ServerConfig.load(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "protector-server.limits.max-batch-body-size must be between limits.max-body-size"
                + " (4096 bytes) and 256 MiB, got 1024");
  }

  @Test
  void wrongKeystorePassphraseFailsToStart() throws Exception {
    Path conf = prepared();
    Files.writeString(dir.resolve("keystore-passphrase"), "wrong");
    assertThatThrownBy(() -> ProtectorServer.start(conf)).hasMessageContaining("wrong passphrase");
  }

  @Test
  void shippedServerConfParses() throws Exception {
    Path shipped =
        Path.of(System.getProperty("user.dir")).resolveSibling("conf").resolve("server.conf");
    String text =
        Files.readString(shipped)
            + "\nprotector-server.auth.tokens = [{ name = t, sha256 = \""
            + "0".repeat(64)
            + "\", principal = alice }]\n";
    ServerConfig config = ServerConfig.parse(text, shipped);
    assertThat(config.port()).isEqualTo(8200);
    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.allowInsecureHttp()).isFalse();
    assertThat(config.policy()).isEqualTo(shipped.getParent().resolve("policy.conf"));
    assertThat(config.auditSync()).isEqualTo(ServerConfig.AuditSync.FLUSH);
    assertThat(config.maxBodyBytes()).isEqualTo(64 * 1024);
    assertThat(config.jwt()).isNull();
    assertThat(config.adminRoles()).containsExactly("admin");
  }

  @Test
  void commandLineHelpers() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        ProtectorServer.run(
            new String[] {"new-token"},
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isZero();
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    String token = lines[0].replace("token:", "").strip();
    String hash = lines[1].replace("sha256:", "").strip();
    assertThat(token).startsWith("ipt_");
    assertThat(hash).isEqualTo(Digests.sha256Hex(token));

    out.reset();
    rc =
        ProtectorServer.run(
            new String[] {"hash-token"},
            new ByteArrayInputStream((token + "\n").getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo(hash);

    // The token-file rule: a second line is refused, not silently dropped.
    out.reset();
    rc =
        ProtectorServer.run(
            new String[] {"hash-token"},
            new ByteArrayInputStream((token + "\nnot a token\n").getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("standard input holds more than one line")
        .doesNotContain(token);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();

    rc =
        ProtectorServer.run(
            new String[] {"server", "--config", dir.resolve("missing.conf").toString()},
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("does not exist");
  }
}
