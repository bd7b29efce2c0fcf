/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.remote.DeclassificationDeniedException;
import io.icebergprotector.kms.remote.DeclassifyReceipt;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.spark.core.ProtectorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last word on a declassifying write that the policy and the session already allow. With the
 * local keystore it logs the write; with the key server, the server must authorize and audit it,
 * and the write fails when it refuses or cannot be asked.
 */
public interface DeclassificationGate {
  /** Name of the logger that records every allowed declassifying write at WARN. */
  String LOGGER = "io.icebergprotector.spark.flow.Declassification";

  /**
   * Allows the write, or throws {@link ProtectorException} naming why it is refused. Called on the
   * driver before any file is written.
   */
  void authorize(Declassification request);

  /** The gate of the key service that decides for a source. */
  static DeclassificationGate forKeyService(KmsSettings kms) {
    return kms.type() == KmsSettings.Type.REMOTE ? new ServerAuthorized(kms) : Logged.INSTANCE;
  }

  /** Local keystore: the policy and the session setting decide; the write is logged. */
  final class Logged implements DeclassificationGate {
    static final Logged INSTANCE = new Logged();
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private Logged() {}

    @Override
    public void authorize(Declassification request) {
      LOG.warn("Declassifying write: {}", request.describe());
    }
  }

  /**
   * Key server: {@code POST /v1/protector/declassify} checks the token's principal against the
   * source entry's {@code declassify} roles and writes an audit line; the log line carries the
   * audit id.
   */
  final class ServerAuthorized implements DeclassificationGate {
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private final KmsSettings kms;

    ServerAuthorized(KmsSettings kms) {
      this.kms = kms;
    }

    @Override
    public void authorize(Declassification request) {
      DeclassifyReceipt receipt;
      try (RemoteKeyService server = KeyServices.openRemote(kms)) {
        receipt =
            server.authorizeDeclassification(
                request.source().entry().name(),
                request.columns(),
                request.destination(),
                request.requestId());
      } catch (DeclassificationDeniedException e) {
        throw new ProtectorException(
            String.format(
                "Declassification refused by the key server at %s: %s (%s)",
                kms.url(), request.describe(), e.getMessage()));
      } catch (KeyServiceException e) {
        throw new ProtectorException(
            String.format(
                "Declassification refused: the key server at %s must authorize and audit it, and"
                    + " could not: %s (%s)",
                kms.url(), request.describe(), e.getMessage()),
            e);
      }
      LOG.warn(
          "Declassifying write: {}; key server audit {} at {}",
          request.describe(),
          receipt.auditId(),
          receipt.time());
    }
  }
}
