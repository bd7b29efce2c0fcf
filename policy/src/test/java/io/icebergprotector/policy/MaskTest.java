package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MaskTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "null                     | NULL    | 0 | null",
    "redact                   | REDACT  | 0 | redact",
    "hash                     | HASH    | 0 | hash",
    "YEAR                     | YEAR    | 0 | year",
    "partial(keep_last=4)     | PARTIAL | 4 | partial(keep_last=4)",
    "' Partial( keep_last = 0 ) ' | PARTIAL | 0 | partial(keep_last=0)",
  })
  void parse(String spec, Mask.Kind kind, int keep, String canonical) {
    Mask m = Mask.parse(spec);
    assertThat(m.kind()).isEqualTo(kind);
    assertThat(m.keepLast()).isEqualTo(keep);
    assertThat(m.spec()).isEqualTo(canonical);
    assertThat(Mask.parse(m.spec())).isEqualTo(m);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sha1", "", "partial", "partial()", "partial(keep_last=-1)", "partial(keep_last=x)",
      "partial(keep_first=2)", "partial(keep_last=4", "partial(keep_last=99999999999)", "nul"})
  void parseRejectsNamingTheSpec(String spec) {
    assertThatThrownBy(() -> Mask.parse(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + spec + "'");
  }

  @Test
  void parseNull() {
    assertThatThrownBy(() -> Mask.parse(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Mask.partial(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void appliesTo() {
    EnumSet<ColumnType> all = EnumSet.allOf(ColumnType.class);
    assertThat(all).allMatch(Mask.nullMask()::appliesTo);
    assertThat(all.stream().filter(Mask.redact()::appliesTo))
        .containsExactlyInAnyOrder(ColumnType.STRING, ColumnType.BINARY, ColumnType.BOOLEAN, ColumnType.INT,
            ColumnType.LONG, ColumnType.FLOAT, ColumnType.DOUBLE, ColumnType.DECIMAL, ColumnType.DATE,
            ColumnType.TIMESTAMP);
    assertThat(all.stream().filter(Mask.partial(2)::appliesTo)).containsExactly(ColumnType.STRING);
    assertThat(all.stream().filter(Mask.year()::appliesTo))
        .containsExactlyInAnyOrder(ColumnType.DATE, ColumnType.TIMESTAMP);
    assertThat(all.stream().filter(Mask.hash()::appliesTo))
        .containsExactlyInAnyOrder(ColumnType.STRING, ColumnType.BINARY, ColumnType.INT, ColumnType.LONG,
            ColumnType.DECIMAL, ColumnType.DATE, ColumnType.TIMESTAMP);
    assertThat(Mask.hash().appliesTo(null)).isFalse();
    assertThat(Mask.year().applicableTypes()).isEqualTo("DATE, TIMESTAMP");
  }

  @Test
  void partial() {
    assertThat(Masks.partial("123-45-6789", 4)).isEqualTo("*******6789");
    assertThat(Masks.partial("abc", 0)).isEqualTo("***");
    assertThat(Masks.partial("abc", 3)).isEqualTo("abc");
    assertThat(Masks.partial("abc", 10)).isEqualTo("abc");
    assertThat(Masks.partial("", 2)).isEmpty();
    assertThat(Masks.partial(null, 2)).isNull();
    // code points, not UTF-16 units: the emoji counts once
    assertThat(Masks.partial("a\uD83D\uDE00bc", 2)).isEqualTo("**bc");
    assertThat(Masks.partial("ab\uD83D\uDE00", 1)).isEqualTo("**\uD83D\uDE00");
    assertThatThrownBy(() -> Masks.partial("x", -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void hashKnownVector() {
    // RFC 4231, test case 2
    byte[] key = "Jefe".getBytes(StandardCharsets.US_ASCII);
    byte[] data = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
    assertThat(Masks.hashHex(key, data))
        .isEqualTo("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    assertThat(Masks.hashHex(key, "what do ya want for nothing?"))
        .isEqualTo("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    assertThat(Masks.hashHex(key, (byte[]) null)).isNull();
    assertThat(Masks.hashHex(key, "a")).isNotEqualTo(Masks.hashHex("Jeff".getBytes(StandardCharsets.US_ASCII), "a"));
    assertThatThrownBy(() -> Masks.hashHex(new byte[0], "a")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void reusableHasherGivesTheSameDigestsAsHashHex() {
    byte[] key = "Jefe".getBytes(StandardCharsets.US_ASCII);
    byte[] other = "Jeff".getBytes(StandardCharsets.US_ASCII);
    Masks.Hasher hasher = Masks.hasher(key);
    for (String value : new String[] {"what do ya want for nothing?", "", "a", "a"}) {
      byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
      assertThat(hasher.hashHex(bytes)).isEqualTo(Masks.hashHex(key, bytes));
      // the per-thread Mac is re-keyed on every call: another key in between changes nothing
      assertThat(Masks.hashHex(other, bytes)).isNotEqualTo(Masks.hashHex(key, bytes));
    }
    byte[] framed = "xxwhat do ya want for nothing?yy".getBytes(StandardCharsets.US_ASCII);
    assertThat(java.util.HexFormat.of().formatHex(hasher.digest(framed, 2, framed.length - 4)))
        .isEqualTo("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    assertThatThrownBy(() -> Masks.hasher(new byte[0])).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void redactConstants() {
    assertThat(Masks.redactedString()).isEqualTo("****");
    assertThat(Masks.redacted(ColumnType.STRING)).isEqualTo("****");
    assertThat(Masks.redacted(ColumnType.INT)).isEqualTo(0);
    assertThat(Masks.redacted(ColumnType.LONG)).isEqualTo(0L);
    assertThat(Masks.redacted(ColumnType.DOUBLE)).isEqualTo(0d);
    assertThat(Masks.redacted(ColumnType.FLOAT)).isEqualTo(0f);
    assertThat(Masks.redacted(ColumnType.DECIMAL)).isEqualTo(BigDecimal.ZERO);
    assertThat(Masks.redacted(ColumnType.DATE)).isEqualTo(LocalDate.of(1970, 1, 1));
    assertThat(Masks.redacted(ColumnType.TIMESTAMP)).isEqualTo(Instant.EPOCH);
    assertThat(Masks.redacted(ColumnType.BOOLEAN)).isEqualTo(false);
    assertThat((byte[]) Masks.redacted(ColumnType.BINARY)).isEmpty();
    assertThatThrownBy(() -> Masks.redacted(ColumnType.STRUCT)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void year() {
    assertThat(Masks.year(LocalDate.of(1984, 7, 23))).isEqualTo(LocalDate.of(1984, 1, 1));
    assertThat(Masks.year(LocalDateTime.of(2020, 12, 31, 23, 59))).isEqualTo(LocalDateTime.of(2020, 1, 1, 0, 0));
    assertThat(Masks.year(Instant.parse("2021-06-15T10:00:00Z"))).isEqualTo(Instant.parse("2021-01-01T00:00:00Z"));
    assertThat(Masks.yearOfEpochDay((int) LocalDate.of(1984, 7, 23).toEpochDay()))
        .isEqualTo((int) LocalDate.of(1984, 1, 1).toEpochDay());
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse("1969-06-15T10:00:00.123456Z"));
    assertThat(Masks.yearOfEpochMicros(micros))
        .isEqualTo(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse("1969-01-01T00:00:00Z")));
    assertThat(Masks.year((LocalDate) null)).isNull();
  }

  @Test
  void yearOfTimestampsOutsideTheNanosecondRange() {
    // 1500-08-01T12:00Z in micros: beyond what a nanosecond long can hold
    long micros = Math.multiplyExact(Instant.parse("1500-08-01T12:00:00Z").getEpochSecond(), 1_000_000L);
    long expected = Math.multiplyExact(Instant.parse("1500-01-01T00:00:00Z").getEpochSecond(), 1_000_000L);
    assertThat(Masks.yearOfEpochMicros(micros)).isEqualTo(expected);
  }

  @Test
  void columnTypeNames() {
    assertThat(ColumnType.fromName("VARCHAR")).isEqualTo(ColumnType.STRING);
    assertThat(ColumnType.fromName("decimal(10,2)")).isEqualTo(ColumnType.DECIMAL);
    assertThat(ColumnType.fromName("bigint")).isEqualTo(ColumnType.LONG);
    assertThat(ColumnType.fromName("timestamptz")).isEqualTo(ColumnType.TIMESTAMP);
    assertThat(ColumnType.fromName("array<string>")).isEqualTo(ColumnType.LIST);
    assertThatThrownBy(() -> ColumnType.fromName("strng"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'strng'");
  }
}
