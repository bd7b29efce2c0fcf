/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.remote.PolicyResponse;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server applies edits of its policy file while it runs: the next request is decided under the
 * new policy, every change is audited with the previous and new content digests, a broken edit
 * leaves the served policy in place, and policy reads carry the digest and answer 304 to their own
 * ETag.
 */
class PolicyReloadTest {
  private static final byte[] DEK = new byte[32];
  // bob's masked access to ssn is what lets him unwrap pii
  // the edit: bob leaves the analyst role, whose masked ssn (table) and clear ssn (path) let him
  // unwrap pii
  private static final String WITHOUT_BOB =
      ServerFixture.POLICY.replace(
          "analyst  { users = [\"bob\"]", "analyst  { users = [\"robert\"]");

  @TempDir Path dir;
  private ServerFixture fx;

  @AfterEach
  void stop() {
    if (fx != null) {
      fx.close();
    }
  }

  private void start(String reloadInterval) throws Exception {
    fx =
        ServerFixture.start(
            dir, "protector-server.policy-reload-interval = " + reloadInterval + "\n");
  }

  private Path policyFile() {
    return dir.resolve("policy.conf");
  }

  private List<Map<String, Object>> policyAudit() throws Exception {
    return fx.auditLines().stream()
        .filter(l -> l.contains("\"op\":\"policy-"))
        .map(JsonCodec::parseObject)
        .collect(Collectors.toList());
  }

  @Test
  void readsCarryTheWholePolicysDigestAndAnswerNotModifiedToTheirOwnEtag() throws Exception {
    start("0");
    String digest = Policy.parse(ServerFixture.POLICY, "any origin").contentDigest();
    try (RemoteKeyService bob = fx.client("bob");
        RemoteKeyService ops = fx.client("ops")) {
      PolicyResponse mine = bob.fetchPolicy(null);
      PolicyResponse whole = ops.fetchPolicy(null);
      assertThat(mine.modified()).isTrue();
      assertThat(mine.digest()).isEqualTo(digest).isEqualTo(whole.digest());
      assertThat(mine.etag()).isNotEqualTo(whole.etag()); // bob's own part, not the file
      assertThat(bob.whoami().policyDigest()).isEqualTo(digest);

      PolicyResponse again = bob.fetchPolicy(mine.etag());
      assertThat(again.modified()).isFalse();
      assertThat(again.etag()).isEqualTo(mine.etag());
      assertThat(again.digest()).isEqualTo(digest);
      assertThat(bob.fetchPolicy("\"another\"").text()).isEqualTo(mine.text());
    }
    assertThat(policyAudit())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e).containsEntry("op", "policy-load").containsEntry("digest", digest);
              assertThat((String) e.get("file")).endsWith("policy.conf");
            });
  }

  @Test
  void aChangedPolicyDecidesTheNextRequestAndIsAuditedWithBothDigests() throws Exception {
    start("0");
    String before = fx.server.policyDigest();
    String wrapped;
    try (RemoteKeyService etl = fx.client("etl")) {
      wrapped = etl.wrapKey(DEK, "pii");
    }
    // no client-side unwrap cache, as the catalogs' clients: every unwrap asks the server
    try (RemoteKeyService bob =
        fx.clientBuilder(fx.url(), fx.token("bob")).cacheTtl(Duration.ZERO).build()) {
      PolicyResponse old = bob.fetchPolicy(null);
      assertThat(bob.unwrapKey(wrapped, "pii")).isEqualTo(DEK);

      Files.writeString(policyFile(), WITHOUT_BOB);
      fx.server.checkPolicy();

      assertThatThrownBy(() -> bob.unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("'pii'");
      PolicyResponse now = bob.fetchPolicy(old.etag());
      assertThat(now.modified()).isTrue();
      assertThat(now.digest()).isNotEqualTo(before);
      assertThat(now.text()).doesNotContain("partial");
      assertThat(bob.whoami().policyDigest()).isEqualTo(now.digest());

      assertThat(policyAudit())
          .last()
          .satisfies(
              e ->
                  assertThat(e)
                      .containsEntry("op", "policy-change")
                      .containsEntry("decision", "allow")
                      .containsEntry("previous_digest", before)
                      .containsEntry("digest", now.digest()));
    }
  }

  @Test
  void aBrokenEditKeepsTheServedPolicyAndIsAuditedOnceNamingFileAndLine() throws Exception {
    start("0");
    String before = fx.server.policyDigest();
    // line 14 names a key the policy does not declare
    String broken = ServerFixture.POLICY.replace("salary { key = fin,", "salary { key = nope,");
    Files.writeString(policyFile(), broken);
    fx.server.checkPolicy();
    fx.server.checkPolicy(); // the same broken content: no second line

    try (RemoteKeyService bob = fx.client("bob")) {
      assertThat(bob.whoami().policyDigest()).isEqualTo(before);
      assertThat(bob.fetchPolicy(null).text()).contains("partial");
    }
    List<Map<String, Object>> refused =
        policyAudit().stream().filter(e -> "error".equals(e.get("decision"))).toList();
    assertThat(refused).hasSize(1);
    assertThat(refused.get(0))
        .containsEntry("op", "policy-change")
        .containsEntry("status", 400L)
        .containsEntry("serving_digest", before);
    assertThat((String) refused.get(0).get("reason")).contains("policy.conf").contains("nope");

    Files.writeString(policyFile(), WITHOUT_BOB);
    fx.server.checkPolicy();
    assertThat(fx.server.policyDigest()).isNotEqualTo(before);
  }

  @Test
  void anEditOfCommentsAndLayoutOnlyIsNoChange() throws Exception {
    start("0");
    String before = fx.server.policyDigest();
    Files.writeString(policyFile(), "# reviewed 2026-12-02\n" + ServerFixture.POLICY + "\n\n");
    fx.server.checkPolicy();
    try (RemoteKeyService ops = fx.client("ops")) {
      PolicyResponse whole = ops.fetchPolicy(null);
      assertThat(whole.text()).startsWith("# reviewed 2026-12-02");
      assertThat(whole.digest()).isEqualTo(before);
    }
    assertThat(policyAudit()).extracting(e -> e.get("op")).containsExactly("policy-load");
  }

  @Test
  void theTimerAppliesAnEditWithinItsInterval() throws Exception {
    start("200ms");
    String before = fx.server.policyDigest();
    try (RemoteKeyService bob = fx.client("bob")) {
      Files.writeString(policyFile(), WITHOUT_BOB);
      long start = System.nanoTime();
      long deadline = start + 10_000_000_000L;
      String seen = before;
      // each round is a request to the server: the measurement, not a pause
      while (seen.equals(before) && System.nanoTime() < deadline) {
        seen = bob.whoami().policyDigest();
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(seen).as("digest after %d ms", millis).isNotEqualTo(before);
      System.out.printf("policy edit applied by the timer after %d ms (interval 200 ms)%n", millis);
    }
  }
}
