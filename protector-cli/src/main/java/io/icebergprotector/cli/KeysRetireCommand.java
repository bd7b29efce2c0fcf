/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.TablePolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code protector keys retire KEY --below N}: Vault's {@code min_decryption_version}, but only
 * once no file of a protected table needs a version below N. The scan reads the footers of every
 * file every kept snapshot of every table that uses the key references (through the same catalog
 * options as {@code inspect --table}); any hit refuses, with the list. Otherwise the key service
 * makes those versions unusable for decryption.
 */
@Command(
    name = "retire",
    header = "Make the versions of a master key below N unusable for decryption.",
    mixinStandardHelpOptions = true,
    description =
        "First reads the footer of every Parquet file that a kept snapshot of a protected table "
            + "references (every table of the policy that uses the key, plus --table): if one still needs a version "
            + "below N (footer or column keys), nothing changes and the files are listed; rewrite them first "
            + "('bin/protector rewrite --min-key-version N') and expire the snapshots that still hold them. Otherwise "
            + "sets the key's minimum decryption version to N, in the local keystore, the PKCS#11 token (which "
            + "deletes the old versions) or the key server (--url). The minimum only moves forward. Hash masks are "
            + "unaffected (they derive from version 1).",
    footerHeading = "%nExample, after 'keys rotate pii' and 'rewrite --min-key-version 2':%n",
    footer = "  bin/protector keys retire pii --below 2")
