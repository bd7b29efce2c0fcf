/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/** A local keystore (keys pii, fin, footer) and a policy, in a temp dir. */
final class ReadFixture {
  static final String POLICY = TestPolicy.resource(ReadFixture.class, "policies/ReadFixture.conf");

  /** id, name, ssn, email, salary, birth, address{city, zip}, tags. */
  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "name", Types.StringType.get()),
          optional(3, "ssn", Types.StringType.get()),
          optional(4, "email", Types.StringType.get()),
          optional(5, "salary", Types.DecimalType.of(10, 2)),
          optional(6, "birth", Types.DateType.get()),
          optional(
              7,
              "address",
              Types.StructType.of(
                  optional(8, "city", Types.StringType.get()),
                  optional(9, "zip", Types.StringType.get()))),
          optional(10, "tags", Types.ListType.ofOptional(11, Types.StringType.get())));

  final Path dir;
  final KmsSettings kms;
  final Policy policy;

  ReadFixture(Path dir) {
    this.dir = dir;
    Path keystore = dir.resolve("keys.p12");
    Path passphraseFile = dir.resolve("passphrase");
    try {
      Files.createDirectories(dir);
      Files.writeString(passphraseFile, "read-test-passphrase-" + System.nanoTime());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (Passphrase passphrase = Passphrase.fromFile(passphraseFile);
        LocalKeyService keys = LocalKeyService.open(keystore, passphrase, true)) {
      keys.createKey("pii");
      keys.createKey("fin");
      keys.createKey("footer");
    }
    this.kms =
        KmsSettings.builder(KmsSettings.Type.LOCAL)
            .keystore(keystore.toString())
            .passphrase(io.icebergprotector.kms.SecretRef.ofFile(passphraseFile.toString()))
            .build();
    this.policy = Policy.parse(POLICY, "read-test-policy");
  }

  ProtectionSpec spec(String table, Schema schema, String user) {
    return ProtectionSpec.resolve(
        ProtectorContext.of(policy, kms),
        policy.table(table).orElseThrow(),
        schema,
        Principal.user(user));
  }
}
