/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The demo behind {@code bin/protector demo}: writes a generated {@code db.customers} table through
 * the protecting catalog, reads one row as three principals, and proves protection at rest (the
 * footer's encryption layout, and a byte search for the canary row's protected values).
 *
 * <p>Row 42 is the canary row: its protected values occur nowhere else in the data (generated SSNs
 * never start with 9, generated ZIP codes never start with 9, generated emails carry the id), so
 * finding one of them in a file would mean plaintext leaked. Its unprotected name is the control:
 * the search must find it, which shows that it does see plaintext. The table is written
 * uncompressed so that compression cannot hide plaintext from the search.
 */
final class Demo {
  static final String TABLE = "db.customers";
  static final String QUALIFIED = LocalSpark.CATALOG + "." + TABLE;
  static final String WRITER = "etl";
  static final List<String> READERS = List.of("alice", "bob", "carol");
  static final long CANARY_ID = 42;
  static final String CONTROL_NAME = "Grace Canary";
  static final String CANARY_SSN = "999-42-4242";
  static final String CANARY_EMAIL = "grace.canary@example.com";
  static final String CANARY_ZIP = "99042-4242";
  static final List<String> CANARIES = List.of(CANARY_SSN, CANARY_EMAIL, CANARY_ZIP);
  static final int MIN_ROWS = 100;

  static final String QUERY =
      "SELECT id, name, ssn, email, salary, address.zip AS zip, address.city AS city"
          + " FROM "
          + QUALIFIED
          + " WHERE id = "
          + CANARY_ID;

  private static final int CELL_WIDTH = 26;

  /** What the demo found, for tests. */
  record Result(
      long rows,
      int dataFiles,
      List<String> queryColumns,
      Map<String, List<String>> valuesByReader,
      FooterReport report,
      int filesSearched,
      int protectedHits,
      int controlFiles) {}

  private Demo() {}

