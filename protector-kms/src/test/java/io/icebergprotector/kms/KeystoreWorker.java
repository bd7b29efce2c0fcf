/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Child-JVM main for the multi-process tests: creates keys {@code <prefix>-0, <prefix>-1, ...}
 * against one store and prints "committed <id> end" (flushed) after each create returned. count < 0
 * loops until killed. The passphrase comes from environment variable KMS_TEST_PASS.
 */
public final class KeystoreWorker {
  private KeystoreWorker() {}

  public static void main(String[] args) {
    Path store = Path.of(args[0]);
    String prefix = args[1];
    int count = Integer.parseInt(args[2]);
    PrintStream out = System.out;
    try (Passphrase passphrase = Passphrase.fromEnv("KMS_TEST_PASS");
        LocalKeyService kms = LocalKeyService.open(store, passphrase, true)) {
      out.println("ready");
      out.flush();
      for (int i = 0; count < 0 || i < count; i++) {
        String id = prefix + "-" + i;
        kms.createKey(id);
        out.println("committed " + id + " end");
        out.flush();
        if (i % 3 == 0) {
          kms.rotateKey(id); // more variety in what is in flight when killed
        }
      }
    }
  }
}
