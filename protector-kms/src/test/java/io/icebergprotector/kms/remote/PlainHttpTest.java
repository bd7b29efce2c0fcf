/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Plain http:// reaches only loopback, unless allowed explicitly, and then with a warning. */
class PlainHttpTest {
  private static final String TOKEN = "ipt_plain-http-test-token-0123456789";

  // System.Logger goes to java.util.logging when no other backend is installed (as here)
  private final Logger jul = Logger.getLogger(RemoteKeyService.class.getName());
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void captureLog() {
    jul.addHandler(capture);
  }

  @AfterEach
  void releaseLog() {
    jul.removeHandler(capture);
  }

  private static RemoteKeyService.Builder client(String url) {
    return RemoteKeyService.builder().url(url).token(TOKEN);
  }

  @Test
  void loopbackHttpIsAccepted() {
    for (String url :
        List.of(
            "http://127.0.0.1:8200",
            "http://127.3.2.1",
            "http://[::1]:8200",
            "http://localhost:8200",
            "HTTP://LOCALHOST")) {
      try (RemoteKeyService kms = client(url).build()) {
        assertThat(kms.url().getScheme()).isEqualTo("http");
      }
    }
    assertThat(records).as("loopback needs no warning").isEmpty();
  }

  @Test
  void otherHostsAreRefusedNamingTheUrlAndTheOption() {
    for (String url :
        List.of(
            "http://keys.example.com",
            "http://10.0.0.7:8200",
            "http://[2001:db8::1]:8200",
            "http://localhost.example.com:8200",
            "http://127.0.0.1.nip.io:8200",
            "http://0.0.0.0:8200")) {
      assertThatThrownBy(() -> client(url).build())
          .as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Refusing plain http:// to key service at " + url + ":")
          .hasMessageContaining("token would cross the network in clear")
          .hasMessageContaining("protector.kms.allow-insecure-http")
          .hasMessageContaining("--allow-insecure-http")
          .hasMessageNotContaining(TOKEN);
    }
    assertThatThrownBy(() -> client("http://keys.example.com").allowInsecureHttp(false).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allow-insecure-http");
  }

  @Test
  void allowedExplicitlyWithOneWarningNamingTheUrl() {
    String url = "http://keys-warn.example.com:8200";
    try (RemoteKeyService first = client(url).allowInsecureHttp(true).build();
        RemoteKeyService second =
            RemoteKeyService.builder().allowInsecureHttp(true).token(TOKEN).url(url).build()) {
      assertThat(first.url().toString()).isEqualTo(url + "/");
      assertThat(second.url().toString()).isEqualTo(url + "/");
    }
    assertThat(records)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getLevel()).isEqualTo(Level.WARNING);
              assertThat(r.getMessage())
                  .contains("allow-insecure-http", "plain http:// to key service at " + url)
                  .doesNotContain(TOKEN);
            });
  }

  @Test
  void httpsNeedsNoOption() {
    try (RemoteKeyService kms = client("https://keys.example.com:8200").build()) {
      assertThat(kms.url().getScheme()).isEqualTo("https");
    }
    assertThat(records).isEmpty();
  }
}
