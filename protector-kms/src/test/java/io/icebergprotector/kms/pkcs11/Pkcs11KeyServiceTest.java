/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Pkcs11KeyService} against Debian's SoftHSM2. Skipped (with the reason) only when softhsm2
 * is not installed; CI installs it.
 *
 * <p>Each test gets a fresh private token directory and runs its body ({@link Pkcs11Scenarios}) in
 * a child JVM whose environment carries SOFTHSM2_CONF. Why a child JVM rather than surefire's
 * environmentVariables: SoftHSM reads SOFTHSM2_CONF once, when the library is initialized, and a
 * PKCS#11 library is initialized once per process; so one test JVM could only ever see one token
 * directory, prepared before the first test touched the library, and the tests would depend on
 * surefire configuration (not run the same from an IDE). A child per test gives isolation, needs no
 * pom change, and makes "objects persist in the token across processes" testable.
 */
class Pkcs11KeyServiceTest {
  @TempDir Path dir;
  private SoftHsm hsm;

  @BeforeEach
  void initToken() throws Exception {
    // Per test (not @BeforeAll) so that every test is reported as skipped, with the reason.
    assumeTrue(SoftHsm.installed(), SoftHsm.MISSING);
    hsm = SoftHsm.create(dir).orElseThrow();
    hsm.initToken("test");
  }

  private void passes(String scenario) throws Exception {
    SoftHsm.Result result = hsm.run(scenario, Map.of());
    assertThat(result.exitCode())
        .as("scenario %s in child JVM, output:%n%s", scenario, result.output())
        .isZero();
    assertThat(result.output()).contains("SCENARIO PASSED: " + scenario);
  }

  @Test
  @Timeout(120)
  void createWrapUnwrapRoundTrip() throws Exception {
    passes("roundTrip");
  }

  @Test
  @Timeout(120)
  void keysAreNonExtractableTokenObjects() throws Exception {
    passes("nonExtractable");
  }

  @Test
  @Timeout(120)
  void rotationKeepsOldBlobsUnwrappable() throws Exception {
    passes("rotation");
  }

  @Test
  @Timeout(120)
  void retiredVersionsAreDeletedFromTheTokenAndNoLongerUnwrap() throws Exception {
    passes("retire");
  }

  @Test
  @Timeout(120)
  void replayUnderAnotherKeyOrVersionAndTamperingFail() throws Exception {
    passes("replayAndTamper");
  }

  @Test
  @Timeout(120)
  void destroyShredsAllVersionsAndLeavesATombstone() throws Exception {
    passes("destroy");
  }

  @Test
  @Timeout(120)
  void deriveKeyIsStableAcrossRotationAndReopen() throws Exception {
    passes("deriveStable");
  }

  @Test
  @Timeout(120)
  void localKeyServiceCannotUnwrapTokenBlobs() throws Exception {
    passes("localCannotUnwrap");
  }

  @Test
  @Timeout(180)
  void tokenObjectsAndTombstonesPersistAcrossProcesses() throws Exception {
    passes("persistWrite");
    passes("persistReadAndDestroy");
    passes("persistDestroyed");
  }

  @Test
  @Timeout(120)
  void clearErrorsForMissingLibraryWrongPinAndUnknownLabel() throws Exception {
    passes("errors");
  }

  @Test
  @Timeout(120)
  void tokenLabelSelectsTheToken() throws Exception {
    hsm.initToken("other");
    passes("labelSelection");
  }

  @Test
  @Timeout(120)
  void duplicateVersionObjectsFromARotationRaceLoseNoBlob() throws Exception {
    passes("rotationRace");
  }

  @Test
  @Timeout(120)
  void concurrentWrapUnwrapDeriveAndRotate() throws Exception {
    passes("concurrentUse");
  }

  @Test
  @Timeout(120)
  void catalogOptionsOpenTheTokenThroughKeyServices() throws Exception {
    passes("fromSettings");
  }
}
