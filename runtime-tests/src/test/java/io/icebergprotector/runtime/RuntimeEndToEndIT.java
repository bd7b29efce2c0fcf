package io.icebergprotector.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end set for one Spark target (the module's Spark, Scala and iceberg-spark-runtime):
 * its runtime jar, deployed with its pom to a Maven-layout file repository, is installed by {@code
 * SparkSubmit --packages} (offline, from that repository only) into a child JVM that holds only
 * that Spark and Iceberg, which writes a protected table, reads it as three principals, calls
 * {@code rewrite_protected} and reads again ({@link RuntimeSmokeMain}). Then the warehouse files
 * are searched for the protected value (never there in clear) and for an unprotected one (there).
 */
class RuntimeEndToEndIT {
  static final String GROUP = "io.icebergprotector";
  static final String SSN = "123-45-6789";
  static final String NAME = "Annabel";

  static String artifact;
  static String version;
  static Path jar;
  static Path pom;

  @TempDir static Path tmp;

  @BeforeAll
  static void artifacts() {
    artifact = System.getProperty("runtime.artifact");
    version = System.getProperty("runtime.version");
    Path dir = Path.of(System.getProperty("runtime.dir"));
    jar = dir.resolve(artifact + "-" + version + ".jar");
    pom = dir.resolve(artifact + "-" + version + ".pom");
    assertThat(jar).as("the runtime jar, copied at package; run 'mvn verify'").isRegularFile();
    assertThat(pom).as("the runtime pom, copied at package; run 'mvn verify'").isRegularFile();
  }

  /** A Maven-layout file repository at {@code repo} holding the runtime jar and its pom. */
  static Path fileRepository(Path repo) throws IOException {
    Path versionDir = repo.resolve(GROUP.replace('.', '/')).resolve(artifact).resolve(version);
    Files.createDirectories(versionDir);
    Files.copy(jar, versionDir.resolve(jar.getFileName()));
    Files.copy(pom, versionDir.resolve(pom.getFileName()));
    return repo;
  }

  @Test
  void pomHasNoDependenciesAndNoParent() throws IOException {
    assertThat(Files.readString(pom))
        .contains("<artifactId>" + artifact + "</artifactId>")
        .doesNotContain("<dependency>")
        .doesNotContain("<parent>");
  }

  @Test
  void installsWithPackagesAndProtects() throws Exception {
    Path repo = fileRepository(tmp.resolve("repo"));
    // a default resolver that finds nothing: only --repositories resolves, never ~/.m2 or a network
    Path ivySettings = tmp.resolve("ivysettings.xml");
    Files.writeString(
        ivySettings,
        "<ivysettings><settings defaultResolver=\"nothing\"/>"
            + "<resolvers><chain name=\"nothing\"/></resolvers></ivysettings>\n");
    Path work = tmp.resolve("work");
    Path warehouse = work.resolve("warehouse");
    Files.createDirectories(work);
    Files.writeString(work.resolve("passphrase"), "runtime-it passphrase");
    Files.writeString(
        work.resolve("policy.conf"),
        String.join(
            "\n",
            "protector {",
            "  roles { admin { users = [alice] }, analyst { users = [bob] }, etl { users = [etl] } }",
            "  keys { pii {}, footer {} }",
            "  tables {",
            "    \"db.people\" {",
            "      footer-key = footer",
            "      writers = [etl, admin]",
            "      columns { ssn { key = pii, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } } }",
            "    }",
            "  }",
            "}"));
    Path app = tmp.resolve("runtime-smoke.jar");
    appJar(app, RuntimeSmokeMain.class);

    String p = "spark.sql.catalog.prot";
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.addAll(List.of(OPENS.split(" ")));
    cmd.addAll(List.of("-cp", sparkClasspath(), "org.apache.spark.deploy.SparkSubmit"));
    cmd.addAll(
        List.of(
            "--master",
            "local[2]",
            "--packages",
            GROUP + ":" + artifact + ":" + version,
            "--repositories",
            repo.toUri().toString(),
            "--conf",
            "spark.jars.ivy=" + tmp.resolve("ivy"),
            "--conf",
            "spark.jars.ivySettings=" + ivySettings,
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                + "io.icebergprotector.spark.ProtectorSparkSessionExtensions",
            "--conf",
            p + "=io.icebergprotector.spark.ProtectingSparkCatalog",
            "--conf",
            p + ".type=hadoop",
            "--conf",
            p + ".warehouse=" + warehouse.toUri(),
            "--conf",
            p + ".protector.policy=" + work.resolve("policy.conf"),
            "--conf",
            p + ".protector.kms.keystore=" + work.resolve("keys.p12"),
            "--conf",
            p + ".protector.kms.passphrase-file=" + work.resolve("passphrase"),
            "--conf",
            p + ".protector.kms.create-missing-keys=true",
            "--conf",
            p + ".protector.user=etl",
            "--class",
            RuntimeSmokeMain.class.getName(),
            app.toString()));
    // kept under target/ for a look after a failure
    Path logs = jar.getParent().resolveSibling("runtime-it");
    Files.createDirectories(logs);
    Path stdout = logs.resolve("stdout.txt");
    Path stderr = logs.resolve("stderr.txt");
    Process process =
        new ProcessBuilder(cmd)
            .directory(work.toFile())
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    boolean finished = process.waitFor(5, TimeUnit.MINUTES);
    if (!finished) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    String out = Files.readString(stdout);
    String err = Files.readString(stderr);
    String both =
        "--- stdout\n"
            + out
            + "\n--- stderr: errors\n"
            + err.lines()
                .filter(l -> !l.startsWith("\tat ") && l.matches(".*(Exception|Error)\\b.*"))
                .limit(20)
                .collect(Collectors.joining("\n"))
            + "\n--- stderr (tail)\n"
            + tail(err, 40)
            + "\n(all of it: "
            + stderr
            + ")";
    assertThat(finished).as("spark-submit finished within 5 minutes%n%s", both).isTrue();
    assertThat(process.exitValue()).as(both).isZero();

    // exactly our artifact, from the file repository
    assertThat(err.lines().filter(l -> l.strip().startsWith("found ")))
        .as(both)
        .containsExactly("\tfound " + GROUP + "#" + artifact + ";" + version + " in repo-1");
    String reads = "clear=" + SSN + " masked=*******6789 denied=null";
    assertThat(out)
        .as(both)
        .contains("RUNTIME-SMOKE written " + reads)
        .containsPattern("RUNTIME-SMOKE rewrite rewritten=[1-9][0-9]* added=[1-9]")
        .contains("RUNTIME-SMOKE rewritten " + reads)
        .contains("RUNTIME-SMOKE from=")
        .contains(GROUP + "_" + artifact + "-" + version + ".jar");
    out.lines().filter(l -> l.startsWith("RUNTIME-SMOKE")).forEach(System.out::println);

    // canary search: every file of the warehouse, data and metadata
    List<Path> files;
    try (Stream<Path> walk = Files.walk(warehouse)) {
      files = walk.filter(Files::isRegularFile).collect(Collectors.toList());
    }
    List<Path> data =
        files.stream().filter(f -> f.toString().endsWith(".parquet")).collect(Collectors.toList());
    assertThat(data).as("data files of both snapshots").hasSizeGreaterThanOrEqualTo(2);
    List<Path> leaks = new ArrayList<>();
    for (Path f : files) {
      if (contains(f, SSN)) {
        leaks.add(f);
      }
    }
    assertThat(leaks).as("files holding the protected value %s in clear", SSN).isEmpty();
    // positive control: the unprotected column is stored in clear, so the search can see values
    assertThat(data)
        .as("data files holding the unprotected %s", NAME)
        .anyMatch(f -> contains(f, NAME));
  }

  private static boolean contains(Path file, String value) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(value);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Cannot read " + file, e);
    }
  }

  // Spark on Java 17 (the parent pom's spark.java17.opens; surefire passes no properties on).
  static final String OPENS =
      "--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED"
          + " --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED"
          + " --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED"
          + " --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED"
          + " --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED"
          + " --add-opens=java.base/sun.security.action=ALL-UNNAMED";

  /** This test's classpath (the target's Spark and Iceberg) without any protector code. */
  static String sparkClasspath() {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> kept = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      String e = entry.replace('\\', '/');
      if (e.isBlank()
          || e.contains("icebergprotector")
          || e.contains("iceberg-protector-")
          || e.endsWith("/classes")
          || e.endsWith("/test-classes")) {
        continue;
      }
      kept.add(entry);
    }
    String scala = "_" + System.getProperty("runtime.scala.binary.version");
    assertThat(kept)
        .anyMatch(
            e ->
                e.contains(
                    "spark-core" + scala + "-" + System.getProperty("runtime.spark.version")))
        .anyMatch(e -> e.contains("iceberg-spark-runtime-") && e.contains(scala))
        .noneMatch(e -> e.contains("spark-core_") && !e.contains("spark-core" + scala));
    return String.join(File.pathSeparator, kept);
  }

  /** A jar holding just {@code main}. */
  static void appJar(Path target, Class<?> main) throws IOException {
    String name = main.getName().replace('.', '/') + ".class";
    try (InputStream in = main.getClassLoader().getResourceAsStream(name);
        JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
      out.putNextEntry(new JarEntry(name));
      in.transferTo(out);
      out.closeEntry();
    }
  }

  static String tail(String text, int lines) {
    List<String> all = text.lines().collect(Collectors.toList());
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
