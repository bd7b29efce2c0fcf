/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.wire.JsonCodec;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code protector keys ...}: master-key administration on the local keystore or on the key server.
 * Key material never leaves the key service; these commands only name keys.
 */
@Command(
    name = "keys",
    header = "Create, list, rotate, retire and destroy master keys.",
    subcommands = KeysRetireCommand.class,
    mixinStandardHelpOptions = true,
    description =
        "Keys live in the local keystore (default ./.protector/keys.p12, the demo's), "
            + "in a PKCS#11 token (--pkcs11-library) or on the key server (--url). Start with 'keys init'.")
public final class KeysCommand implements Runnable {
  @Spec CommandSpec spec;
  @ParentCommand ProtectorCli root;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing subcommand: create, list, rotate, retire or destroy");
  }

  /** Where the keys live: a local keystore (default), a PKCS#11 token or the key server. */
  static final class Target {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Mixin KeyBackendOptions.Keystore keystore;
    @Mixin KeyBackendOptions.Pkcs11 pkcs11;
    @Mixin KeyBackendOptions.Server server;

    boolean local() {
      return !server.given() && !pkcs11.given();
    }

    /** Checks option combinations; mistakes here are usage errors (exit 2). */
    void validate() {
      KeyBackendOptions.validate(mixee, keystore, pkcs11, server);
    }

    Path keystorePath() {
      return keystore.keystorePath();
    }

    String describe() {
      return KeyBackendOptions.describe(keystore, pkcs11, server);
    }

    KeyService open(boolean createKeystore) {
      validate();
      KmsSettings settings = KeyBackendOptions.settings(mixee, keystore, pkcs11, server);
      if (local()) {
        checkArgument(
            createKeystore || Files.exists(keystorePath()),
            "Keystore %s does not exist (create it with 'keys init', or "
                + "run 'bin/protector demo')",
            keystorePath());
        keystore.requirePassphraseFile();
      }
      return KeyServices.open(settings, createKeystore);
    }
  }

  @Command(
      name = "create",
      header = "Create master keys.",
      mixinStandardHelpOptions = true,
      description =
          "Each key starts at version 1. A missing local keystore is created, encrypted "
              + "with the passphrase; a PKCS#11 token must be initialized already.")
  int create(
      @Mixin Target target,
      @Parameters(
              arity = "1..*",
              paramLabel = "<key-id>",
              description = "Key ids, as in the policy's keys block.")
          List<String> ids) {
    PrintWriter out = spec.commandLine().getOut();
    boolean existed = !target.local() || Files.exists(target.keystorePath());
    try (KeyService keys = target.open(true)) {
      if (!existed) {
        out.println("created " + target.describe());
      }
      for (String id : ids) {
        KeyInfo info = keys.createKey(id);
        out.println(
            "created key "
                + info.id()
                + " (v"
                + info.latestVersion()
                + ") in "
                + target.describe());
      }
    }
    out.flush();
    return ProtectorCli.OK;
  }

  @Command(
      name = "init",
      header = "Create a keystore and its passphrase file, or show how for the key server.",
      mixinStandardHelpOptions = true,
      description =
          "Local: creates the passphrase file (32 random bytes, mode 0600) and an empty PKCS12 "
              + "keystore encrypted with it, then with --policy the policy's keys. Existing files are kept. "
              + "With --url: the key server keeps its own keystore, so this prints the commands to run.")
  int init(
      @Mixin Target target,
      @Option(
              names = "--policy",
              paramLabel = "<file>",
              description = "Also create the keys this policy names.")
          String policyFile) {
    PrintWriter out = spec.commandLine().getOut();
    target.validate();
    java.util.Set<String> wanted =
        policyFile == null
            ? java.util.Set.of()
            : io.icebergprotector.policy.Policy.load(policyFile).keyIds();
    if (target.server.given()) {
      String ids = wanted.isEmpty() ? "<key-id>..." : String.join(" ", wanted);
      out.println("The key server keeps its own keystore; on the server host run:");
      out.println(
          "  bin/protector keys init --keystore /etc/protector/keys.p12"
              + " --passphrase-file /etc/protector/passphrase");
      out.println("and point conf/server.conf at them:");
      out.println(
          "  keys { keystore = \"/etc/protector/keys.p12\", passphrase-file = \"/etc/protector/passphrase\" }");
      out.println("then, as a principal in the server's admin-roles, create the keys:");
      out.println(
          "  bin/protector keys create "
              + ids
              + " --url "
              + target.server.url
              + (target.server.tokenFile == null ? "" : " --token-file " + target.server.tokenFile)
              + (target.server.trustCert == null
                  ? ""
                  : " --trust-cert " + target.server.trustCert));
      out.flush();
      return ProtectorCli.OK;
    }
    if (target.pkcs11.given()) {
      throw new ParameterException(
          spec.commandLine().getSubcommands().get("init"),
          "a PKCS#11 token is"
              + " initialized with its own tools (e.g. softhsm2-util --init-token); then run 'keys create'");
    }
    if (target.keystore.passphraseEnv == null) {
      Path passphrase = target.keystore.passphraseFileOrDefault();
      out.println(
          Workspace.createPassphraseFile(passphrase)
              ? "created passphrase file " + passphrase + " (mode 0600; keep it secret, back it up)"
              : "passphrase file " + passphrase + " exists; kept");
    }
    boolean existed = Files.exists(target.keystorePath());
    try (KeyService keys = target.open(true)) {
      out.println(existed ? target.describe() + " exists; kept" : "created " + target.describe());
      java.util.Set<String> present = new java.util.HashSet<>();
      keys.listKeys().forEach(k -> present.add(k.id()));
      for (String id : wanted) {
        if (present.contains(id)) {
          out.println("key " + id + " exists; kept");
        } else {
          KeyInfo info = keys.createKey(id);
          out.println("created key " + info.id() + " (v" + info.latestVersion() + ")");
        }
      }
    }
    out.flush();
    return ProtectorCli.OK;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      header = "List master keys and their versions.")
  int list(@Mixin Target target, @Mixin OutputFormat format) {
    PrintWriter out = spec.commandLine().getOut();
    List<KeyInfo> infos;
    try (KeyService keys = target.open(false)) {
      infos = new ArrayList<>(keys.listKeys());
    }
    infos.sort(Comparator.comparing(KeyInfo::id));
    if (format.json()) {
      List<Object> list = new ArrayList<>();
      for (KeyInfo k : infos) {
        boolean known = k.createdAt() != null && !k.createdAt().equals(Instant.EPOCH);
        list.add(
            JsonCodec.object(
                "id", k.id(),
                "latest_version", k.destroyed() ? null : k.latestVersion(),
                "versions", k.destroyed() ? List.of() : k.versions(),
                "min_decryption_version", k.destroyed() ? null : k.minDecryptionVersion(),
                "created", known ? k.createdAt().truncatedTo(ChronoUnit.SECONDS).toString() : null,
                "status", k.destroyed() ? "destroyed" : "active"));
      }
      OutputFormat.print(out, JsonCodec.object("source", target.describe(), "keys", list));
      return ProtectorCli.OK;
    }
    out.println(target.describe() + ": " + infos.size() + (infos.size() == 1 ? " key" : " keys"));
    if (!infos.isEmpty()) {
      List<List<String>> rows = new ArrayList<>();
      for (KeyInfo k : infos) {
        rows.add(
            List.of(
                k.id(),
                k.destroyed() ? "-" : "v" + k.latestVersion(),
                k.destroyed()
                    ? "-"
                    : decrypting(k).stream().map(v -> "v" + v).collect(Collectors.joining(",")),
                k.createdAt() == null
                        || k.createdAt().equals(Instant.EPOCH) // unknown (e.g. destroyed, remote)
                    ? "-"
                    : k.createdAt().truncatedTo(ChronoUnit.SECONDS).toString(),
                k.destroyed()
                    ? "destroyed"
                    : k.minDecryptionVersion() > 1
                        ? "active, below v" + k.minDecryptionVersion() + " retired"
                        : "active"));
      }
      out.print(TextTable.plain(List.of("KEY", "LATEST", "VERSIONS", "CREATED", "STATUS"), rows));
    }
    out.flush();
    return ProtectorCli.OK;
  }

  /**
   * The versions that still unwrap: retired ones are left out (a PKCS#11 token no longer holds them
   * at all).
   */
  private static List<Integer> decrypting(KeyInfo k) {
    return k.versions().stream().filter(v -> v >= k.minDecryptionVersion()).toList();
  }

  @Command(
      name = "rotate",
      header = "Add a new version to master keys.",
      mixinStandardHelpOptions = true,
      description =
          "New files wrap their keys under the new version; older versions are kept, "
              + "so existing files stay readable.")
  int rotate(
      @Mixin Target target,
      @Parameters(arity = "1..*", paramLabel = "<key-id>", description = "Key ids to rotate.")
          List<String> ids) {
    PrintWriter out = spec.commandLine().getOut();
    try (KeyService keys = target.open(false)) {
      for (String id : ids) {
        KeyInfo info = keys.rotateKey(id);
        out.println(
            "rotated key "
                + info.id()
                + " to v"
                + info.latestVersion()
                + " (versions "
                + decrypting(info).stream().map(v -> "v" + v).collect(Collectors.joining(", "))
                + "); new files use v"
                + info.latestVersion()
                + ", existing files still read");
      }
    }
    out.flush();
    return ProtectorCli.OK;
  }

  @Command(
      name = "destroy",
      header = "Destroy a master key and all its versions (crypto-shredding).",
      mixinStandardHelpOptions = true,
      description =
          "Every column encrypted under the key becomes unreadable for everyone, forever. "
              + "Asks you to type the key id, unless --yes; without a terminal it refuses unless --yes.")
  int destroy(
      @Mixin Target target,
      @Parameters(paramLabel = "<key-id>", description = "The key to destroy.") String id,
      @Option(names = "--yes", description = "Do not ask for confirmation.") boolean yes) {
    PrintWriter out = spec.commandLine().getOut();
    target.validate();
    ProtectorCli.Terminal terminal = root == null ? null : root.terminal;
    if (!yes && terminal == null) {
      throw new ParameterException(
          spec.commandLine().getSubcommands().get("destroy"),
          "refusing to destroy key '"
              + id
              + "' without confirmation: no terminal to ask on;"
              + " pass --yes to destroy it non-interactively");
    }
    try (KeyService keys = target.open(false)) {
      KeyInfo info = keys.describeKey(id); // a typo fails here, before anyone is asked anything
      if (!yes) {
        String typed =
            terminal.readLine(
                "Destroying key '"
                    + info.id()
                    + "' ("
                    + info.versions().size()
                    + " version(s)) in "
                    + target.describe()
                    + " makes every column encrypted under it unreadable, forever."
                    + System.lineSeparator()
                    + "Type the key id to confirm: ");
        checkState(
            typed != null && typed.strip().equals(id),
            "Aborted: the confirmation did not match key id '%s'; nothing was destroyed",
            id);
      }
      keys.destroyKey(id);
    }
    out.println(
        "destroyed key "
            + id
            + " in "
            + target.describe()
            + ": data encrypted under it can no longer be decrypted by anyone");
    out.flush();
    return ProtectorCli.OK;
  }
}
