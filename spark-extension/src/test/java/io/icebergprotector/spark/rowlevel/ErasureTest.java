/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Table;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An erasure request end to end: DELETE one person's rows, make sure no data file keeps them
 * (merge-on-read deletes only mark rows, so their files are rewritten first), expire the snapshots
 * that still reference the old files and remove orphaned files; then no file of the table holds the
 * person's row, in plaintext or encrypted (every remaining data file is decrypted as an admin).
 */
class ErasureTest extends RowLevelTestBase {
  private static final long PERSON = 7;

  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of("db.t16", 2, "copy-on-write"),
        Arguments.of("db.t17", 2, "merge-on-read"),
        Arguments.of("db.t18", 3, "merge-on-read"));
  }

  @ParameterizedTest(name = "{0}: format v{1}, {2}")
  @MethodSource("modes")
  void aPersonsRowsLeaveEveryFile(String t, int formatVersion, String mode) throws IOException {
    create(t, RowLevelOperationsTest.properties(formatVersion, mode));
    insert(t, 1, 10);
    insert(t, 11, 20);
    ProtectionSpec admin = specOf(t, "alice");
    assertThat(holdingPerson(admin, iceberg(t))).isNotEmpty();
    // what a crashed job could have left behind: a copy of a file holding the person, days old
    Path orphan = plantOldOrphan(t);

    boolean mergeOnRead = mode.equals("merge-on-read");
    // merge-on-read: any writer erases, with no column key; copy-on-write copies the other rows
    as(mergeOnRead ? "etl" : "alice", "DELETE FROM " + name(t) + " WHERE id = " + PERSON);
    assertThat(as("alice", "SELECT * FROM " + name(t) + " WHERE id = " + PERSON)).isEmpty();
    if (mergeOnRead) {
      // a position delete or DV only marks the row: its data file still holds it
      assertThat(holdingPerson(admin, iceberg(t))).isNotEmpty();
      as(
          "alice",
          "CALL " + CATALOG + ".system.rewrite_protected(table => '" + t + "', force => true)");
    }
    assertThat(holdingPerson(admin, iceberg(t))).isEmpty();

    String now = Timestamp.from(Instant.now().plusSeconds(1)).toString();
    assertThatThrownBy(
            () ->
                as(
                    "bob",
                    "CALL "
                        + CATALOG
                        + ".system.expire_snapshots(table => '"
                        + t
                        + "',"
                        + " older_than => TIMESTAMP '"
                        + now
                        + "', retain_last => 1)"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("may not run")
        .hasMessageContaining("expire_snapshots");
    as(
        "etl",
        "CALL "
            + CATALOG
            + ".system.expire_snapshots(table => '"
            + t
            + "',"
            + " older_than => TIMESTAMP '"
            + now
            + "', retain_last => 1)");
    as("etl", "CALL " + CATALOG + ".system.remove_orphan_files(table => '" + t + "')");
    assertThat(orphan).doesNotExist();

    // every data file left is live, none holds the person, decrypted or not
    Table table = iceberg(t);
    List<DataFile> live = liveDataFiles(table);
    Set<String> liveNames = live.stream().map(ErasureTest::fileName).collect(Collectors.toSet());
    assertThat(dataFilesOnDisk(t)).isEqualTo(liveNames);
    List<String> decrypted = new ArrayList<>();
    for (DataFile file : live) {
      decrypted.addAll(decryptedRows(admin, table, file));
    }
    assertThat(decrypted).hasSize(19).noneMatch(ErasureTest::isPerson);
    assertThat(String.join("\n", decrypted))
        .contains(ssn(PERSON + 1))
        .doesNotContain(ssn(PERSON))
        .doesNotContain(email(PERSON));
    // the name is not protected: stored in plaintext, it must be gone from every file too
    assertThat(filesHolding(t, List.of(ssn(PERSON), email(PERSON), "name-" + PERSON))).isEmpty();
    assertThat(as("alice", "SELECT count(*) FROM " + name(t)).get(0).getLong(0)).isEqualTo(19);
  }

  /** Live data files of {@code table} whose decrypted rows include the person's. */
  private static List<String> holdingPerson(ProtectionSpec admin, Table table) {
    List<String> holding = new ArrayList<>();
    for (DataFile file : liveDataFiles(table)) {
      if (decryptedRows(admin, table, file).stream().anyMatch(ErasureTest::isPerson)) {
        holding.add(fileName(file));
      }
    }
    return holding;
  }

  /** A row as parquet-mr's example reader prints it: one "field: value" line per column. */
  private static boolean isPerson(String row) {
    return row.startsWith("id: " + PERSON + "\n")
        || row.contains(ssn(PERSON))
        || row.contains(email(PERSON));
  }

  private static List<DataFile> liveDataFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    for (ContentFile<?> file : liveFiles(table)) {
      if (file.content() == FileContent.DATA) {
        files.add((DataFile) file);
      }
    }
    return files;
  }

  private static Set<String> dataFilesOnDisk(String t) {
    return files(t).stream()
        .filter(p -> p.getParent().getFileName().toString().equals("data"))
        .map(p -> p.getFileName().toString())
        .filter(name -> name.endsWith(".parquet") && !name.endsWith("-deletes.parquet"))
        .collect(Collectors.toSet());
  }

  private static Path plantOldOrphan(String t) throws IOException {
    Table table = iceberg(t);
    String holding = holdingPerson(specOf(t, "alice"), table).get(0);
    Path source = dir(t).resolve("data").resolve(holding);
    Path orphan = source.resolveSibling("00000-0-orphan-of-a-failed-job-00001.parquet");
    Files.copy(source, orphan, StandardCopyOption.REPLACE_EXISTING);
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(5, ChronoUnit.DAYS)));
    return orphan;
  }

  private static String fileName(ContentFile<?> file) {
    return Path.of(java.net.URI.create(file.location())).getFileName().toString();
  }
}
