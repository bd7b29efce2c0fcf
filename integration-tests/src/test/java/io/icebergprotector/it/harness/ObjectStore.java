/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/** An S3-compatible server with one bucket, as the tests and the catalogs see it. */
public interface ObjectStore extends AutoCloseable {
  String REGION = "us-east-1";

  /** {@code http://127.0.0.1:<port>} (or the container's mapped address). */
  String endpoint();

  String accessKey();

  String secretKey();

  String bucket();

  default String region() {
    return REGION;
  }

  /** The store's process or container, for messages. */
  String describe();

  @Override
  void close();

  /**
   * Hadoop S3A settings for this store, as a user sets them in a Spark session's conf: path-style,
   * plain HTTP, static keys, and directory markers kept (s3proxy's filesystem backend keeps them as
   * directories, and deleting the marker of a non-empty one blocks for 10 s while jclouds retries).
   */
  default Map<String, String> s3aSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("fs.s3a.endpoint", endpoint());
    settings.put("fs.s3a.endpoint.region", region());
    settings.put("fs.s3a.path.style.access", "true");
    settings.put("fs.s3a.connection.ssl.enabled", "false");
    settings.put("fs.s3a.access.key", accessKey());
    settings.put("fs.s3a.secret.key", secretKey());
    settings.put(
        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    settings.put("fs.s3a.directory.marker.retention", "keep");
    settings.put("fs.s3a.connection.timeout", "60000");
    return settings;
  }

  /** A path-style S3 client (the SDK of iceberg-aws-bundle); close it after use. */
  default S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint()))
        .region(Region.of(region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey(), secretKey())))
        .build();
  }

  default void createBucket() {
    try (S3Client s3 = newClient()) {
      s3.createBucket(b -> b.bucket(bucket()));
    }
  }

  /** Every object in the bucket, with its bytes, in key order. */
  default Map<String, byte[]> readAllObjects() {
    Map<String, byte[]> objects = new LinkedHashMap<>();
    try (S3Client s3 = newClient()) {
      for (String key : listKeys(s3)) {
        objects.put(key, s3.getObjectAsBytes(b -> b.bucket(bucket()).key(key)).asByteArray());
      }
    }
    return objects;
  }

  default List<String> listKeys() {
    try (S3Client s3 = newClient()) {
      return listKeys(s3);
    }
  }

  private List<String> listKeys(S3Client s3) {
    List<String> keys = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(bucket())).contents().stream()
        .map(S3Object::key)
        .forEach(keys::add);
    return keys;
  }

  default void put(String key, byte[] bytes) {
    try (S3Client s3 = newClient()) {
      s3.putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromBytes(bytes));
    }
  }

  /** The Iceberg S3FileIO options that reach this store (client side, no vended credentials). */
  default Map<String, String> s3FileIoOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    options.put("s3.endpoint", endpoint());
    options.put("s3.path-style-access", "true");
    options.put("s3.access-key-id", accessKey());
    options.put("s3.secret-access-key", secretKey());
    options.put("client.region", region());
    return options;
  }
}
