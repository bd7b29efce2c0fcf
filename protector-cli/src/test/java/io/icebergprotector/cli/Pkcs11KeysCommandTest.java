/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.pkcs11.SoftHsm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code protector keys} on a PKCS#11 token (SoftHSM2). Each command runs as {@code bin/protector}
 * runs it, in its own JVM, whose environment names a private SoftHSM2 token directory and holds the
 * PIN.
 */
class Pkcs11KeysCommandTest {
  private static final String PIN_ENV = "PROTECTOR_TEST_PIN";

  @TempDir Path dir;

  @Test
  @Timeout(300)
  void createListRotateOnASoftHsmToken() throws Exception {
    SoftHsm hsm = SoftHsm.withToken(dir.resolve("hsm"), "protector");
    String[] token = {
      "--pkcs11-library",
      hsm.library().toString(),
      "--token-label",
      "protector",
      "--pin-env",
      PIN_ENV
    };
    String shown = "PKCS#11 token 'protector' of " + hsm.library();

    SoftHsm.Result created = protector(hsm, token, "keys", "create", "pii", "fin");
    assertThat(created.exitCode()).as(created.output()).isZero();
    assertThat(created.output())
        .contains("created key pii (v1) in " + shown)
        .contains("created key fin (v1) in " + shown);

    SoftHsm.Result rotated = protector(hsm, token, "keys", "rotate", "pii");
    assertThat(rotated.exitCode()).as(rotated.output()).isZero();
    assertThat(rotated.output()).contains("rotated key pii to v2 (versions v1, v2)");

    // The PIN from a file this time, and the token by its slot list index.
    Path pinFile = Files.writeString(dir.resolve("pin"), SoftHsm.PIN + "\n");
    SoftHsm.Result list =
        protector(
            hsm,
            new String[] {
              "--pkcs11-library",
              hsm.library().toString(),
              "--slot-list-index",
              "0",
              "--pin-file",
              pinFile.toString()
            },
            "keys",
            "list");
    assertThat(list.exitCode()).as(list.output()).isZero();
    assertThat(list.output())
        .contains("PKCS#11 token at slot list index 0 of " + hsm.library() + ": 2 keys")
        .containsPattern("fin +v1 +v1 +\\S+ +active")
        .containsPattern("pii +v2 +v1,v2 +\\S+ +active");

    Path wrongPin = Files.writeString(dir.resolve("wrong-pin"), "97531\n");
    SoftHsm.Result wrong =
        protector(
            hsm,
            new String[] {
              "--pkcs11-library",
              hsm.library().toString(),
              "--token-label",
              "protector",
              "--pin-file",
              wrongPin.toString()
            },
            "keys",
            "list");
    assertThat(wrong.exitCode()).as(wrong.output()).isEqualTo(1);
    assertThat(wrong.output())
        .contains("error: login to PKCS#11 token 'protector'")
        .contains("wrong user PIN")
        .doesNotContain("97531");
  }

  @Test
  void backendOptionsAreUsageErrors() {
    Cli.Result both = Cli.run("keys", "list", "--pkcs11-library", "/lib.so", "--keystore", "k.p12");
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err())
        .startsWith("error: --pkcs11-library (PKCS#11 token) cannot be combined with --keystore");
    Cli.Result withUrl =
        Cli.run("keys", "list", "--pkcs11-library", "/lib.so", "--url", "https://127.0.0.1:8200");
    assertThat(withUrl.code()).isEqualTo(2);
    assertThat(withUrl.err())
        .startsWith("error: --url (key server) cannot be combined with --pkcs11-library");
    Cli.Result pinAlone = Cli.run("keys", "list", "--pin-env", "X");
    assertThat(pinAlone.code()).isEqualTo(2);
    assertThat(pinAlone.err()).contains("--pin-env and --pin-file need --pkcs11-library");
    Cli.Result noToken = Cli.run("keys", "list", "--pkcs11-library", "/lib.so", "--pin-env", "X");
    assertThat(noToken.code()).isEqualTo(2);
    assertThat(noToken.err())
        .startsWith(
            "error: Set exactly one of --token-label, --slot or --slot-list-index to select the PKCS#11 token");
    Cli.Result twoPins =
        Cli.run(
            "keys",
            "list",
            "--pkcs11-library",
            "/lib.so",
            "--slot",
            "0",
            "--pin-env",
            "X",
            "--pin-file",
            "p");
    assertThat(twoPins.code()).isEqualTo(2);
    assertThat(twoPins.err())
        .startsWith("error: Cannot choose a secret: set only one of --pin-file, --pin-env");
  }

  private static SoftHsm.Result protector(SoftHsm hsm, String[] backend, String... command)
      throws Exception {
    List<String> args = new ArrayList<>(List.of(command));
    args.addAll(List.of(backend));
    return hsm.runJava(
        ProtectorCli.class.getName(), List.of("-Xmx256m"), args, Map.of(PIN_ENV, SoftHsm.PIN), 120);
  }
}
