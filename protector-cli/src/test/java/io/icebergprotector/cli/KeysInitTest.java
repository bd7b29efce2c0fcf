/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysInitTest {
  @TempDir Path dir;

  @Test
  void createsPassphraseFileKeystoreAndThePolicysKeys() throws Exception {
    Path keystore = dir.resolve("state/keys.p12");
    Path passphrase = dir.resolve("state/passphrase");
    Path policy = Files.writeString(dir.resolve("policy.conf"), KeyServer.POLICY);
    Cli.Result r =
        Cli.run(
            "keys",
            "init",
            "--keystore",
            keystore.toString(),
            "--passphrase-file",
            passphrase.toString(),
            "--policy",
            policy.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "created passphrase file "
                + passphrase
                + " (mode 0600; keep it secret, back it up)\n"
                + "created keystore "
                + keystore
                + "\n"
                + "created key pii (v1)\n"
                + "created key footer (v1)\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(passphrase)))
        .isEqualTo("rw-------");

    Cli.Result list =
        Cli.run(
            "keys",
            "list",
            "--keystore",
            keystore.toString(),
            "--passphrase-file",
            passphrase.toString());
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains("2 keys").contains("pii ").contains("footer ");

    Cli.Result again =
        Cli.run(
            "keys",
            "init",
            "--keystore",
            keystore.toString(),
            "--passphrase-file",
            passphrase.toString(),
            "--policy",
            policy.toString());
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out())
        .contains("passphrase file " + passphrase + " exists; kept")
        .contains("keystore " + keystore + " exists; kept")
        .contains("key pii exists; kept");
  }

  @Test
  void withUrlPrintsTheCommandsForTheKeyServer() throws Exception {
    Path policy = Files.writeString(dir.resolve("policy.conf"), KeyServer.POLICY);
    Cli.Result r =
        Cli.run(
            "keys",
            "init",
            "--url",
            "https://keys.example.com:8200",
            "--token-file",
            "ops.token",
            "--policy",
            policy.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "bin/protector keys init --keystore /etc/protector/keys.p12 --passphrase-file"
                + " /etc/protector/passphrase")
        .contains(
            "bin/protector keys create pii footer --url https://keys.example.com:8200 --token-file ops.token");
    assertThat(dir.resolve(".protector")).doesNotExist();
  }
}
