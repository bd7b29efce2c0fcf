/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Symbolic links and aliases resolve to where the data really is, for the policy lookup. */
class CanonicalLocationsTest {
  @TempDir static Path tmp;
  static Path root;

  @BeforeAll
  static void layout() throws IOException {
    root = tmp.toRealPath();
    Files.createDirectories(root.resolve("real/prot/base"));
    Files.createDirectories(root.resolve("open"));
    Files.createSymbolicLink(root.resolve("open/link"), root.resolve("real/prot"));
    Files.createSymbolicLink(root.resolve("open/relative"), Path.of("../real/prot"));
    Files.createSymbolicLink(root.resolve("open/dangling"), root.resolve("real/prot/later"));
    Files.createSymbolicLink(root.resolve("aliasprefix"), root.resolve("real/aliased"));
    Files.createDirectories(root.resolve("real/aliased"));
  }

  static CanonicalLocations local() {
    return new CanonicalLocations(() -> null);
  }

  @Test
  void linksResolveOnTheDeepestExistingAncestor() {
    String prot = "file:" + root + "/real/prot";
    assertThat(local().canonical("file:" + root + "/open/link")).isEqualTo(prot);
    assertThat(local().canonical("file:" + root + "/open/link/base/part-0.parquet"))
        .isEqualTo(prot + "/base/part-0.parquet");
    assertThat(local().canonical("file:" + root + "/open/relative/new/dir/f.parquet"))
        .isEqualTo(prot + "/new/dir/f.parquet");
    // writing through a dangling link creates its target
    assertThat(local().canonical("file:" + root + "/open/dangling/f.parquet"))
        .isEqualTo(prot + "/later/f.parquet");
    // no link on the way: unchanged; object stores: unchanged
    assertThat(local().canonical("file:" + root + "/open/plain/x"))
        .isEqualTo("file:" + root + "/open/plain/x");
    assertThat(local().canonical("s3a://bucket/open/link")).isEqualTo("s3a://bucket/open/link");
  }

  @Test
  void viewfsMountPointsResolveToTheirTarget() {
    Configuration conf = new Configuration(false);
    conf.set("fs.viewfs.mounttable.cl.link./data", "file:" + root + "/real");
    conf.set("fs.viewfs.impl", "org.apache.hadoop.fs.viewfs.ViewFileSystem");
    conf.set("fs.file.impl", "org.apache.hadoop.fs.LocalFileSystem");
    CanonicalLocations viewfs = new CanonicalLocations(() -> conf);
    assertThat(viewfs.canonical("viewfs://cl/data/prot/base/new.parquet"))
        .isEqualTo("file:" + root + "/real/prot/base/new.parquet");
  }

  @Test
  void thePolicyLookupSeesThroughLinksInLocationsAndPrefixes() throws IOException {
    Path policy = root.resolve("policy.conf");
    Files.writeString(
        policy,
        TestPolicy.builder()
            .keys("pii", "footer")
            .path(root + "/real/prot/", p -> p.footerKey("footer").column("ssn", c -> c.key("pii")))
            .path(
                "file://" + root + "/aliasprefix",
                p -> p.footerKey("footer").column("ssn", c -> c.key("pii")))
            .render());
    Path passphrase = root.resolve("passphrase");
    Files.writeString(passphrase, "canonical-test");
    Map<String, String> options = new TreeMap<>();
    options.put("protector.policy", policy.toString());
    options.put("protector.kms.keystore", root.resolve("keys.p12").toString());
    options.put("protector.kms.passphrase-file", passphrase.toString());
    options.put("protector.user", "etl");
    PathScope scope = PathScope.of(options, false).orElseThrow();

    assertThat(scope.policyFor("file:" + root + "/open/link/base"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo(root + "/real/prot/");
    assertThat(scope.policyFor(root + "/open/dangling")).isPresent();
    assertThat(scope.policyFor("file:" + root + "/real/aliased/x"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo("file://" + root + "/aliasprefix");
    assertThat(scope.policyFor("file:" + root + "/open/x")).isEmpty();
    // a read of the parent of a link to a prefix may include files under the prefix
    assertThat(scope.hasPrefixBelow("file:" + root + "/open")).isFalse();
    assertThat(scope.hasPrefixBelow("file:" + root)).isTrue();
    assertThat(scope.hasPrefixBelow(root + "/real/")).isTrue();
  }
}
