/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AuditLogTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(ServerConfig.AuditSync.class)
  void concurrentWritersProduceWholeLines(ServerConfig.AuditSync sync) throws Exception {
    Path file = dir.resolve("a/audit.log");
    int threads = 8;
    int perThread = 250;
    try (AuditLog audit = new AuditLog(file, sync)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    audit.record(
                        new AuditLog.Event(
                            "user-" + id,
                            "token:t",
                            "unwrap",
                            "key\"\n" + id,
                            i,
                            "allow",
                            "reason with \u2028 odd chars",
                            200,
                            "127.0.0.1"));
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      pool.shutdown();
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(threads * perThread);
    Set<String> seen = new HashSet<>();
    for (String line : lines) {
      Map<String, Object> e = JsonCodec.parseObject(line);
      assertThat(e.get("time").toString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
      seen.add(e.get("principal") + "/" + e.get("version"));
    }
    assertThat(seen).hasSize(threads * perThread);
  }

  @ParameterizedTest
  @EnumSource(ServerConfig.AuditSync.class)
  void appendsAcrossRestartsAndRefusesAfterClose(ServerConfig.AuditSync sync) throws Exception {
    Path file = dir.resolve("audit.log");
    AuditLog.Event e =
        new AuditLog.Event(null, null, "unwrap", "k", null, "deny", "no", 401, "::1");
    try (AuditLog audit = new AuditLog(file, sync)) {
      audit.record(e);
    }
    AuditLog audit = new AuditLog(file, sync);
    audit.record(e);
    audit.close();
    assertThat(Files.readAllLines(file))
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).startsWith("{\"time\":").contains("\"principal\":\"-\""));
    assertThatThrownBy(() -> audit.record(e))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageContaining("audit.log is closed");
  }
}
