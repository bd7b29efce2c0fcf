package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KmsClient;

/**
 * Parquet key-tools client (Iceberg's relocated Parquet) over our key service. Parquet creates it
 * by class name and caches it per access token; the token selects the principal's service.
 */
public final class ProtectorKmsClient implements KmsClient {
  private KeyService keys;

  @Override
  public void initialize(
      Configuration configuration,
      String kmsInstanceId,
      String kmsInstanceUrl,
      String accessToken) {
    this.keys =
        KeyServiceRegistry.lookup(accessToken)
            .orElseThrow(
                () ->
                    new KeyAccessDeniedException(
                        "No Iceberg Protector key service is registered in this JVM for the given"
                            + " access token; files must be read and written through the"
                            + " protector catalog"));
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
