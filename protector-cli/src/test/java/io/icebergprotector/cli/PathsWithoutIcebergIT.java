/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.testing.ManagedProcess;
import io.icebergprotector.testing.SparkSubmit;
import io.icebergprotector.testing.TestPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths-only mode on a Spark classpath without Iceberg (issue 19 item 4): {@code spark-submit} in a
 * child JVM whose classpath has Spark (and the Hadoop and unshaded parquet-mr it brings) but no
 * iceberg-spark-runtime, with the protector's runtime jar given by {@code --jars} and configured
 * only as docs/spark/paths.md ("Without Iceberg") says ({@code
 * spark.sql.extensions=io.icebergprotector.spark.ProtectorSparkSessionExtensions} and {@code
 * spark.protector.*}), with a local keystore. It writes under a protected prefix as a writer and
 * reads back as a clear, a masked and a denied principal ({@link PathsSmokeMain}); the files it
 * wrote are encrypted Parquet holding no protected canary.
 *
 * <p>Runs in the {@code integration-test} phase, after {@code package} copied the runtime jar to
 * {@code target/packages-it} (see {@link PackagesIT}).
 */
class PathsWithoutIcebergIT {
  private static final long ROWS = 20;

  @TempDir static Path tmp;

  @Test
  void pathsModeProtectsWithoutIcebergOnTheClasspath() throws Exception {
    PackagesIT.artifacts();
    Path work = Files.createDirectories(tmp.resolve("work"));
    Path prot = work.resolve("prot");
    Path out = prot.resolve("people");
    Files.writeString(work.resolve("passphrase"), "paths-it passphrase");
    TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .keys("pii", "footer")
        .path(
            prot.toUri().toString(),
            p ->
                p.footerKey("footer")
                    .writers("etl")
                    .column(
                        "ssn",
                        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)"))
                    .column("email", c -> c.key("pii").clear("admin").masked("analyst", "hash")))
        .writeTo(work.resolve("policy.conf"));
    Path app = SparkSubmit.appJar(tmp.resolve("paths-smoke.jar"), PathsSmokeMain.class);

    // spark-submit as docs/spark/paths.md shows it: the runtime jar with --jars, the settings with
    // --conf.
    List<String> cmd = new ArrayList<>();
    cmd.add(ManagedProcess.javaExecutable());
    cmd.add("-Xmx1g");
    cmd.addAll(SparkSubmit.opens());
    cmd.add("-cp");
    cmd.add(PackagesIT.sparkClasspathWithoutIceberg());
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.addAll(
        List.of(
            "--master",
            "local[2]",
            "--jars",
            PackagesIT.jar.toString(),
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.sql.extensions=io.icebergprotector.spark.ProtectorSparkSessionExtensions",
            "--conf",
            "spark.protector.policy=" + work.resolve("policy.conf"),
            "--conf",
            "spark.protector.kms.keystore=" + work.resolve("keys.p12"),
            "--conf",
            "spark.protector.kms.passphrase-file=" + work.resolve("passphrase"),
            "--conf",
            "spark.protector.kms.create-missing-keys=true",
            "--class",
            PathsSmokeMain.class.getName(),
            app.toString(),
            out.toString(),
            Long.toString(ROWS)));

    SparkSubmit.Child child = SparkSubmit.run(cmd, work, tmp.resolve("child"));
    String output = child.stdout;
    String both = child.describe();
    assertThat(child.exitCode).as(both).isZero();

    List<String> smoke =
        output.lines().filter(l -> l.startsWith("PATHS-SMOKE ")).collect(Collectors.toList());
    smoke.forEach(System.out::println);
    assertThat(smoke)
        .as(both)
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("iceberg=absent")
                    .contains("etl-wrote=" + ROWS)
                    .contains("alice=rows:" + ROWS + ",ssn:clear,email:clear")
                    .contains("bob=rows:" + ROWS + ",ssn:partial,email:hash")
                    .contains("carol=rows:" + ROWS + ",ssn:null,email:null")
                    .contains("carol-write=refused(")
                    .contains("may not write")
                    .contains("from=file:")
                    .contains("/" + PackagesIT.jar.getFileName()));

    List<Path> files;
    try (Stream<Path> walk = Files.walk(out)) {
      files =
          walk.filter(p -> p.getFileName().toString().endsWith(".parquet"))
              .collect(Collectors.toList());
    }
    assertThat(files).as("data files under %s", out).isNotEmpty();
    List<String> canaries =
        LongStream.rangeClosed(1, ROWS)
            .boxed()
            .flatMap(id -> Stream.of(PathsSmokeMain.ssn(id), PathsSmokeMain.email(id)))
            .collect(Collectors.toList());
    boolean unprotectedSeen = false;
    for (Path file : files) {
      byte[] bytes = Files.readAllBytes(file);
      String text = new String(bytes, StandardCharsets.ISO_8859_1);
      assertThat(text)
          .as("%s starts with the magic of an encrypted footer", file)
          .startsWith("PARE");
      for (String canary : canaries) {
        assertThat(text.contains(canary)).as("a protected canary in %s", file).isFalse();
      }
      unprotectedSeen |=
          text.contains(PathsSmokeMain.name(1)) || text.contains(PathsSmokeMain.name(ROWS));
    }
    // Positive control: the unprotected column is plaintext (uncompressed), so the search works.
    assertThat(unprotectedSeen).as("the unprotected name column in clear in %s", files).isTrue();
  }
}
