package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import java.util.List;

/**
 * Counts the key-service calls (wrap, unwrap, deriveKey, failed ones included) made by the current
 * thread, so a Spark task reports its own calls even when other tasks of the same executor call
 * the key service at the same time: reads and writes call it on the task thread.
 */
public final class ThreadKeyCalls implements KeyService {
  private static final ThreadLocal<long[]> CALLS = ThreadLocal.withInitial(() -> new long[1]);

  private final KeyService delegate;

  ThreadKeyCalls(KeyService delegate) {
    this.delegate = delegate;
  }

  /** Calls that reached a key-service backend from this thread since it started. */
  public static long ofThisThread() {
    return CALLS.get()[0];
  }

  private static void count() {
    CALLS.get()[0] += 1;
  }

  @Override
  public KeyInfo createKey(String keyId) {
    return delegate.createKey(keyId);
  }

  @Override
  public KeyInfo rotateKey(String keyId) {
    return delegate.rotateKey(keyId);
  }

  @Override
  public void destroyKey(String keyId) {
    delegate.destroyKey(keyId);
  }

  @Override
  public List<KeyInfo> listKeys() {
    return delegate.listKeys();
  }

  @Override
  public KeyInfo describeKey(String keyId) {
    return delegate.describeKey(keyId);
  }

  @Override
  public String wrap(String keyId, byte[] plaintext) {
    count();
    return delegate.wrap(keyId, plaintext);
  }

  @Override
  public byte[] unwrap(String keyId, String wrapped) {
    count();
    return delegate.unwrap(keyId, wrapped);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    count();
    return delegate.deriveKey(keyId, context);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return "ThreadKeyCalls(" + delegate + ")";
  }
}
