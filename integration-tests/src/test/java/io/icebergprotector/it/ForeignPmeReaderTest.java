/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.parquet.crypto.keytools.KmsClient;
import org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 1: a protected table's files open in a PME reader that this project did not write.
 * parquet-mr's {@code PropertiesDrivenCryptoFactory} reads them with a {@link KmsClient} that
 * speaks the key server's Vault-transit API (the shape a PyArrow {@code KmsClient} takes): the file
 * stores its binding, so the reader needs no AAD prefix. Each principal decrypts the columns whose
 * master keys the server releases to it, and only those.
 */
class ForeignPmeReaderTest extends KeyServerStackTestBase {
  private static final String POLICY =
      TestPolicy.resource(ForeignPmeReaderTest.class, "policies/ForeignPmeReaderTest.conf");
  private static final String SSN = "ssn-canary-7731";

  /** The server's trust, for the KmsClient that parquet-mr instantiates by class name. */
  private static volatile HttpClient serverHttp;

  private final List<Path> files = new ArrayList<>();

  ForeignPmeReaderTest() {
    super(POLICY, List.of("alice", "harry", "etl"), List.of("pii", "fin", "footer"));
  }

  @BeforeAll
  void writeAFile() throws IOException {
    serverHttp = keyServer.httpClient();
    SparkSession etl = spark.newSession();
    configureProt(etl, "etl", Map.of());
    etl.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    etl.sql("CREATE TABLE prot.db.people (id BIGINT, ssn STRING, salary BIGINT) USING iceberg");
    etl.sql("INSERT INTO prot.db.people VALUES (1, '" + SSN + "', 5100), (2, 'ssn-2', 6200)");
    for (Map.Entry<String, byte[]> object : store.readAllObjects().entrySet()) {
      if (object.getKey().contains("people") && object.getKey().endsWith(".parquet")) {
        Path copy = work.resolve("people-" + files.size() + ".parquet");
        Files.write(copy, object.getValue());
        files.add(copy);
      }
    }
    assertThat(files).as("data files of db.people in the bucket").isNotEmpty();
  }

  private Configuration readerConf(String principal) {
    Configuration conf = new Configuration();
    conf.set("parquet.crypto.factory.class", PropertiesDrivenCryptoFactory.class.getName());
    conf.set(KeyToolkit.KMS_CLIENT_CLASS_PROPERTY_NAME, TransitKmsClient.class.getName());
    conf.set(KeyToolkit.KMS_INSTANCE_URL_PROPERTY_NAME, keyServer.url());
    conf.set(KeyToolkit.KEY_ACCESS_TOKEN_PROPERTY_NAME, keyServer.token(principal));
    return conf;
  }

  private List<String> read(String principal, String projection) throws IOException {
    Configuration conf = readerConf(principal);
    MessageType requested = MessageTypeParser.parseMessageType(projection);
    conf.set(org.apache.parquet.hadoop.api.ReadSupport.PARQUET_READ_SCHEMA, requested.toString());
    List<String> rows = new ArrayList<>();
    for (Path file : files) {
      try (ParquetReader<Group> reader =
          ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
              .withConf(conf)
              .build()) {
        for (Group g = reader.read(); g != null; g = reader.read()) {
          StringBuilder row = new StringBuilder();
          for (int i = 0; i < g.getType().getFieldCount(); i++) {
            row.append(i == 0 ? "" : ",").append(g.getValueToString(i, 0));
          }
          rows.add(row.toString());
        }
      }
    }
    return rows;
  }

  @Test
  void aClearReaderReadsEveryColumnWithoutSupplyingAnAadPrefix() throws IOException {
    assertThat(
            read(
                "alice",
                "message table { required int64 id = 1; required binary ssn (STRING) = 2;"
                    + " required int64 salary = 3; }"))
        .containsExactlyInAnyOrder("1," + SSN + ",5100", "2,ssn-2,6200");
  }

  @Test
  void aReaderReadsOnlyTheColumnsWhoseKeysTheServerReleasesToIt() throws IOException {
    assertThat(read("harry", "message table { required int64 id = 1; required int64 salary = 3; }"))
        .containsExactlyInAnyOrder("1,5100", "2,6200");
    assertThatThrownBy(
            () ->
                read(
                    "harry",
                    "message table { required int64 id = 1; required binary ssn (STRING) = 2; }"))
        .satisfies(
            e -> {
              String chain = chain(e);
              assertThat(chain)
                  .as(chain)
                  .contains("KeyAccessDeniedException: Column [ssn]: key access denied")
                  .contains("key pii denied")
                  .contains("\"principal\":\"harry\"");
              assertThat(stackTrace(e)).doesNotContain(SSN);
            });
  }

  /** Each cause's class and message, for asserting what refused the read. */
  private static String chain(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      out.append(c.getClass().getName()).append(": ").append(c.getMessage()).append(" | ");
    }
    return out.toString();
  }

  private static String stackTrace(Throwable t) {
    java.io.StringWriter out = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  /**
   * A parquet-mr KmsClient over the key server's Vault-transit endpoints, written as any team would
   * write one for Vault: {@code encrypt}/{@code decrypt} with the caller's token. A 403 is the key
   * being denied to the caller, which parquet-mr turns into a hidden column.
   */
  public static final class TransitKmsClient implements KmsClient {
    private String url;
    private String token;

    @Override
    public void initialize(
        Configuration configuration, String kmsInstanceID, String kmsInstanceURL, String token) {
      this.url = configuration.get(KeyToolkit.KMS_INSTANCE_URL_PROPERTY_NAME);
      this.token = token;
    }

    @Override
    public String wrapKey(byte[] keyBytes, String masterKeyIdentifier) {
      Map<String, Object> data =
          call(
              "encrypt",
              masterKeyIdentifier,
              Map.of("plaintext", Base64.getEncoder().encodeToString(keyBytes)));
      return (String) data.get("ciphertext");
    }

    @Override
    public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
      Map<String, Object> data =
          call("decrypt", masterKeyIdentifier, Map.of("ciphertext", wrappedKey));
      return Base64.getDecoder().decode((String) data.get("plaintext"));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> call(String action, String key, Map<String, Object> body) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(url + "/v1/transit/" + action + "/" + key))
              .timeout(Duration.ofSeconds(10))
              .header("X-Vault-Token", token)
              .POST(HttpRequest.BodyPublishers.ofString(JsonCodec.write(body)))
              .build();
      HttpResponse<String> response;
      try {
        response = serverHttp.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new ParquetCryptoRuntimeException("key server unreachable: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ParquetCryptoRuntimeException("interrupted calling the key server", e);
      }
      if (response.statusCode() == 403) {
        throw new KeyAccessDeniedException("key " + key + " denied: " + response.body());
      }
      if (response.statusCode() != 200) {
        throw new ParquetCryptoRuntimeException(
            "key server answered " + response.statusCode() + " for " + action + " with " + key);
      }
      return (Map<String, Object>) JsonCodec.parseObject(response.body()).get("data");
    }
  }
}
