package io.icebergprotector.cli;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.remote.RemoteKeyService;
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
 * {@code protector keys ...}: master-key administration on the local keystore or on the key
 * server. Key material never leaves the key service; these commands only name keys.
 */
@Command(
    name = "keys",
    header = "Create, list, rotate and destroy master keys (local keystore or key server).",
    mixinStandardHelpOptions = true,
    description = {
      "Create, list, rotate and destroy master keys, in the local keystore (default",
      "./.protector/keys.p12, the demo's) or on the key server (--url)."
    })
public final class KeysCommand implements Runnable {
  static final String DEFAULT_TOKEN_ENV = "PROTECTOR_TOKEN";

  @Spec CommandSpec spec;
  @ParentCommand ProtectorCli root;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing subcommand: create, list, rotate or destroy");
  }

  /** Where the keys live: a local keystore (default) or a remote key server. */
  static final class Target {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(
        names = "--keystore",
        paramLabel = "<file>",
        description = "Local PKCS12 keystore (default: " + Workspace.DEFAULT_KEYSTORE + ").")
    Path keystore;

    @Option(
        names = "--passphrase-env",
        paramLabel = "<var>",
        description = "Environment variable holding the keystore passphrase.")
    String passphraseEnv;

    @Option(
        names = "--passphrase-file",
        paramLabel = "<file>",
        description = "File holding the keystore passphrase (default: " + Workspace.DEFAULT_PASSPHRASE + ").")
    Path passphraseFile;

    @Option(
        names = "--url",
        paramLabel = "<url>",
        description = "Key server URL, e.g. https://keys.example.com:8200 (instead of a keystore).")
    String url;

    @Option(
        names = "--token-env",
        paramLabel = "<var>",
        description = "Environment variable holding the server token (default: " + DEFAULT_TOKEN_ENV + ").")
    String tokenEnv;

    @Option(names = "--token-file", paramLabel = "<file>", description = "File holding the server token.")
    Path tokenFile;

    @Option(
        names = "--trust-cert",
        paramLabel = "<pem>",
        description = "Trust exactly this certificate (PEM/DER), e.g. the server's self-signed one.")
    Path trustCert;

    @Option(
        names = "--allow-insecure-http",
        description = {
          "Allow plain http:// to a key server that is not on loopback (the token crosses the",
          "network in clear; a warning is logged). Loopback needs no option."
        })
    boolean allowInsecureHttp;

    boolean remote() {
      return url != null;
    }

    /** Checks option combinations; mistakes here are usage errors (exit 2). */
    void validate() {
      if (url != null && (keystore != null || passphraseEnv != null || passphraseFile != null)) {
        throw usage("--url (key server) cannot be combined with --keystore or --passphrase-*");
      }
      if (url == null && (tokenEnv != null || tokenFile != null || trustCert != null || allowInsecureHttp)) {
        throw usage("--token-env, --token-file, --trust-cert and --allow-insecure-http need --url"
            + " (they configure the key server)");
      }
      if (passphraseEnv != null && passphraseFile != null) {
        throw usage("give the passphrase once: --passphrase-env or --passphrase-file, not both");
      }
      if (tokenEnv != null && tokenFile != null) {
        throw usage("give the token once: --token-env or --token-file, not both");
      }
    }

    Path keystorePath() {
      return keystore != null ? keystore : Path.of(Workspace.DEFAULT_KEYSTORE);
    }

    String describe() {
      return remote() ? "key server " + url : "keystore " + keystorePath();
    }

    KeyService open(boolean createKeystore) {
      validate();
      if (remote()) {
        RemoteKeyService.Builder b = RemoteKeyService.builder().url(url).allowInsecureHttp(allowInsecureHttp);
        if (tokenFile != null) {
          b.tokenFile(tokenFile);
        } else {
          String var = tokenEnv != null ? tokenEnv : DEFAULT_TOKEN_ENV;
          if (tokenEnv == null && System.getenv(var) == null) {
            throw new IllegalArgumentException(
                "no key server token: set " + DEFAULT_TOKEN_ENV + ", or pass --token-env <var> or --token-file <file>");
          }
          b.tokenFromEnv(var);
        }
        if (trustCert != null) {
          b.trustedCertificate(trustCert);
        }
        return b.build();
      }
      Path ks = keystorePath();
      if (!createKeystore && !Files.exists(ks)) {
        throw new IllegalArgumentException(
            "keystore " + ks + " does not exist (create keys with 'keys create', or run 'bin/protector demo')");
      }
      try (Passphrase passphrase = passphrase()) {
        return LocalKeyService.open(ks, passphrase, createKeystore);
      }
    }

    private Passphrase passphrase() {
      if (passphraseEnv != null) {
        return Passphrase.fromEnv(passphraseEnv);
      }
      Path file = passphraseFile != null ? passphraseFile : Path.of(Workspace.DEFAULT_PASSPHRASE);
      if (!Files.exists(file)) {
        throw new IllegalArgumentException(
            "passphrase file " + file + " does not exist (pass --passphrase-env <var> or --passphrase-file <file>)");
      }
      return Passphrase.fromFile(file);
    }

    private ParameterException usage(String message) {
      return new ParameterException(mixee.commandLine(), message);
    }
  }

  @Command(
      name = "create",
      header = "Create master keys.",
      mixinStandardHelpOptions = true,
      description = {
        "Create master keys (version 1). A missing local keystore is created, encrypted",
        "with the passphrase."
      })
  int create(
      @Mixin Target target,
      @Parameters(arity = "1..*", paramLabel = "<key-id>", description = "Key ids, as in the policy's keys block.")
          List<String> ids) {
    PrintWriter out = spec.commandLine().getOut();
    boolean existed = target.remote() || Files.exists(target.keystorePath());
    try (KeyService keys = target.open(true)) {
      if (!existed) {
        out.println("created " + target.describe());
      }
      for (String id : ids) {
        KeyInfo info = keys.createKey(id);
        out.println("created key " + info.id() + " (v" + info.latestVersion() + ") in " + target.describe());
      }
    }
    out.flush();
    return ProtectorCli.OK;
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List master keys and their versions.")
  int list(@Mixin Target target) {
    PrintWriter out = spec.commandLine().getOut();
    List<KeyInfo> infos;
    try (KeyService keys = target.open(false)) {
      infos = new ArrayList<>(keys.listKeys());
    }
    infos.sort(Comparator.comparing(KeyInfo::id));
    out.println(target.describe() + ": " + infos.size() + (infos.size() == 1 ? " key" : " keys"));
    if (!infos.isEmpty()) {
      List<List<String>> rows = new ArrayList<>();
      for (KeyInfo k : infos) {
        rows.add(List.of(
            k.id(),
            k.destroyed() ? "-" : "v" + k.latestVersion(),
            k.destroyed() ? "-" : k.versions().stream().map(v -> "v" + v).collect(Collectors.joining(",")),
            k.createdAt() == null || k.createdAt().equals(Instant.EPOCH) // unknown (e.g. destroyed, remote)
                ? "-"
                : k.createdAt().truncatedTo(ChronoUnit.SECONDS).toString(),
            k.destroyed() ? "destroyed" : "active"));
      }
      out.print(TextTable.plain(List.of("KEY", "LATEST", "VERSIONS", "CREATED", "STATUS"), rows));
    }
    out.flush();
    return ProtectorCli.OK;
  }

  @Command(
      name = "rotate",
      header = "Add a new version to master keys.",
      mixinStandardHelpOptions = true,
      description = {
        "Add a new version to master keys. New files wrap their keys under the new version;",
        "older versions are kept, so existing files stay readable."
      })
  int rotate(
      @Mixin Target target,
      @Parameters(arity = "1..*", paramLabel = "<key-id>", description = "Key ids to rotate.") List<String> ids) {
    PrintWriter out = spec.commandLine().getOut();
    try (KeyService keys = target.open(false)) {
      for (String id : ids) {
        KeyInfo info = keys.rotateKey(id);
        out.println("rotated key " + info.id() + " to v" + info.latestVersion() + " (versions "
            + info.versions().stream().map(v -> "v" + v).collect(Collectors.joining(", "))
            + "); new files use v" + info.latestVersion() + ", existing files still read");
      }
    }
    out.flush();
    return ProtectorCli.OK;
  }

  @Command(
      name = "destroy",
      header = "Destroy a master key and all its versions (crypto-shredding).",
      mixinStandardHelpOptions = true,
      description = {
        "Destroy a master key and all its versions: crypto-shredding. Every column encrypted",
        "under it becomes unreadable for everyone, forever. Asks you to type the key id,",
        "unless --yes; without a terminal it refuses unless --yes."
      })
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
          "refusing to destroy key '" + id + "' without confirmation: no terminal to ask on;"
              + " pass --yes to destroy it non-interactively");
    }
    try (KeyService keys = target.open(false)) {
      KeyInfo info = keys.describeKey(id); // a typo fails here, before anyone is asked anything
      if (!yes) {
        String typed = terminal.readLine(
            "Destroying key '" + info.id() + "' (" + info.versions().size() + " version(s)) in "
                + target.describe() + " makes every column encrypted under it unreadable, forever."
                + System.lineSeparator() + "Type the key id to confirm: ");
        if (typed == null || !typed.strip().equals(id)) {
          throw new IllegalStateException(
              "aborted: the confirmation did not match key id '" + id + "'; nothing was destroyed");
        }
      }
      keys.destroyKey(id);
    }
    out.println("destroyed key " + id + " in " + target.describe()
        + ": data encrypted under it can no longer be decrypted by anyone");
    out.flush();
    return ProtectorCli.OK;
  }
}