public final class KeysRetireCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "<key-id>", description = "The master key.")
  String keyId;

  @Option(
      names = "--below",
      required = true,
      paramLabel = "<n>",
      description =
          "Retire every version below this one (it becomes the minimum decryption version).")
  int below;

  @Option(
      names = "--table",
      paramLabel = "<db.table>",
      description =
          "Also scan this table (repeatable), e.g. one the policy protects by location (paths block).")
  List<String> extraTables = new ArrayList<>();

  @Mixin CatalogOptions catalog;
  @Mixin KeyBackendOptions.Keystore keystore;
  @Mixin KeyBackendOptions.Pkcs11 pkcs11;
  @Mixin OutputFormat format;

  @Option(
      names = "--warehouse",
      defaultValue = Workspace.DEFAULT_WAREHOUSE,
      paramLabel = "<dir>",
      description = "Warehouse of catalog 'demo' (default: ${DEFAULT-VALUE}).")
  Path warehouse;

  @Option(
      names = "--policy",
      paramLabel = "<file>",
      description =
          "Policy naming the protected tables (default: the catalog's, else "
              + Workspace.DEFAULT_POLICY
              + ").")
  Path policyFile;

  @Option(
      names = "--user",
      paramLabel = "<user>",
      description =
          "Principal unwrapping the tables' footer keys for the scan (default: the OS user; with --url the"
              + " token's). Every principal may unwrap footer keys.")
  String user;

  @Override
  public Integer call() {
    if (below < 1) {
      throw new ParameterException(
          spec.commandLine(), "--below must be a version number >= 1: " + below);
    }
    for (String t : extraTables) {
      if (!t.matches("[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)+")) {
        throw new ParameterException(
            spec.commandLine(), "--table must be a name like db.customers: " + t);
      }
    }
    catalog.server.requireOnlyWithUrl(spec);
    HeavyClasspath.require(
        "keys retire", HeavyClasspath.SPARK, HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    KeyBackendOptions.validate(spec, keystore, pkcs11, catalog.server);
    KmsSettings kms = KeyBackendOptions.settings(spec, keystore, pkcs11, catalog.server);
    String source = KeyBackendOptions.describe(keystore, pkcs11, catalog.server);
    if (!pkcs11.given() && !catalog.server.given()) {
      keystore.requirePassphraseFile();
    }
    PrintWriter out = spec.commandLine().getOut();
    String principal = user != null ? user : System.getProperty("user.name");
    try (KeyService keys = KeyServices.open(kms, false)) {
      KeyInfo before = keys.describeKey(keyId);
      checkArgument(
          !before.destroyed(), "Key '%s' in %s was destroyed; nothing to retire", keyId, source);
      // Fails fast (lowering, or past the latest version) before the scan starts Spark.
      before.checkNewMinDecryptionVersion(below);

      Workspace ws =
          new Workspace(
              warehouse,
              Path.of(Workspace.DEFAULT_STATE_DIR),
              policyFile != null ? policyFile : Workspace.defaultPolicy());
      Policy policy = loadPolicy(ws);
      Set<String> tables = new LinkedHashSet<>();
      for (Map.Entry<String, TablePolicy> e : policy.tables().entrySet()) {
        if (uses(e.getValue(), keyId)) {
          tables.add(e.getKey());
        }
      }
      tables.addAll(extraTables);
      RetireScan.Result scan;
      if (tables.isEmpty()) {
        scan = new RetireScan.Result(List.of(), List.of());
      } else {
        scan =
            RetireScan.run(
                ws,
                catalog,
                kms,
                policy,
                principal,
                keyId,
                below,
                new ArrayList<>(tables),
                Set.copyOf(extraTables),
                spec.commandLine().getErr());
      }
      boolean byLocation = policy.paths().values().stream().anyMatch(p -> uses(p, keyId));
      KeyInfo after = scan.findings().isEmpty() ? keys.setMinDecryptionVersion(keyId, below) : null;
      if (format.json()) {
        printJson(out, source, scan, after, byLocation);
      } else {
        printText(out, source, scan, after, byLocation);
      }
      return after == null ? ProtectorCli.FAILED : ProtectorCli.OK;
    }
  }

  private Policy loadPolicy(Workspace ws) {
    String configured =
        LocalSpark.settings(ws, "retire", null, catalog)
            .get(
                "spark.sql.catalog."
                    + catalog.catalog
                    + "."
                    + io.icebergprotector.spark.core.CatalogOptions.POLICY.key());
    checkArgument(
        configured != null, "Catalog %s has no protector policy: give --policy", catalog.catalog);
    return Policy.load(policyFile != null ? policyFile.toString() : configured);
  }

  private static boolean uses(TablePolicy table, String keyId) {
    return keyId.equals(table.footerKeyId()) || table.columnKeyIds().contains(keyId);
  }

  private void printText(
      PrintWriter out, String source, RetireScan.Result scan, KeyInfo after, boolean byLocation) {
    if (scan.tables().isEmpty()) {
      out.println("no table of the policy uses key " + keyId);
    }
    for (RetireScan.TableResult t : scan.tables()) {
      out.println(
          t.notScanned() != null
              ? "table " + catalog.catalog + "." + t.table() + ": " + t.notScanned()
              : "table "
                  + catalog.catalog
                  + "."
                  + t.table()
                  + ": "
                  + t.files()
                  + " Parquet "
                  + (t.files() == 1 ? "file" : "files")
                  + " in kept snapshots"
                  + (t.skippedNotParquet() > 0
                      ? " (" + t.skippedNotParquet() + " non-Parquet delete files skipped)"
                      : ""));
    }
    if (byLocation) {
      out.println(
          "note: the policy also protects tables by location (paths block); name them with --table");
    }
    if (after == null) {
      List<RetireScan.Finding> findings = scan.findings();
      out.println(
          "refused: "
              + findings.size()
              + (findings.size() == 1 ? " file still needs" : " files still need")
              + " key "
              + keyId
              + " below v"
              + below
              + "; nothing was retired:");
      for (RetireScan.Finding f : findings) {
        out.println("  " + f.location() + ": " + f.describe(keyId));
      }
      Set<String> tables =
          findings.stream()
              .map(RetireScan.Finding::table)
              .collect(Collectors.toCollection(java.util.TreeSet::new));
      // Spark's procedure arguments are literals; a minute ahead covers the rewrite about to
      // commit. The session
      // time zone of local Spark is the JVM's.
      String until =
          java.time.LocalDateTime.now().plusMinutes(1).withNano(0).toString().replace('T', ' ');
      out.println(
          "fix: rewrite them, then expire the snapshots that still reference the old files, e.g.");
      for (String t : tables) {
        out.println(
            "  bin/protector rewrite --user <writer> --table " + t + " --min-key-version " + below);
        out.println(
            "  bin/protector sql --user <writer> -e \"CALL "
                + catalog.catalog
                + ".system.expire_snapshots(table => '"
                + t
                + "', older_than => TIMESTAMP '"
                + until
                + "', retain_last => 1)\"");
      }
    } else {
      out.println(
          "retired key "
              + keyId
              + " versions below v"
              + below
              + " in "
              + source
              + ": minimum decryption version is now "
              + after.minDecryptionVersion()
              + " (latest v"
              + after.latestVersion()
              + "); blobs wrapped under older versions no longer unwrap");
    }
    out.flush();
  }

  private void printJson(
      PrintWriter out, String source, RetireScan.Result scan, KeyInfo after, boolean byLocation) {
    List<Object> tables = new ArrayList<>();
    for (RetireScan.TableResult t : scan.tables()) {
      tables.add(
          JsonCodec.object(
              "table",
              catalog.catalog + "." + t.table(),
              "scanned",
              t.notScanned() == null,
              "files",
              t.files(),
              "skipped_not_parquet",
              t.skippedNotParquet(),
              "reason",
              t.notScanned()));
    }
    List<Object> files = new ArrayList<>();
    for (RetireScan.Finding f : scan.findings()) {
      List<Object> uses = new ArrayList<>();
      f.usesByVersion()
          .forEach(
              (v, where) ->
                  uses.add(JsonCodec.object("version", v, "used_by", List.copyOf(where))));
      files.add(
          JsonCodec.object(
              "table", catalog.catalog + "." + f.table(), "file", f.location(), "needs", uses));
    }
    OutputFormat.print(
        out,
        JsonCodec.object(
            "key", keyId,
            "below", below,
            "source", source,
            "tables", tables,
            "paths_not_scanned", byLocation,
            "files_needing_retired_versions", files,
            "retired", after != null,
            "min_decryption_version", after == null ? null : after.minDecryptionVersion()));
  }
}
