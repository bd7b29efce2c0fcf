package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.spark.paths.PathScope;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.crypto.keytools.KmsClient;

/**
 * Parquet key-tools client over our key service for Spark's own (unshaded) parquet-mr: Spark's
 * Parquet data source with {@code parquet.crypto.factory.class =
 * org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory} and {@code
 * parquet.encryption.kms.client.class} set to this class. Same contract as {@link
 * ProtectorKmsClient} (Iceberg's relocated parquet-mr): the access token ({@code
 * parquet.encryption.key.access.token}, a {@code ProtectionSpec.cacheToken()}) selects the
 * principal's key service registered in this JVM, so no secret travels in a Hadoop configuration.
 *
 * <p>The plain-Parquet-path factory ({@code paths.PathPolicyCryptoFactory}) registers the service
 * before Parquet asks. A standalone parquet-mr reader that registered nothing may instead put the
 * protector settings into its Hadoop configuration ({@code protector.policy}, {@code
 * protector.kms.*}, {@code protector.user}, {@code protector.groups}, or the same with a {@code
 * spark.} prefix); it should then give each principal its own access token, since Parquet caches
 * clients per token.
 */
public final class ProtectorUnshadedKmsClient implements KmsClient {
  private KeyService keys;

  @Override
  public void initialize(
      Configuration configuration, String kmsInstanceId, String kmsInstanceUrl, String accessToken) {
    Optional<KeyService> registered = KeyServiceRegistry.lookup(accessToken);
    if (registered.isEmpty() && configuration != null) {
      // A standalone parquet-mr reader may name the principal in its own configuration instead.
      registered = PathScope.fromHadoop(configuration).map(s -> KeyServiceRegistry.obtain(s.keyScope()));
    }
    this.keys =
        registered.orElseThrow(
            () ->
                new KeyAccessDeniedException(
                    "No Iceberg Protector key service is registered in this JVM for the given"
                        + " access token (parquet.encryption.key.access.token); register the"
                        + " principal's service first (KeyServiceRegistry.obtain)"));
  }

  @Override
  public String wrapKey(byte[] keyBytes, String masterKeyIdentifier) {
    try {
      return keys.wrap(masterKeyIdentifier, keyBytes);
    } catch (io.icebergprotector.kms.KeyAccessDeniedException e) {
      throw new KeyAccessDeniedException(e.getMessage(), e);
    } catch (KeyServiceException e) {
      throw new ParquetCryptoRuntimeException(e.getMessage(), e);
    }
  }

  @Override
  public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
    try {
      return keys.unwrap(masterKeyIdentifier, wrappedKey);
    } catch (io.icebergprotector.kms.KeyAccessDeniedException e) {
      throw new KeyAccessDeniedException(e.getMessage(), e);
    } catch (KeyServiceException e) {
      throw new ParquetCryptoRuntimeException(e.getMessage(), e);
    }
  }
}
