/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link Locations}: one spelling per location, and prefix matching on it. */
class LocationsTest {
  @Test
  void localPathsHaveOneSpelling() {
    for (String spelling :
        new String[] {
          "/data/prot",
          "/data/prot/",
          "file:/data/prot",
          "file:///data/prot/",
          "FILE:/data/prot",
          "file://localhost/data/prot",
          "/data//prot",
          "/data/./prot/.",
          "/data/x/../prot",
          "file:/data/prot//",
          "/../data/prot"
        }) {
      assertThat(Locations.normalize(spelling)).as(spelling).isEqualTo("file:/data/prot");
    }
    assertThat(Locations.normalize("/")).isEqualTo("file:/");
    assertThat(Locations.normalize("file:///")).isEqualTo("file:/");
    assertThat(Locations.normalize("/..")).isEqualTo("file:/");
  }

  @Test
  void objectStoreAndHdfsLocations() {
    assertThat(Locations.normalize("S3A://Bucket/pii/")).isEqualTo("s3a://bucket/pii");
    assertThat(Locations.normalize("s3a://bucket//pii/./x/../y")).isEqualTo("s3a://bucket/pii/y");
    assertThat(Locations.normalize("s3a://bucket")).isEqualTo("s3a://bucket");
    assertThat(Locations.normalize("s3a://bucket/")).isEqualTo("s3a://bucket");
    assertThat(Locations.normalize("hdfs://NN:8020/a/b/")).isEqualTo("hdfs://nn:8020/a/b");
    // the path keeps its case: object keys and POSIX names are case-sensitive
    assertThat(Locations.normalize("s3a://bucket/PII/Ssn")).isEqualTo("s3a://bucket/PII/Ssn");
  }

  @Test
  void relativePathsAreLeftAlone() {
    assertThat(Locations.normalize("data/prot")).isEqualTo("data/prot");
    assertThat(Locations.normalize(null)).isNull();
  }

  @Test
  void coversWholeSegments() {
    assertThat(Locations.covers("s3a://b/pii", "s3a://b/pii")).isTrue();
    assertThat(Locations.covers("s3a://b/pii", "s3a://b/pii/x")).isTrue();
    assertThat(Locations.covers("s3a://b/pii", "s3a://b/pii2")).isFalse();
    assertThat(Locations.covers("file:/", "file:/x")).isTrue();
    assertThat(Locations.covers("s3a://b", "s3a://b/x")).isTrue();
    assertThat(Locations.isBelow("file:/a/b", "file:/a")).isTrue();
    assertThat(Locations.isBelow("file:/a", "file:/a")).isFalse();
    assertThat(Locations.isBelow("file:/ab", "file:/a")).isFalse();
  }

  @Test
  void policyPrefixesMatchEverySpelling() {
    Policy policy =
        Policy.parse(
            """
            protector {
              roles { etl { users = [etl] } }
              keys { pii {}, footer {} }
              paths {
                "file:/data/prot/" { footer-key = footer, writers = [etl], columns { ssn { key = pii } } }
                "S3A://Bucket/pii" { footer-key = footer, writers = [etl], columns { ssn { key = pii } } }
                "/data/prot/inner" { footer-key = footer, columns { ssn { key = pii } } }
              }
            }
            """,
            "locations.conf");
    for (String location :
        new String[] {
          "/data/prot",
          "file:///data/prot",
          "file:/data/prot/",
          "file:/data//prot/x/part-0.parquet",
          "/data/other/../prot/x",
          "FILE:/data/prot/./x"
        }) {
      assertThat(policy.pathFor(location))
          .as(location)
          .get()
          .extracting(TablePolicy::name)
          .isEqualTo("file:/data/prot/");
    }
    assertThat(policy.pathFor("/data/prot/inner/"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo("/data/prot/inner");
    assertThat(policy.pathFor("s3a://bucket/pii"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo("S3A://Bucket/pii");
    assertThat(policy.pathFor("s3a://bucket/pii2/x")).isEmpty();
    assertThat(policy.pathFor("/data/prot/../open/x")).isEmpty();
    assertThat(policy.pathFor("/data/protected")).isEmpty();
  }

  @Test
  void twoSpellingsOfOnePrefixAreRefused() {
    assertThatThrownBy(
            () ->
                Policy.parse(
                    """
                    protector {
                      keys { pii {}, footer {} }
                      paths {
                        "file:/data/prot/" { footer-key = footer, columns { ssn { key = pii } } }
                        "/data//prot" { footer-key = footer, columns { ssn { key = pii } } }
                      }
                    }
                    """,
                    "dup.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("'/data//prot' names the same location as 'file:/data/prot/'")
        .hasMessageContaining("file:/data/prot");
  }
}
