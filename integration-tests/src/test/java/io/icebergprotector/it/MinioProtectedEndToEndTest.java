/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import io.icebergprotector.it.harness.MinioStore;
import io.icebergprotector.it.harness.ObjectStore;
import io.icebergprotector.it.harness.RequiresDocker;
import java.nio.file.Path;

/** The protected end-to-end checks with MinIO (Testcontainers) as the object store. */
@RequiresDocker
class MinioProtectedEndToEndTest extends ProtectedEndToEndTest {
  @Override
  protected ObjectStore createObjectStore(String name, Path workDir) {
    return MinioStore.start(BUCKET);
  }
}
