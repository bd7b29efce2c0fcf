package io.icebergprotector.spark.flow;

import io.icebergprotector.spark.ProtectorException;
import io.icebergprotector.kms.KmsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last word on a declassifying write that the policy and the session already allow. With the
 * local keystore it logs the write; with the key server, the server must authorize and audit it.
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
    if (kms.type() == KmsSettings.Type.REMOTE) {
      return ServerAuthorizationPending.INSTANCE;
    }
    return Logged.INSTANCE;
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
   * Key server: it must authorize and audit the declassification ({@code POST
   * /v1/protector/declassify}). Until this extension's client can ask it, such writes are refused
   * rather than allowed without the server's audit.
   */
  final class ServerAuthorizationPending implements DeclassificationGate {
    static final ServerAuthorizationPending INSTANCE = new ServerAuthorizationPending();

    private ServerAuthorizationPending() {}

    @Override
    public void authorize(Declassification request) {
      throw new ProtectorException(
          String.format(
              "Declassification refused: %s needs the key server to authorize and audit it, and"
                  + " this version of the extension cannot ask the key server yet",
              request.describe()));
    }
  }
}
