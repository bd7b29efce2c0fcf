/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.audit;

import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Append-only JSON-lines audit log, one line per key operation, refusal or error.
 *
 * <p>Durability follows {@code audit.sync}: {@code none} buffers in memory (flushed when the buffer
 * fills, every second by the server, and on close); {@code flush} writes every line to the OS
 * before the response is sent (survives a process crash); {@code fsync} also forces it to disk,
 * with group commit: one force covers every line written before it, so concurrent requests share
 * the cost.
 *
 * <p>Callers pass only names, versions and decisions. This class never sees key material or tokens.
 */
public final class AuditLog implements AutoCloseable {
  /**
   * One audit event; null fields are left out of the line. {@code time} null means now; {@code
   * details} are extra members of the operation (e.g. the source and columns of a
   * declassification), written after the key.
   */
  public record Event(
      String principal,
      String auth,
      String op,
      String key,
      Integer version,
      String decision,
      String reason,
      int status,
      String client,
      Instant time,
      Map<String, Object> details) {
    public Event(
        String principal,
        String auth,
        String op,
        String key,
        Integer version,
        String decision,
        String reason,
        int status,
        String client) {
      this(principal, auth, op, key, version, decision, reason, status, client, null, null);
    }
  }

  private static final int BUFFER_BYTES = 64 * 1024;

  private final Path file;
  private final ServerConfig.AuditSync sync;
  private final FileChannel channel;
  private final Object writeLock = new Object();
  private final Object forceLock = new Object();
  private final ByteBuffer buffer; // only for sync = none
  private long written; // guarded by writeLock: lines handed to the OS
  private volatile long forced; // lines known to be on disk
  private boolean closed;

  public AuditLog(Path file, ServerConfig.AuditSync sync) {
    this.file = file;
    this.sync = sync;
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      this.channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot open audit file " + file + ": " + e.getMessage(), e);
    }
    this.buffer = sync == ServerConfig.AuditSync.NONE ? ByteBuffer.allocate(BUFFER_BYTES) : null;
  }

  Path file() {
    return file;
  }

  /**
   * Appends one line and returns once it is as durable as configured.
   *
   * @throws UncheckedIOException if the line could not be written; callers must then refuse the
   *     request
   */
  public void record(Event e) {
    byte[] line = format(e);
    long mine;
    synchronized (writeLock) {
      if (closed) {
        throw new UncheckedIOException(new IOException("audit log " + file + " is closed"));
      }
      try {
        if (buffer != null) {
          if (buffer.remaining() < line.length) {
            drainBuffer();
          }
          if (line.length > buffer.capacity()) {
            writeFully(ByteBuffer.wrap(line));
          } else {
            buffer.put(line);
          }
        } else {
          writeFully(ByteBuffer.wrap(line));
        }
      } catch (IOException ex) {
        throw new UncheckedIOException("cannot write audit file " + file, ex);
      }
      mine = ++written;
    }
    if (sync == ServerConfig.AuditSync.FSYNC && forced < mine) {
      synchronized (forceLock) {
        if (forced < mine) {
          long upTo;
          synchronized (writeLock) {
            upTo = written;
          }
          try {
            channel.force(false);
          } catch (IOException ex) {
            throw new UncheckedIOException("cannot fsync audit file " + file, ex);
          }
          forced = upTo;
        }
      }
    }
  }

  /** Pushes buffered lines (sync = none) to the OS. */
  public void flush() {
    if (buffer == null) {
      return;
    }
    synchronized (writeLock) {
      if (closed) {
        return;
      }
      try {
        drainBuffer();
      } catch (IOException ex) {
        throw new UncheckedIOException("cannot write audit file " + file, ex);
      }
    }
  }

  @Override
  public void close() {
    synchronized (writeLock) {
      if (closed) {
        return;
      }
      try {
        if (buffer != null) {
          drainBuffer();
        }
        channel.force(false);
      } catch (IOException ex) {
        // best effort on shutdown
      } finally {
        closed = true;
        try {
          channel.close();
        } catch (IOException ignored) {
          // nothing more to do
        }
      }
    }
  }

  private void drainBuffer() throws IOException {
    buffer.flip();
    writeFully(buffer);
    buffer.clear();
  }

  private void writeFully(ByteBuffer data) throws IOException {
    while (data.hasRemaining()) {
      channel.write(data);
    }
  }

  static byte[] format(Event e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("time", (e.time() == null ? Instant.now() : e.time()).toString());
    m.put("principal", e.principal() == null ? "-" : e.principal());
    if (e.auth() != null) {
      m.put("auth", e.auth());
    }
    m.put("op", e.op());
    if (e.key() != null) {
      m.put("key", clip(e.key()));
    }
    if (e.version() != null) {
      m.put("version", e.version());
    }
    if (e.details() != null) {
      e.details().forEach((name, value) -> m.putIfAbsent(name, clipped(value)));
    }
    m.put("decision", e.decision());
    if (e.reason() != null) {
      m.put("reason", clip(e.reason()));
    }
    m.put("status", e.status());
    m.put("client", e.client());
    return (JsonCodec.write(m) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static Object clipped(Object value) {
    if (value instanceof String) {
      return clip((String) value);
    }
    if (value instanceof List) {
      List<Object> out = new ArrayList<>();
      for (Object v : (List<?>) value) {
        out.add(clipped(v));
      }
      return out;
    }
    return value;
  }

  private static String clip(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
