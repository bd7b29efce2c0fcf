package io.icebergprotector.cli;

import io.icebergprotector.kms.KmsSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code protector inspect}: the encryption layout of Parquet files, from their footers. */
@Command(
    name = "inspect",
    header = "Show how Parquet files are encrypted: footer, columns, master key ids.",
    mixinStandardHelpOptions = true,
    description = "Prints the footer mode, the algorithm, and for each column whether it is "
        + "encrypted, under which master key id and version, and its key material (wrapped keys "
        + "abbreviated). Needs no keys. An encrypted footer hides the column list; with --keystore, "
        + "--pkcs11-library or --url (key server) the footer key is unwrapped (as --user) to list the columns too. Column keys "
        + "are never requested. Files of protected tables are bound to their table: inside a table "
        + "directory the table's UUID is found; elsewhere give it with --table-uuid.")
public final class InspectCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "<parquet-file>", description = "Parquet files (local paths).")
  List<Path> files;

  @Mixin KeyBackendOptions.Keystore keystore;
  @Mixin KeyBackendOptions.Pkcs11 pkcs11;
  @Mixin KeyBackendOptions.Server server;
  @Mixin OutputFormat format;

  @Option(names = "--policy", paramLabel = "<file>", description = "Policy deciding which keys --user may unwrap (default: " + Workspace.DEFAULT_POLICY + ").")
  Path policy;

  @Option(names = "--user", paramLabel = "<user>", description = "Principal unwrapping the footer key (default: the OS user). Every reader of a table gets its footer key.")
  String user;

  @Option(names = "--table-uuid", paramLabel = "<uuid>", description = "UUID of the table a bound file belongs to (default: of the table directory the file lies in).")
  java.util.UUID tableUuid;

  @Override
  public Integer call() {
    boolean withKeys = keystore.keystore != null || pkcs11.given() || server.given();
    if (!withKeys && (keystore.given() || policy != null || user != null || tableUuid != null)) {
      throw new ParameterException(spec.commandLine(), "--passphrase-*, --policy, --user and"
          + " --table-uuid need --keystore, --pkcs11-library or --url (without keys, inspect reads only"
          + " what the footer shows)");
    }
    KeyBackendOptions.validate(spec, keystore, pkcs11, server);
    HeavyClasspath.require("inspect", HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    Inspector.Keys keys = null;
    if (withKeys) {
      KmsSettings kms = KeyBackendOptions.settings(spec, keystore, pkcs11, server);
      if (!pkcs11.given() && !server.given()) {
        keystore.requirePassphraseFile();
      }
      keys = new Inspector.Keys(
          kms,
          policy != null ? policy : Workspace.defaultPolicy(),
          user != null ? user : System.getProperty("user.name"),
          tableUuid);
    }
    return Inspector.run(files, keys, spec.commandLine().getOut(), format.json());
  }
}
