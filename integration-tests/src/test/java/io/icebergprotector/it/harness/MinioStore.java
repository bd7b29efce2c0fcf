/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MinIOContainer;

/** MinIO in a Docker container through Testcontainers; only where a Docker daemon runs. */
public final class MinioStore implements ObjectStore {
  public static final String IMAGE = "minio/minio:RELEASE.2025-04-22T22-12-26Z";
  public static final String SKIP_MESSAGE = "Docker is not available: skipping MinIO tests";

  private final MinIOContainer container;
  private final String bucket;

  private MinioStore(MinIOContainer container, String bucket) {
    this.container = container;
    this.bucket = bucket;
  }

  public static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  public static MinioStore start(String bucket) {
    MinIOContainer container =
        new MinIOContainer(IMAGE).withUserName("it-minio-user").withPassword("it-minio-password");
    container.start();
    MinioStore store = new MinioStore(container, bucket);
    store.createBucket();
    return store;
  }

  @Override
  public String endpoint() {
    return container.getS3URL();
  }

  @Override
  public String accessKey() {
    return container.getUserName();
  }

  @Override
  public String secretKey() {
    return container.getPassword();
  }

  @Override
  public String bucket() {
    return bucket;
  }

  @Override
  public String describe() {
    return "MinIO container " + container.getContainerId() + " at " + endpoint();
  }

  @Override
  public void close() {
    container.stop();
  }
}
