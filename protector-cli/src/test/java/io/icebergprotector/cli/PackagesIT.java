package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded runtime jar installs the way Spark libraries install: deployed to a Maven-layout file
 * repository, {@code spark-submit --packages io.icebergprotector:<artifact>:<version>
 * --repositories file://...} resolves it (offline, from that repository only) in a child JVM that
 * has only Spark and iceberg-spark-runtime on its classpath, and a protected write and read works.
 *
 * <p>Runs in the {@code integration-test} phase, after {@code package} copied the runtime jar and
 * its dependency-reduced pom to {@code target/packages-it}.
 */
class PackagesIT {
  static final String GROUP = "io.icebergprotector";
  static final String ARTIFACT = "iceberg-protector-spark-runtime-3.5_2.13";
  static final String RELOCATED = "io/icebergprotector/shaded/";

  static String version;
  static Path packagesDir;
  static Path jar;
  static Path pom;

  @TempDir static Path tmp;

  @BeforeAll
  static void artifacts() {
    version = System.getProperty("protector.version");
    packagesDir = Path.of(System.getProperty("protector.packages.dir", "target/packages-it"));
    jar = packagesDir.resolve(ARTIFACT + "-" + version + ".jar");
    pom = packagesDir.resolve(ARTIFACT + "-" + version + ".pom");
    assertThat(jar).as("the runtime jar, copied at package; run 'mvn verify'").isRegularFile();
    assertThat(pom).as("the runtime pom, copied at package; run 'mvn verify'").isRegularFile();
  }

  @Test
  void pomHasNoDependenciesAndNoParent() throws IOException {
    String text = Files.readString(pom);
    assertThat(text)
        .contains("<artifactId>" + ARTIFACT + "</artifactId>")
        .doesNotContain("<dependency>")
        .doesNotContain("<parent>");
  }

  @Test
  void jarHoldsOnlyOurClassesWithThirdPartyRelocated() throws IOException {
    List<String> outside = new ArrayList<>();
    // every third-party package we bundle, as class files name it (slashes) and as reflective
    // lookups do (dots): each occurrence must be the relocated one
    List<String> bundled = List.of("com/typesafe/config", "com/github/benmanes/caffeine");
    Map<String, Integer> refs = new TreeMap<>();
    Map<String, Integer> relocatedRefs = new TreeMap<>();
    try (JarFile jf = new JarFile(jar.toFile())) {
      assertThat(jf.getEntry("io/icebergprotector/spark/ProtectingSparkCatalog.class")).isNotNull();
      assertThat(jf.getEntry("io/icebergprotector/policy/Policy.class")).isNotNull();
      assertThat(jf.getEntry("io/icebergprotector/kms/LocalKeyService.class")).isNotNull();
      assertThat(jf.getEntry(RELOCATED + "com/typesafe/config/ConfigFactory.class")).isNotNull();
      assertThat(jf.getEntry(RELOCATED + "com/github/benmanes/caffeine/cache/Caffeine.class"))
          .isNotNull();
      for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements(); ) {
        JarEntry entry = e.nextElement();
        String name = entry.getName();
        if (!name.startsWith("io/icebergprotector/")
            && !name.startsWith("META-INF/")
            && !name.equals("io/")) {
          outside.add(name);
        }
        if (name.endsWith(".class")) {
          try (InputStream in = jf.getInputStream(entry)) {
            String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            for (String pkg : bundled) {
              for (String form : List.of(pkg, pkg.replace('/', '.'))) {
                String relocated = (RELOCATED + pkg).replace('/', form.contains("/") ? '/' : '.');
                refs.merge(form, count(bytes, form), Integer::sum);
                relocatedRefs.merge(form, count(bytes, relocated), Integer::sum);
              }
            }
          }
        }
      }
    }
    // No Spark, Iceberg, Hadoop or Scala classes, and no unrelocated third-party package.
    assertThat(outside).isEmpty();
    for (String pkg : bundled) {
      assertThat(refs.get(pkg)).as("references to %s", pkg).isPositive();
    }
    assertThat(refs)
        .as("references to bundled packages (all of them relocated)")
        .isEqualTo(relocatedRefs);
  }

  @Test
  void sparkSubmitPackagesResolvesAndProtects() throws Exception {
    // Maven layout under target/: <group path>/<artifact>/<version>/<artifact>-<version>.{jar,pom}
    Path repo = packagesDir.resolve("repo");
    deleteTree(repo);
    Path versionDir = repo.resolve(GROUP.replace('.', '/')).resolve(ARTIFACT).resolve(version);
    Files.createDirectories(versionDir);
    Files.copy(jar, versionDir.resolve(ARTIFACT + "-" + version + ".jar"));
    Files.copy(pom, versionDir.resolve(ARTIFACT + "-" + version + ".pom"));

    // Ivy settings whose default resolver finds nothing: only --repositories can resolve, and
    // nothing is fetched from the network or from ~/.m2.
    Path ivySettings = tmp.resolve("ivysettings.xml");
    Files.writeString(
        ivySettings,
        "<ivysettings>\n"
            + "  <settings defaultResolver=\"nothing\"/>\n"
            + "  <resolvers><chain name=\"nothing\"/></resolvers>\n"
            + "</ivysettings>\n");

    Path work = tmp.resolve("work");
    Files.createDirectories(work);
    Files.writeString(work.resolve("passphrase"), "packages-it passphrase");
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
            "      writers = [etl]",
            "      columns { ssn { key = pii, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } } }",
            "    }",
            "  }",
            "}"));
    Path app = tmp.resolve("packages-smoke.jar");
    appJar(app, PackagesSmokeMain.class);

    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.addAll(Arrays.asList(System.getProperty("spark.java17.opens", OPENS).trim().split("\\s+")));
    cmd.add("-cp");
    cmd.add(sparkClasspath());
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    String p = "spark.sql.catalog.prot";
    cmd.addAll(
        List.of(
            "--master",
            "local[2]",
            "--packages",
            GROUP + ":" + ARTIFACT + ":" + version,
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
            p + ".warehouse=" + work.resolve("warehouse").toUri(),
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
            PackagesSmokeMain.class.getName(),
            app.toString()));

    ChildJvm child = ChildJvm.run(cmd, work, tmp.resolve("spark-submit"));
    String out = child.stdout;
    String err = child.stderr;
    String both = child.describe();
    assertThat(child.exitCode).as(both).isZero();

    // Resolution: exactly our artifact, from the file repository given with --repositories.
    List<String> found =
        err.lines().filter(l -> l.strip().startsWith("found ")).collect(Collectors.toList());
    assertThat(found)
        .as(both)
        .containsExactly("\tfound " + GROUP + "#" + ARTIFACT + ";" + version + " in repo-1");

    // For the surefire report: what the child printed.
    found.forEach(System.out::println);
    out.lines().filter(l -> l.startsWith("PACKAGES-SMOKE")).forEach(System.out::println);

    String expectedJar = GROUP + "_" + ARTIFACT + "-" + version + ".jar";
    assertThat(out)
        .as(both)
        .contains("PACKAGES-SMOKE clear=123-45-6789 masked=*******6789 denied=null from=")
        .contains(expectedJar);
  }

  // Same as spark.java17.opens in the parent pom (surefire passes no properties to the child).
  static final String OPENS =
      "--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED"
          + " --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED"
          + " --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED"
          + " --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED"
          + " --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED"
          + " --add-opens=java.base/sun.security.action=ALL-UNNAMED";

  /** This test's classpath without any protector code (ours must come from --packages). */
  static String sparkClasspath() {
    List<String> kept = classpathWithoutProtector();
    assertThat(kept)
        .anyMatch(e -> e.contains("spark-core"))
        .anyMatch(e -> e.contains("iceberg-spark-runtime"));
    return String.join(File.pathSeparator, kept);
  }

  /** This test's classpath without any protector code and without any Iceberg jar. */
  static String sparkClasspathWithoutIceberg() {
    List<String> kept = classpathWithoutProtector();
    // nor the unrelocated copy of what the runtime jar bundles (Spark does not ship it either)
    kept.removeIf(e -> fileName(e).startsWith("iceberg-") || fileName(e).startsWith("caffeine-"));
    assertThat(kept)
        .anyMatch(e -> e.contains("spark-sql_"))
        .anyMatch(e -> e.contains("hadoop-client"))
        .anyMatch(e -> fileName(e).startsWith("parquet-hadoop-"))
        .noneMatch(e -> e.contains("iceberg"));
    return String.join(File.pathSeparator, kept);
  }

  private static List<String> classpathWithoutProtector() {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> kept = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      String e = entry.replace('\\', '/');
      if (e.isBlank()
          || e.contains("icebergprotector")
          // reactor builds put sibling modules' jars on the classpath by file path
          || fileName(e).startsWith("iceberg-protector-")
          || e.endsWith("/classes")
          || e.endsWith("/test-classes")
          || e.contains("/com/typesafe/config/")
          || e.contains("/info/picocli/")) {
        continue;
      }
      kept.add(entry);
    }
    return kept;
  }

  private static String fileName(String entry) {
    String e = entry.replace('\\', '/');
    return e.substring(e.lastIndexOf('/') + 1);
  }

  /** A jar holding just {@code main} (a class of this module, using only Spark API). */
  static void appJar(Path target, Class<?> main) throws IOException {
    String name = main.getName().replace('.', '/') + ".class";
    try (InputStream in = main.getClassLoader().getResourceAsStream(name);
        JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
      out.putNextEntry(new JarEntry(name));
      in.transferTo(out);
      out.closeEntry();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.delete(p);
      }
    }
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  static String tail(String text, int lines) {
    List<String> all = text.lines().collect(Collectors.toList());
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /** A finished child JVM: its exit code and output (files under {@code logDir}). */
  static final class ChildJvm {
    final int exitCode;
    final String stdout;
    final String stderr;

    private ChildJvm(int exitCode, String stdout, String stderr) {
      this.exitCode = exitCode;
      this.stdout = stdout;
      this.stderr = stderr;
    }

    /** Runs {@code cmd} in {@code workDir} and waits at most 5 minutes for it to finish. */
    static ChildJvm run(List<String> cmd, Path workDir, Path logDir)
        throws IOException, InterruptedException {
      Files.createDirectories(logDir);
      Path stdout = logDir.resolve("stdout.txt");
      Path stderr = logDir.resolve("stderr.txt");
      Process process =
          new ProcessBuilder(cmd)
              .directory(workDir.toFile())
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile())
              .start();
      boolean finished = process.waitFor(5, TimeUnit.MINUTES);
      if (!finished) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
      ChildJvm child =
          new ChildJvm(
              finished ? process.exitValue() : -1,
              Files.readString(stdout),
              Files.readString(stderr));
      assertThat(finished)
          .as("%s finished within 5 minutes%n%s", cmd.get(cmd.size() - 1), child.describe())
          .isTrue();
      return child;
    }

    /** Its stdout and the tail of its stderr, for assertion messages. */
    String describe() {
      return "--- exit code "
          + exitCode
          + "\n--- stdout\n"
          + stdout
          + "\n--- stderr (tail)\n"
          + tail(stderr, 60);
    }
  }
}
