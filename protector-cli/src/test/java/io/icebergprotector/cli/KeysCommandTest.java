/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysCommandTest {
  @TempDir Path dir;

  private String[] local(String... args) {
    String[] all = new String[args.length + 4];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--keystore";
    all[args.length + 1] = dir.resolve("keys.p12").toString();
    all[args.length + 2] = "--passphrase-file";
    all[args.length + 3] = dir.resolve("passphrase").toString();
    return all;
  }

  private void passphrase() throws IOException {
    Files.writeString(dir.resolve("passphrase"), "a test passphrase\n");
  }

  @Test
  void localLifecycle() throws IOException {
    passphrase();
    Cli.Result created = Cli.run(local("keys", "create", "pii", "fin"));
    assertThat(created.code()).as(created.err()).isZero();
    assertThat(created.out())
        .contains("created keystore " + dir.resolve("keys.p12"))
        .contains("created key pii (v1)")
        .contains("created key fin (v1)");

    Cli.Result again = Cli.run(local("keys", "create", "pii"));
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).startsWith("error: ").contains("pii");
    assertThat(again.err().lines()).hasSize(1);

    Cli.Result rotated = Cli.run(local("keys", "rotate", "pii"));
    assertThat(rotated.code()).as(rotated.err()).isZero();
    assertThat(rotated.out()).contains("rotated key pii to v2 (versions v1, v2)");

    Cli.Result list = Cli.run(local("keys", "list"));
    assertThat(list.code()).as(list.err()).isZero();
    List<String> lines = list.out().lines().collect(Collectors.toList());
    assertThat(lines.get(0)).isEqualTo("keystore " + dir.resolve("keys.p12") + ": 2 keys");
    assertThat(lines.get(1))
        .startsWith("KEY")
        .contains("LATEST")
        .contains("VERSIONS")
        .contains("STATUS");
    assertThat(lines.get(2)).startsWith("fin ").contains("v1").endsWith("active");
    assertThat(lines.get(3)).startsWith("pii ").contains("v2").contains("v1,v2").endsWith("active");

    // Wrong confirmation: nothing happens, exit 1.
    Cli.Result wrong = Cli.run(List.of("pi"), local("keys", "destroy", "pii"));
    assertThat(wrong.code()).isEqualTo(1);
    assertThat(wrong.prompts())
        .singleElement()
        .asString()
        .contains("Destroying key 'pii' (2 version(s))")
        .endsWith("Type the key id to confirm: ");
    assertThat(wrong.err())
        .isEqualTo(
            "error: Aborted: the confirmation did not match key id 'pii'; nothing was destroyed\n");
    assertThat(describe("pii").destroyed()).isFalse();

    // No terminal and no --yes: refused as a usage error, exit 2, nothing asked.
    Cli.Result noTty = Cli.run(local("keys", "destroy", "pii"));
    assertThat(noTty.code()).isEqualTo(2);
    assertThat(noTty.err())
        .startsWith("error: refusing to destroy key 'pii' without confirmation: no terminal");
    assertThat(describe("pii").destroyed()).isFalse();

    // A typo in the key id fails before anyone is asked.
    Cli.Result typo = Cli.run(List.of("pix"), local("keys", "destroy", "pix"));
    assertThat(typo.code()).isEqualTo(1);
    assertThat(typo.prompts()).isEmpty();

    // Typing the key id destroys it.
    Cli.Result destroyed = Cli.run(List.of("pii"), local("keys", "destroy", "pii"));
    assertThat(destroyed.code()).as(destroyed.err()).isZero();
    assertThat(destroyed.out()).startsWith("destroyed key pii in keystore ");
    assertThat(describe("pii").destroyed()).isTrue();

    // --yes needs no terminal.
    Cli.Result yes = Cli.run(local("keys", "destroy", "fin", "--yes"));
    assertThat(yes.code()).as(yes.err()).isZero();
    assertThat(describe("fin").destroyed()).isTrue();

    Cli.Result after = Cli.run(local("keys", "list"));
    assertThat(after.out())
        .containsPattern("pii +- +- +.*destroyed")
        .containsPattern("fin .*destroyed");
  }

  private KeyInfo describe(String id) {
    try (Passphrase p = Passphrase.fromFile(dir.resolve("passphrase"));
        LocalKeyService keys = LocalKeyService.open(dir.resolve("keys.p12"), p, false)) {
      return keys.describeKey(id);
    }
  }

  @Test
  void localErrorsAreOneLine() throws IOException {
    Cli.Result noKeystore = Cli.run(local("keys", "list"));
    assertThat(noKeystore.code()).isEqualTo(1);
    assertThat(noKeystore.err())
        .isEqualTo(
            "error: Keystore "
                + dir.resolve("keys.p12")
                + " does not exist (create it with 'keys init', or run 'bin/protector demo')\n");

    Cli.Result noPassphrase = Cli.run(local("keys", "create", "pii"));
    assertThat(noPassphrase.code()).isEqualTo(1);
    assertThat(noPassphrase.err())
        .isEqualTo(
            "error: Passphrase file "
                + dir.resolve("passphrase")
                + " does not exist (create it and a keystore with 'keys init', or pass --passphrase-env <var>"
                + " or --passphrase-file <file>)\n");

    passphrase();
    Cli.Result ok = Cli.run(local("keys", "create", "pii"));
    assertThat(ok.code()).isZero();
    Files.writeString(dir.resolve("passphrase"), "another passphrase");
    Cli.Result wrong = Cli.run(local("keys", "list"));
    assertThat(wrong.code()).isEqualTo(1);
    assertThat(wrong.err()).startsWith("error: ");
    assertThat(wrong.err().lines()).hasSize(1);
    Cli.Result verbose = Cli.run(local("keys", "list", "--verbose"));
    assertThat(verbose.err()).contains("\tat ");
  }

  @Test
  void usageErrorsExit2() {
    assertThat(Cli.run("keys").code()).isEqualTo(2);
    assertThat(Cli.run("keys", "create").code()).isEqualTo(2);
    assertThat(Cli.run("keys", "shred", "pii").code()).isEqualTo(2);
    Cli.Result both =
        Cli.run("keys", "list", "--url", "https://127.0.0.1:8200", "--keystore", "k.p12");
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err())
        .startsWith("error: --url (key server) cannot be combined with --keystore");
    Cli.Result tokenLocal = Cli.run("keys", "list", "--token-file", "t");
    assertThat(tokenLocal.code()).isEqualTo(2);
    assertThat(tokenLocal.err()).contains("need --url");
    Cli.Result twoPassphrases =
        Cli.run("keys", "list", "--passphrase-env", "X", "--passphrase-file", "f");
    assertThat(twoPassphrases.code()).isEqualTo(2);
  }

  /** The key server's Transit subset, enough for the key admin calls. */
  static final class FakeServer implements AutoCloseable {
    final HttpServer http;
    final String token;
    final Map<String, Integer> versions = new TreeMap<>();
    final Map<String, Boolean> destroyed = new TreeMap<>();

    FakeServer(String token) throws IOException {
      this(token, InetAddress.getLoopbackAddress());
    }

    FakeServer(String token, InetAddress address) throws IOException {
      this.token = token;
      http = HttpServer.create(new InetSocketAddress(address, 0), 0);
      http.createContext("/v1/transit/keys", this::handle);
      http.start();
    }

    String url() {
      return "http://"
          + http.getAddress().getAddress().getHostAddress()
          + ":"
          + http.getAddress().getPort();
    }

    private synchronized void handle(HttpExchange ex) throws IOException {
      try (ex) {
        if (!token.equals(ex.getRequestHeaders().getFirst("X-Vault-Token"))) {
          send(ex, 401, "{\"errors\":[\"authentication failed: unknown token\"]}");
          return;
        }
        String path = ex.getRequestURI().getPath().substring("/v1/transit/keys".length());
        String method = ex.getRequestMethod();
        if (path.isEmpty() || path.equals("/")) {
          String names =
              versions.keySet().stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(","));
          send(ex, 200, "{\"data\":{\"keys\":[" + names + "]}}");
          return;
        }
        String id = path.substring(1);
        boolean rotate = id.endsWith("/rotate");
        id = rotate ? id.substring(0, id.length() - "/rotate".length()) : id;
        if (method.equals("POST") && !rotate) {
          if (versions.containsKey(id)) {
            send(ex, 409, "{\"errors\":[\"key already exists\"]}");
            return;
          }
          versions.put(id, 1);
          destroyed.put(id, false);
        } else if (!versions.containsKey(id)) {
          send(ex, 404, "{\"errors\":[\"no such key\"]}");
          return;
        } else if (rotate) {
          versions.put(id, versions.get(id) + 1);
        } else if (method.equals("DELETE")) {
          destroyed.put(id, true);
          send(ex, 204, "");
          return;
        }
        StringBuilder keys = new StringBuilder();
        for (int v = 1; v <= versions.get(id); v++) {
          keys.append(v > 1 ? "," : "").append("\"").append(v).append("\":1700000000");
        }
        send(
            ex,
            200,
            "{\"data\":{\"name\":\""
                + id
                + "\",\"latest_version\":"
                + versions.get(id)
                + ",\"keys\":{"
                + (destroyed.get(id) ? "" : keys)
                + "},\"destroyed\":"
                + destroyed.get(id)
                + "}}");
      }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, status == 204 ? -1 : bytes.length);
      if (status != 204) {
        try (OutputStream os = ex.getResponseBody()) {
          os.write(bytes);
        }
      }
    }

    @Override
    public void close() {
      http.stop(0);
    }
  }

  @Test
  void remoteLifecycle() throws IOException {
    try (FakeServer server = new FakeServer("ipt_test-token-0123456789")) {
      Path tokenFile = dir.resolve("token");
      Files.writeString(tokenFile, server.token + "\n");
      String[] remote = {"--url", server.url(), "--token-file", tokenFile.toString()};

      Cli.Result created = Cli.run(concat(new String[] {"keys", "create", "pii"}, remote));
      assertThat(created.code()).as(created.err()).isZero();
      assertThat(created.out())
          .isEqualTo("created key pii (v1) in key server " + server.url() + "\n");

      Cli.Result rotated = Cli.run(concat(new String[] {"keys", "rotate", "pii"}, remote));
      assertThat(rotated.code()).as(rotated.err()).isZero();
      assertThat(rotated.out()).contains("rotated key pii to v2");

      Cli.Result list = Cli.run(concat(new String[] {"keys", "list"}, remote));
      assertThat(list.code()).as(list.err()).isZero();
      assertThat(list.out())
          .startsWith("key server " + server.url() + ": 1 key\n")
          .containsPattern("pii +v2 +v1,v2 ");

      Cli.Result noTty = Cli.run(concat(new String[] {"keys", "destroy", "pii"}, remote));
      assertThat(noTty.code()).isEqualTo(2);
      Cli.Result destroyed =
          Cli.run(List.of("pii"), concat(new String[] {"keys", "destroy", "pii"}, remote));
      assertThat(destroyed.code()).as(destroyed.err()).isZero();
      assertThat(server.destroyed.get("pii")).isTrue();

      Files.writeString(tokenFile, "ipt_wrong-token");
      Cli.Result badToken = Cli.run(concat(new String[] {"keys", "list"}, remote));
      assertThat(badToken.code()).isEqualTo(1);
      assertThat(badToken.err())
          .isEqualTo(
              "error: authentication failed: unknown token (key service at "
                  + server.url()
                  + ")\n");

      Cli.Result noEnv =
          Cli.run("keys", "list", "--url", server.url(), "--token-env", "PROTECTOR_TEST_UNSET_VAR");
      assertThat(noEnv.code()).isEqualTo(1);
      assertThat(noEnv.err()).contains("PROTECTOR_TEST_UNSET_VAR");
    }
  }

  @Test
  void plainHttpToAnotherHostNeedsAllowInsecureHttp() throws IOException {
    InetAddress lan = nonLoopbackAddress();
    Assumptions.assumeTrue(lan != null, "no non-loopback IPv4 interface on this machine");
    try (FakeServer server = new FakeServer("ipt_test-token-0123456789", lan)) {
      Path tokenFile = dir.resolve("token");
      Files.writeString(tokenFile, server.token + "\n");

      Cli.Result refused =
          Cli.run("keys", "list", "--url", server.url(), "--token-file", tokenFile.toString());
      assertThat(refused.code()).isEqualTo(1);
      assertThat(refused.err())
          .startsWith("error: Refusing plain http:// to key service at " + server.url() + ":")
          .contains("--allow-insecure-http")
          .doesNotContain(server.token);

      Cli.Result allowed =
          Cli.run(
              "keys",
              "list",
              "--url",
              server.url(),
              "--token-file",
              tokenFile.toString(),
              "--allow-insecure-http");
      assertThat(allowed.code()).as(allowed.err()).isZero();
      assertThat(allowed.out()).startsWith("key server " + server.url() + ": 0 keys");
    }
    Cli.Result local = Cli.run("keys", "list", "--allow-insecure-http");
    assertThat(local.code()).isEqualTo(2);
    assertThat(local.err()).contains("--allow-insecure-http need --url");
  }

  private static InetAddress nonLoopbackAddress() throws IOException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(nic.getInetAddresses())) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
          return a;
        }
      }
    }
    return null;
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = new String[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
