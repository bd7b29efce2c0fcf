/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;

/**
 * Byte-level search of every object in a bucket, sorted by what kind of Iceberg file each is. Avro
 * files (manifests, manifest lists) are searched after decompressing their blocks, and gzip files
 * after gunzip, so a compressed leak is found too. Parquet pages are searched as stored: tests that
 * look for leaks in data files write them uncompressed.
 */
public final class BucketScan {
  public enum Kind {
    DATA,
    MANIFEST,
    MANIFEST_LIST,
    METADATA_JSON,
    OTHER
  }

  /** A value that must never be at rest in clear, as the byte patterns it could be stored as. */
  public record Canary(String label, List<byte[]> patterns) {
    public static Canary text(String value) {
      return new Canary(value, List.of(value.getBytes(StandardCharsets.UTF_8)));
    }

    /** A long as Parquet and Iceberg bounds store it (little-endian), and big-endian too. */
    public static Canary int64(long value) {
      return new Canary(
          Long.toString(value),
          List.of(
              ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array(),
              ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putLong(value).array()));
    }
  }

  public record Hit(String key, Kind kind, String canary) {}

  private final Map<String, byte[]> objects;

  private BucketScan(Map<String, byte[]> objects) {
    this.objects = new TreeMap<>(objects);
  }

  public static BucketScan of(ObjectStore store) {
    return new BucketScan(store.readAllObjects());
  }

  /** Every file under {@code root} (a local warehouse), keyed by its path relative to root. */
  public static BucketScan ofDirectory(Path root) {
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        files.put(root.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the files under " + root, e);
    }
    return new BucketScan(files);
  }

  public Map<String, byte[]> objects() {
    return objects;
  }

  public static Kind kind(String key) {
    String name = key.substring(key.lastIndexOf('/') + 1);
    boolean metadataDir = key.contains("/metadata/");
    if (name.endsWith(".parquet")) {
      return Kind.DATA;
    } else if (metadataDir && name.endsWith(".metadata.json")) {
      return Kind.METADATA_JSON;
    } else if (metadataDir && name.startsWith("snap-") && name.endsWith(".avro")) {
      return Kind.MANIFEST_LIST;
    } else if (metadataDir && name.endsWith(".avro")) {
      return Kind.MANIFEST;
    }
    return Kind.OTHER;
  }

  public Map<Kind, Integer> countByKind() {
    Map<Kind, Integer> counts = new TreeMap<>();
    objects.keySet().forEach(k -> counts.merge(kind(k), 1, Integer::sum));
    return counts;
  }

  /** Keys of the objects under {@code prefix} (e.g. a table's location), by kind. */
  public List<String> keys(String prefix, Kind kind) {
    List<String> keys = new ArrayList<>();
    objects.keySet().stream()
        .filter(k -> k.startsWith(prefix) && kind(k) == kind)
        .forEach(keys::add);
    return keys;
  }

  /** Every (object, canary) pair where one of the canary's patterns occurs in the object. */
  public List<Hit> find(Collection<Canary> canaries) {
    List<Hit> hits = new ArrayList<>();
    objects.forEach(
        (key, bytes) -> {
          List<byte[]> views = searchable(key, bytes);
          for (Canary canary : canaries) {
            if (canary.patterns().stream()
                .anyMatch(p -> views.stream().anyMatch(v -> indexOf(v, p) >= 0))) {
              hits.add(new Hit(key, kind(key), canary.label()));
            }
          }
        });
    return hits;
  }

  /** The object's bytes, plus its decompressed content where it is Avro or gzip. */
  static List<byte[]> searchable(String key, byte[] bytes) {
    List<byte[]> views = new ArrayList<>();
    views.add(bytes);
    try {
      if (bytes.length > 4
          && bytes[0] == 'O'
          && bytes[1] == 'b'
          && bytes[2] == 'j'
          && bytes[3] == 1) {
        ByteArrayOutputStream blocks = new ByteArrayOutputStream();
        try (DataFileStream<Object> avro =
            new DataFileStream<>(new ByteArrayInputStream(bytes), new GenericDatumReader<>())) {
          while (avro.hasNext()) {
            ByteBuffer block = avro.nextBlock();
            blocks.write(block.array(), block.arrayOffset() + block.position(), block.remaining());
          }
        }
        views.add(blocks.toByteArray());
      } else if (bytes.length > 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
          views.add(in.readAllBytes());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot decompress " + key + " for the canary search", e);
    }
    return views;
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
