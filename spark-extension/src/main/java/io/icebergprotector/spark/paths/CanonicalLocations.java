/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.Locations;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Where a location really is: symbolic links resolved, so that an alias of a protected directory
 * matches the policy prefix of its target. Local paths ({@code file:}) resolve with {@code
 * java.nio}'s real path, HDFS and viewfs with Hadoop's {@code FileSystem.resolvePath}; both on the
 * deepest ancestor that exists, since a write names files that do not exist yet. Object stores have
 * no links: their locations are only {@link Locations#normalize normalized}. A location that cannot
 * be resolved (no permission, no file system) keeps its normalized form.
 *
 * <p>One instance serves one decision (a plan rule run, one file of the crypto factory); it
 * remembers what it resolved, so a listing of many files in few directories costs few lookups.
 */
final class CanonicalLocations {
  private static final Set<String> HADOOP_LINK_SCHEMES = Set.of("hdfs", "viewfs");
  // As POSIX's SYMLOOP_MAX: a longer chain of dangling links is a loop.
  private static final int MAX_LINKS = 40;

  private final Supplier<Configuration> conf;
  private final Map<String, String> resolved = new ConcurrentHashMap<>();

  CanonicalLocations(Supplier<Configuration> conf) {
    this.conf = conf;
  }

  /** The canonical form of a {@link Locations#normalize normalized} location. */
  String canonical(String normalized) {
    if (normalized == null) {
      return null;
    }
    return resolved.computeIfAbsent(normalized, this::resolve);
  }

  private String resolve(String location) {
    if (location.startsWith("file:/")) {
      return Locations.normalize("file:" + realLocal(location.substring("file:".length())));
    }
    int colon = location.indexOf(':');
    if (colon > 0 && HADOOP_LINK_SCHEMES.contains(location.substring(0, colon))) {
      return resolveHadoop(location);
    }
    return location;
  }

  /** The real path of {@code path}'s deepest existing ancestor, with the rest appended. */
  static String realLocal(String path) {
    Path current;
    try {
      current = Paths.get(path);
    } catch (InvalidPathException e) {
      return path;
    }
    Deque<String> rest = new ArrayDeque<>();
    int links = 0;
    while (current != null) {
      try {
        Path real = current.toRealPath();
        for (String name : rest) {
          real = real.resolve(name);
        }
        return real.toString();
      } catch (NoSuchFileException e) {
        if (Files.isSymbolicLink(current) && links++ < MAX_LINKS) {
          // A dangling link: writing through it creates its target, so that is where data goes.
          try {
            Path target = Files.readSymbolicLink(current);
            Path parent = current.getParent();
            current = (parent == null ? target : parent.resolve(target)).normalize();
            continue;
          } catch (IOException | UnsupportedOperationException unreadable) {
            return path;
          }
        }
        Path name = current.getFileName();
        if (name != null) {
          rest.addFirst(name.toString());
        }
        current = current.getParent();
      } catch (IOException | SecurityException e) {
        return path;
      }
    }
    return path;
  }

  private String resolveHadoop(String location) {
    Configuration configuration = conf.get();
    if (configuration == null) {
      return location;
    }
    try {
      FileSystem fs = FileSystem.get(URI.create(location), configuration);
      org.apache.hadoop.fs.Path current = new org.apache.hadoop.fs.Path(location);
      Deque<String> rest = new ArrayDeque<>();
      while (current != null) {
        try {
          org.apache.hadoop.fs.Path real = fs.resolvePath(current);
          for (String name : rest) {
            real = new org.apache.hadoop.fs.Path(real, name);
          }
          return Locations.normalize(real.toString());
        } catch (FileNotFoundException e) {
          rest.addFirst(current.getName());
          current = current.getParent();
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // no such file system here, or no access: keep the location as written
    }
    return location;
  }
}
