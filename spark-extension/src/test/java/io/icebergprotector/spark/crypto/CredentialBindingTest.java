/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.paths.PathScope;
import io.icebergprotector.testing.TestPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another principal's code in the same JVM cannot reach a registered key service, or the cached
 * path settings that hand out its key scopes, by naming the same credential source (a token file, a
 * passphrase file): it has to be able to read the secret itself.
 */
class CredentialBindingTest {
  private static final String POLICY_TEXT =
      TestPolicy.resource(CredentialBindingTest.class, "policies/CredentialBindingTest.conf");

  @TempDir Path dir;
  Path keystore;
  Path passphraseFile;
  Path policyFile;
  Policy policy;

  @BeforeEach
  void keystore() throws Exception {
    keystore = dir.resolve("keys.p12");
    passphraseFile = dir.resolve("passphrase");
    policyFile = dir.resolve("policy.conf");
    Files.writeString(passphraseFile, "binding test passphrase\n");
    Files.writeString(policyFile, POLICY_TEXT);
    try (Passphrase p = Passphrase.fromFile(passphraseFile);
        LocalKeyService keys = LocalKeyService.open(keystore, p, true)) {
      keys.createKey("pii");
      keys.createKey("footer");
    }
    policy = Policy.parse(POLICY_TEXT, policyFile.toString());
  }

  @AfterEach
  void forget() {
    KeyServiceRegistry.clear();
    PathScope.forgetLoadedSettings();
  }

  KmsSettings settings() {
    return KmsSettings.builder(KmsSettings.Type.LOCAL)
        .keystore(keystore.toString())
        .passphrase(SecretRef.ofFile(passphraseFile.toString()))
        .build();
  }

  @Test
  void bindingFollowsTheSecretNotWhereItIsRead() throws Exception {
    String before = KeyServiceRegistry.credentialBinding(settings());
    assertThat(KeyServiceRegistry.credentialBinding(settings())).isEqualTo(before);
    assertThat(before).doesNotContain("binding test passphrase");

    Files.writeString(passphraseFile, "another passphrase\n");
    assertThat(KeyServiceRegistry.credentialBinding(settings())).isNotEqualTo(before);

    Files.delete(passphraseFile);
    assertThatThrownBy(() -> KeyServiceRegistry.credentialBinding(settings()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + passphraseFile + " does not exist");
  }

  @Test
  void aTrustedRuntimesCredentialBindsApartFromTheSameTokenAlone() throws Exception {
    Path token = Files.writeString(dir.resolve("bob.token"), "ipt_bobs-token\n");
    Path runtime = Files.writeString(dir.resolve("runtime.token"), "ipt_runtime-credential\n");
    KmsSettings own =
        KmsSettings.builder(KmsSettings.Type.REMOTE)
            .url("https://keys.example:8200")
            .token(SecretRef.ofFile(token.toString()))
            .build();
    KmsSettings attested =
        KmsSettings.builder(KmsSettings.Type.REMOTE)
            .url("https://keys.example:8200")
            .token(SecretRef.ofFile(token.toString()))
            .runtimeToken(SecretRef.ofFile(runtime.toString()))
            .build();
    // the runtime gets keys bob's token alone does not: never one backend (and its caches)
    assertThat(KeyServiceRegistry.credentialBinding(attested))
        .isNotEqualTo(KeyServiceRegistry.credentialBinding(own))
        .doesNotContain("runtime-credential");
    assertThat(attested.identity()).isNotEqualTo(own.identity());
  }

  @Test
  void aNewScopeOnTheSameCredentialSourceMustReadTheSecret() throws Exception {
    KeyService alice =
        KeyServiceRegistry.obtain(
            KeyScope.of(settings(), Principal.user("alice"), policy.digest()), policy);
    String wrapped = alice.wrapKey(new byte[16], "pii");

    // The secret is gone (or was never readable by this code): naming the same file is not
    // enough to share alice's open keystore.
    Files.delete(passphraseFile);
    KeyScope other = KeyScope.of(settings(), Principal.user("alice"), policy.digest());
    assertThatThrownBy(() -> KeyServiceRegistry.obtain(other, policy))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot read secret: file " + passphraseFile);

    // alice's registered scope keeps its backend
    assertThat(alice.unwrapKey(wrapped, "pii")).hasSize(16);
  }

  @Test
  void cachedPathSettingsNeedTheSecretToo() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("spark.protector.policy", policyFile.toString());
    conf.set("spark.protector.kms.keystore", keystore.toString());
    conf.set("spark.protector.kms.passphrase-file", passphraseFile.toString());
    conf.set("spark.protector.user", "alice");
    PathScope first = PathScope.fromHadoop(conf).orElseThrow();
    assertThat(PathScope.fromHadoop(conf).orElseThrow().keyScope().handle())
        .as("the cached settings give the same scope")
        .isEqualTo(first.keyScope().handle());

    Files.delete(passphraseFile);
    assertThatThrownBy(() -> PathScope.fromHadoop(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot read secret: file " + passphraseFile);

    // A changed secret loads the settings again: a new scope, not the one cached for the old one.
    Files.writeString(passphraseFile, "binding test passphrase\n");
    assertThat(PathScope.fromHadoop(conf).orElseThrow().keyScope().handle())
        .isEqualTo(first.keyScope().handle());
    Files.writeString(passphraseFile, "rotated passphrase\n");
    assertThat(PathScope.fromHadoop(conf).orElseThrow().keyScope().handle())
        .isNotEqualTo(first.keyScope().handle());
  }
}