  static Result run(Workspace ws, long rows, PrintWriter out, PrintWriter progress) {
    long started = System.nanoTime();
    Policy policy = ws.loadPolicy();
    TablePolicy table =
        policy
            .table(TABLE)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "The demo writes table "
                            + TABLE
                            + ", but policy "
                            + ws.policy
                            + " does not list it"));
    policy.validateSchema(TABLE, schemaTypes());
    checkArgument(
        policy.rolesOf(Principal.user(WRITER)).stream().anyMatch(table.writers()::contains),
        "The demo writes as user '%s', but no role of '%s' is among the writers of %s in %s",
        WRITER,
        WRITER,
        TABLE,
        ws.policy);

    out.println(
        "Iceberg Protector demo: "
            + rows(rows)
            + " customers in "
            + QUALIFIED
            + ", policy "
            + show(ws.policy));
    out.println();
    setup(ws, policy, out);
    out.flush();

    progress.println("starting local Spark (local[*], first start takes a few seconds)...");
    progress.flush();
    SparkSession spark = LocalSpark.start(ws, WRITER, null, "iceberg-protector demo");
    try {
      long writeStart = System.nanoTime();
      progress.println("writing " + rows(rows) + " rows as " + WRITER + "...");
      progress.flush();
      write(spark, rows);
      Path tableDir = ws.warehouse.resolve(TABLE.replace('.', '/'));
      List<Path> dataFiles =
          files(tableDir).stream()
              .filter(p -> p.getFileName().toString().endsWith(".parquet"))
              .sorted()
              .collect(Collectors.toList());
      out.printf(
          Locale.ROOT,
          "Write: %s rows as %s (%s) in %.1f s, %d data files%n",
          rows(rows),
          WRITER,
          roles(policy, WRITER),
          seconds(writeStart),
          dataFiles.size());
      out.println("  " + protectionSummary(table));
      out.println();
      out.flush();

      progress.println("querying as " + String.join(", ", READERS) + "...");
      progress.flush();
      Map<String, List<String>> values = new LinkedHashMap<>();
      List<String> columns = null;
      for (String reader : READERS) {
        LocalSpark.actAs(spark, reader, null);
        org.apache.spark.sql.Dataset<Row> df = spark.sql(QUERY);
        columns = List.of(df.columns());
        List<Row> result = df.collectAsList();
        checkState(
            result.size() == 1,
            "Expected one row for id %s as %s, got %s",
            CANARY_ID,
            reader,
            result.size());
        List<String> cells = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
          cells.add(Values.render(result.get(0).get(i)));
        }
        values.put(reader, cells);
      }
      LocalSpark.actAs(spark, WRITER, null);
      printQuery(policy, table, columns, values, out);
      out.flush();

      progress.println("inspecting a data file and searching every file of the table...");
      progress.flush();
      FooterReport report = inspect(ws, policy, dataFiles);
      out.println(
          "At rest: the footer of one data file, read with the footer key only (as carol;"
              + " every reader gets the footer key, no column key is requested):");
      out.print(indent(report.toText(), "  "));
      out.println();

      List<Path> all = files(tableDir);
      int hits = 0;
      int controlFiles = 0;
      for (Path file : all) {
        byte[] bytes = readAll(file);
        for (String canary : CANARIES) {
          hits += count(bytes, canary.getBytes(StandardCharsets.UTF_8));
        }
        if (count(bytes, CONTROL_NAME.getBytes(StandardCharsets.UTF_8)) > 0) {
          controlFiles++;
        }
      }
      out.println(
          "Byte search of every file under "
              + show(tableDir)
              + " (data, manifests, metadata) for the canary");
      out.println("row's protected values " + String.join(", ", CANARIES) + ":");
      out.println("  " + hits + (hits == 1 ? " hit" : " hits") + " in " + all.size() + " files");
      out.println(
          "  control: its unprotected name '"
              + CONTROL_NAME
              + "' is found in "
              + controlFiles
              + " of "
              + all.size()
              + " files, so the search does see plaintext (the demo table is uncompressed)");
      out.println();
      out.printf(
          Locale.ROOT,
          "Done in %.0f s. Next: bin/protector sql --user bob -e \"SELECT id, ssn, email, salary FROM %s LIMIT 3\"%n",
          seconds(started),
          TABLE);
      out.flush();
      return new Result(
          rows, dataFiles.size(), columns, values, report, all.size(), hits, controlFiles);
    } catch (Exception e) { // Spark's AnalysisException is a checked exception
      throw SparkErrors.wrap(e);
    } finally {
      spark.stop();
    }
  }

  /** Column types of the demo table, as the policy checks them (same as conf/table-schema.conf). */
  static Map<String, ColumnType> schemaTypes() {
    Map<String, ColumnType> types = new LinkedHashMap<>();
    types.put("id", ColumnType.LONG);
    types.put("name", ColumnType.STRING);
    types.put("ssn", ColumnType.STRING);
    types.put("email", ColumnType.STRING);
    types.put("salary", ColumnType.DECIMAL);
    types.put("address", ColumnType.STRUCT);
    types.put("address.street", ColumnType.STRING);
    types.put("address.zip", ColumnType.STRING);
    types.put("address.city", ColumnType.STRING);
    return types;
  }

  private static void setup(Workspace ws, Policy policy, PrintWriter out) {
    boolean created = ws.ensurePassphraseFile();
    String mode = ws.passphraseMode();
    out.println("Setup");
    out.println(
        "  passphrase  "
            + show(ws.passphraseFile)
            + (created ? " (generated now" : " (exists")
            + (mode == null ? ")" : ", mode " + mode + ")"));
    String warning = ws.passphrasePermissionWarning();
    if (warning != null) {
      out.println("  " + warning);
    }
    Workspace.KeySetup keys = ws.ensureKeys(policy);
    StringBuilder line =
        new StringBuilder(
            "  keystore    "
                + show(ws.keystore)
                + (keys.keystoreCreated() ? " (created now)" : " (exists)"));
    if (!keys.created().isEmpty()) {
      line.append(", created keys ").append(String.join(", ", keys.created()));
    }
    if (!keys.existing().isEmpty()) {
      line.append(keys.created().isEmpty() ? ", keys " : ", existing keys ")
          .append(String.join(", ", keys.existing()));
    }
    out.println(line);
    out.println(
        "  warehouse   "
            + show(ws.warehouse)
            + " (Hadoop catalog '"
            + LocalSpark.CATALOG
            + "', class "
            + LocalSpark.CATALOG_CLASS
            + ")");
    out.println();
  }

  static void write(SparkSession spark, long rows) {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + LocalSpark.CATALOG + ".db");
    spark.sql("DROP TABLE IF EXISTS " + QUALIFIED + " PURGE");
    spark.sql(
        "CREATE TABLE "
            + QUALIFIED
            + " ("
            + "id BIGINT, name STRING, ssn STRING, email STRING, salary DECIMAL(12,2),"
            + " address STRUCT<street: STRING, zip: STRING, city: STRING>)"
            + " USING iceberg"
            + " TBLPROPERTIES ('format-version' = '2', 'write.parquet.compression-codec' = 'uncompressed')");
    spark.sql("INSERT INTO " + QUALIFIED + " " + generator(rows));
  }

  /** Deterministic customers; row {@value #CANARY_ID} carries the canaries. */
  static String generator(long rows) {
    String first =
        "element_at(array('Ada','Alan','Barbara','Claude','Donald','Edsger','Frances','Grace',"
            + "'Hedy','John','Katherine','Leslie','Margaret','Niklaus','Radia','Tim'), CAST(pmod(hash(id, 1), 16) + 1 AS INT))";
    String last =
        "element_at(array('Lovelace','Turing','Liskov','Shannon','Knuth','Dijkstra','Allen','Hopper',"
            + "'Lamarr','Backus','Johnson','Lamport','Hamilton','Wirth','Perlman','Berners-Lee'), CAST(pmod(hash(id, 2), 16) + 1 AS INT))";
    String street =
        "element_at(array('Main St','Oak Ave','Pine Rd','Maple Dr','Cedar Ln','Elm St','Lake Blvd','Hill Rd'),"
            + " CAST(pmod(hash(id, 3), 8) + 1 AS INT))";
    String city =
        "element_at(array('Springfield','Riverside','Fairview','Madison','Georgetown','Salem','Franklin','Clinton'),"
            + " CAST(pmod(hash(id, 4), 8) + 1 AS INT))";
    String canary = "id = " + CANARY_ID;
    return "SELECT id,"
        + " CASE WHEN "
        + canary
        + " THEN '"
        + CONTROL_NAME
        + "' ELSE concat(first, ' ', last) END AS name,"
        + " CASE WHEN "
        + canary
        + " THEN '"
        + CANARY_SSN
        + "' ELSE format_string('%03d-%02d-%04d',"
        + "   100 + pmod(hash(id, 5), 800), 1 + pmod(hash(id, 6), 99), pmod(hash(id, 7), 10000)) END AS ssn,"
        + " CASE WHEN "
        + canary
        + " THEN '"
        + CANARY_EMAIL
        + "'"
        + "   ELSE lower(concat(first, '.', replace(last, '-', ''), CAST(id AS STRING), '@example.com')) END AS email,"
        + " CASE WHEN "
        + canary
        + " THEN CAST(4242424.42 AS DECIMAL(12,2))"
        + "   ELSE CAST(30000 + pmod(hash(id, 8), 170000) + pmod(hash(id, 9), 100) / 100.0 AS DECIMAL(12,2)) END AS salary,"
        + " named_struct("
        + "   'street', concat(CAST(1 + pmod(hash(id, 10), 9999) AS STRING), ' ', street),"
        + "   'zip', CASE WHEN "
        + canary
        + " THEN '"
        + CANARY_ZIP
        + "'"
        + "     ELSE format_string('%05d-%04d', 10000 + pmod(hash(id, 11), 80000), pmod(hash(id, 12), 10000)) END,"
        + "   'city', city) AS address"
        + " FROM (SELECT id, "
        + first
        + " AS first, "
        + last
        + " AS last, "
        + street
        + " AS street, "
        + city
        + " AS city FROM range(0, "
        + rows
        + ", 1, 2))";
  }

  private static void printQuery(
      Policy policy,
      TablePolicy table,
      List<String> columns,
      Map<String, List<String>> values,
      PrintWriter out) {
    out.println("One query, three principals:");
    out.println("  " + QUERY);
    out.println();
    List<String> headers = new ArrayList<>();
    headers.add("column");
    for (String reader : READERS) {
      Set<String> roles = policy.rolesOf(Principal.user(reader));
      headers.add(
          reader + (roles.isEmpty() ? " (no role)" : " (" + String.join(", ", roles) + ")"));
    }
    List<List<String>> rows = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      List<String> row = new ArrayList<>();
      row.add(columns.get(i));
      for (String reader : READERS) {
        row.add(abbreviate(values.get(reader).get(i)));
      }
      rows.add(row);
    }
    out.print(indent(TextTable.plain(headers, rows), "  "));
    out.println();
    int width = READERS.stream().mapToInt(String::length).max().orElse(5);
    for (String reader : READERS) {
      out.println("  " + pad(reader, width) + "  " + accessSummary(policy, table, reader));
    }
    out.println();
  }

  /**
   * E.g. "masked ssn (partial(keep_last=4)), email (hash); denied salary, address.zip (read as
   * NULL)".
   */
  static String accessSummary(Policy policy, TablePolicy table, String user) {
    Principal p = Principal.user(user);
    List<String> clear = new ArrayList<>();
    List<String> masked = new ArrayList<>();
    List<String> denied = new ArrayList<>();
    for (ColumnPolicy column : table.columns()) {
      Access access = policy.decide(table.name(), column.path(), p);
      if (access.level() == AccessLevel.CLEAR) {
        clear.add(column.path());
      } else if (access.level() == AccessLevel.MASKED) {
        masked.add(column.path() + " (" + access.mask().spec() + ")");
      } else {
        denied.add(column.path());
      }
    }
    List<String> parts = new ArrayList<>();
    if (!clear.isEmpty()) {
      parts.add("clear " + String.join(", ", clear));
    }
    if (!masked.isEmpty()) {
      parts.add("masked " + String.join(", ", masked));
    }
    if (!denied.isEmpty()) {
      parts.add("denied " + String.join(", ", denied) + " (keys never released)");
    }
    return String.join("; ", parts);
  }

  static String protectionSummary(TablePolicy table) {
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    for (ColumnPolicy column : table.columns()) {
      byKey.computeIfAbsent(column.keyId(), k -> new ArrayList<>()).add(column.path());
    }
    String columns =
        byKey.entrySet().stream()
            .map(e -> String.join(", ", e.getValue()) + " under key " + e.getKey())
            .collect(Collectors.joining("; "));
    return "encrypted: "
        + columns
        + "; footer "
        + table.footerMode().spec()
        + " under key "
        + table.footerKeyId()
        + "; "
        + table.algorithm();
  }

  private static FooterReport inspect(Workspace ws, Policy policy, List<Path> dataFiles) {
    checkState(!dataFiles.isEmpty(), "The write produced no data files under %s", ws.warehouse);
    String text;
    try {
      text = Files.readString(ws.policy, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ProtectorContext context = ProtectorContext.of(policy, ws.kms());
    Path file = dataFiles.get(0);
    return ParquetFooterInspector.inspect(
        file, Inspector.footerDecryption(context, Principal.user("carol"), file, null));
  }

  static List<Path> files(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  private static byte[] readAll(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** Occurrences of {@code needle} in {@code haystack}. */
  static int count(byte[] haystack, byte[] needle) {
    int hits = 0;
    byte first = needle[0];
    int last = haystack.length - needle.length;
    outer:
    for (int i = 0; i <= last; i++) {
      if (haystack[i] != first) {
        continue;
      }
      for (int j = 1; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      hits++;
    }
    return hits;
  }

  private static String roles(Policy policy, String user) {
    Set<String> roles = policy.rolesOf(Principal.user(user));
    return roles.isEmpty() ? "no role" : "role " + String.join(", ", roles);
  }

  private static String abbreviate(String s) {
    return s.length() <= CELL_WIDTH ? s : s.substring(0, CELL_WIDTH - 3) + "...";
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(Math.max(0, width - s.length()));
  }

  static String indent(String text, String prefix) {
    StringBuilder sb = new StringBuilder();
    text.lines().forEach(l -> sb.append(l.isEmpty() ? "" : prefix + l).append('\n'));
    return sb.toString();
  }

  /** A path relative to the working directory when it lies below it. */
  static String show(Path p) {
    Path abs = p.toAbsolutePath().normalize();
    Path cwd = Path.of("").toAbsolutePath();
    return abs.startsWith(cwd) && !abs.equals(cwd)
        ? cwd.relativize(abs).toString()
        : abs.toString();
  }

  private static String rows(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
