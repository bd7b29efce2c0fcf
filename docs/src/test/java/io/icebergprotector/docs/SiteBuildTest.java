/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documentation site builds with {@code mkdocs build --strict}: every page in the navigation,
 * every internal link and anchor resolving (mkdocs.yml's {@code validation} makes each a warning,
 * which {@code --strict} turns into a failure). MkDocs runs in a virtual environment under {@code
 * docs/target/} with the versions of {@code docs/requirements.txt}, installed once and again only
 * when that file changes. The site is built from a copy of {@code docs/} holding the reference
 * pages as {@link ReferencePages} writes them now, outside the Maven module's own files (MkDocs
 * refuses a site directory inside its docs directory). External links are not fetched, only checked
 * to be well-formed.
 */
class SiteBuildTest {
  private static final Path ROOT = ReferencePagesTest.ROOT;
  private static final Path DOCS = ROOT.resolve("docs");
  private static final Path TARGET = DOCS.resolve("target");
  private static final Path VENV = TARGET.resolve("docs-venv");
  private static final Path REQUIREMENTS = DOCS.resolve("requirements.txt");
  // What docs/ holds besides the pages: the Maven module and the pinned versions.
  private static final Set<String> NOT_PAGES =
      Set.of("pom.xml", "src", "target", "requirements.txt");
  private static final long INSTALL_MINUTES = 10;
  private static final long BUILD_MINUTES = 5;
  // [text](http...) and <http...>, outside code spans and blocks
  private static final Pattern EXTERNAL_LINK =
      Pattern.compile("\\]\\((https?:[^)\\s]*)[^)]*\\)|<(https?:[^>]*)>");

  @Test
  void siteBuildsWithStrictLinkChecks() throws Exception {
    Path mkdocs = mkdocs();
    Path sources = stagePages();
    Path config = TARGET.resolve("mkdocs.yml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "# Written by SiteBuildTest: the repository's mkdocs.yml on a staged copy of docs/.",
            "INHERIT: " + ROOT.resolve("mkdocs.yml"),
            "docs_dir: " + sources,
            "site_dir: " + TARGET.resolve("site"),
            ""),
        StandardCharsets.UTF_8);
    String output =
        run(
            List.of(mkdocs.toString(), "build", "--strict", "--clean", "-f", config.toString()),
            BUILD_MINUTES,
            "mkdocs build --strict");
    assertThat(output).as("mkdocs output").doesNotContain("WARNING");
    assertThat(TARGET.resolve("site/index.html")).exists();
  }

  @Test
  void externalLinksAreWellFormed() throws IOException {
    List<String> bad = new ArrayList<>();
    for (Path page : pages()) {
      String text = withoutCode(Files.readString(page, StandardCharsets.UTF_8));
      Matcher m = EXTERNAL_LINK.matcher(text);
      while (m.find()) {
        String link = m.group(1) != null ? m.group(1) : m.group(2);
        try {
          URI uri = new URI(link);
          if (uri.getHost() == null || uri.getHost().isBlank()) {
            bad.add(DOCS.relativize(page) + ": " + link + " (no host)");
          }
        } catch (URISyntaxException e) {
          bad.add(DOCS.relativize(page) + ": " + link + " (" + e.getReason() + ")");
        }
      }
    }
    assertThat(bad).as("malformed external links").isEmpty();
  }

  /** MkDocs in the virtual environment, installing the pinned versions when they changed. */
  private static Path mkdocs() throws IOException {
    Path python = VENV.resolve("bin").resolve("python");
    if (!Files.isExecutable(python)) {
      run(List.of("python3", "-m", "venv", VENV.toString()), INSTALL_MINUTES, "python3 -m venv");
    }
    Path stamp = VENV.resolve("installed-requirements.txt");
    String wanted = Files.readString(REQUIREMENTS, StandardCharsets.UTF_8);
    if (!Files.isRegularFile(stamp) || !Files.readString(stamp).equals(wanted)) {
      run(
          List.of(
              python.toString(),
              "-m",
              "pip",
              "install",
              "--disable-pip-version-check",
              "--quiet",
              "-r",
              REQUIREMENTS.toString()),
          INSTALL_MINUTES,
          "pip install -r docs/requirements.txt");
      Files.writeString(stamp, wanted, StandardCharsets.UTF_8);
    }
    return VENV.resolve("bin").resolve("mkdocs");
  }

  /** A copy of the pages under target/, with the reference pages generated now. */
  private static Path stagePages() throws IOException {
    Path stage = TARGET.resolve("site-src");
    deleteTree(stage);
    Files.createDirectories(stage);
    try (Stream<Path> entries = Files.list(DOCS)) {
      for (Path entry : entries.toList()) {
        if (!NOT_PAGES.contains(entry.getFileName().toString())) {
          copyTree(entry, stage.resolve(entry.getFileName().toString()));
        }
      }
    }
    Path reference = Files.createDirectories(stage.resolve("reference"));
    for (Map.Entry<String, String> page : ReferencePages.pages(ROOT).entrySet()) {
      Files.writeString(reference.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
    }
    return stage;
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    try (Stream<Path> entries = Files.list(DOCS)) {
      for (Path entry : entries.toList()) {
        if (NOT_PAGES.contains(entry.getFileName().toString())) {
          continue;
        }
        try (Stream<Path> files = Files.walk(entry)) {
          files.filter(p -> p.toString().endsWith(".md")).forEach(pages::add);
        }
      }
    }
    pages.add(ROOT.resolve("README.md"));
    return pages;
  }

  // Fenced blocks and code spans hold commands and sample output, not links.
  private static String withoutCode(String markdown) {
    return markdown.replaceAll("(?s)```.*?```", "").replaceAll("`[^`\\n]*`", "");
  }

  private static String run(List<String> command, long minutes, String what) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
    builder.redirectErrorStream(true);
    // Material's notice about its successor is not a finding about these pages
    builder.environment().put("NO_MKDOCS_2_WARNING", "1");
    Path log = Files.createDirectories(TARGET).resolve("site-build.log");
    builder.redirectOutput(log.toFile());
    Process process = builder.start();
    try {
      if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError(what + " did not finish in " + minutes + " minutes (" + log + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new AssertionError(what + " was interrupted", e);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println(output);
    if (process.exitValue() != 0) {
      throw new AssertionError(what + " exited with " + process.exitValue() + ":\n" + output);
    }
    return output;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path dest = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(p, dest, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            if (e != null) {
              throw new UncheckedIOException(e);
            }
            Files.delete(d);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
