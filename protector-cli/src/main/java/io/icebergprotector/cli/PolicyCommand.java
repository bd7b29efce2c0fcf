package io.icebergprotector.cli;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.PolicyException;
import io.icebergprotector.policy.PolicyWarning;
import io.icebergprotector.policy.TablePolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code protector policy ...}: work with policy files. */
@Command(
    name = "policy",
    mixinStandardHelpOptions = true,
    header = "Validate policy files.",
    description = "Policies are HOCON files; conf/policy.conf is a commented example.")
public final class PolicyCommand implements Runnable {
  @Spec CommandSpec spec;

  @picocli.CommandLine.ParentCommand ProtectorCli root;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing subcommand, e.g. 'policy validate <file>'");
  }

  @Command(
      name = "validate",
      header = "Check a policy file, and optionally that it fits table schemas.",
      footerHeading = "%nA --table-schema file:%n",
      footer = "  \"db.customers\" { ssn = string, salary = decimal, address { zip = string } }",
      mixinStandardHelpOptions = true,
      description = "Checks syntax, references (roles, keys), masks, and every rule the runtime enforces, "
          + "and reports every error found, each with file:line. With --table-schema, also checks that "
          + "protected columns exist and masks fit their column types. Risky but valid settings (e.g. "
          + "AES_GCM_CTR_V1, whose data pages are not authenticated) are printed as warnings; they do not fail.")
  int validate(
      @Parameters(paramLabel = "<file>", description = "Policy file (or file:, http(s):, classpath: URL).")
          String file,
      @Option(
              names = "--table-schema",
              paramLabel = "<file>",
              description = "HOCON file mapping table -> column -> type (example below). Nested objects "
                  + "are struct fields. Types: string, binary, boolean, int, long, float, double, decimal, "
                  + "date, timestamp, struct, list, map (and SQL aliases).")
          Path tableSchema) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<PolicyException> errors = new ArrayList<>();
    Policy policy = null;
    try {
      policy = Policy.load(file);
    } catch (PolicyException e) {
      errors.addAll(e.all());
    }
    Map<String, Map<String, ColumnType>> schemas = tableSchema == null ? null : TableSchemas.load(tableSchema);
    if (policy == null) {
      return failed(errors, err);
    }

    int columns = 0;
    for (TablePolicy t : policy.tables().values()) {
      columns += t.columns().size();
    }
    for (TablePolicy t : policy.paths().values()) {
      columns += t.columns().size();
    }

    StringBuilder notes = new StringBuilder();
    if (schemas != null) {
      for (Map.Entry<String, Map<String, ColumnType>> e : schemas.entrySet()) {
        if (policy.table(e.getKey()).isEmpty()) {
          notes.append("  note: ").append(e.getKey()).append(" in ").append(tableSchema)
              .append(" is not in the policy (unprotected)\n");
        } else {
          try {
            policy.validateSchema(e.getKey(), e.getValue());
          } catch (PolicyException ex) {
            errors.add(ex);
          }
        }
      }
      for (String t : policy.tables().keySet()) {
        if (!TableSchemas.containsTable(schemas, t)) {
          notes.append("  note: no schema for ").append(t).append(" in ").append(tableSchema)
              .append(" (not checked)\n");
        }
      }
    }

    if (!errors.isEmpty()) {
      return failed(errors, err);
    }
    out.printf("OK: %s: %s%n", file, String.join(", ", counts(policy, columns)));
    for (TablePolicy t : policy.tables().values()) {
      out.println("  table " + summary(t));
    }
    for (TablePolicy t : policy.paths().values()) {
      out.println("  path  " + summary(t));
    }
    if (schemas != null) {
      out.println("  schema: " + tableSchema + ": columns and masks fit");
    }
    out.print(notes);
    out.flush();
    for (PolicyWarning w : policy.warnings()) {
      err.println("warning: " + w.message());
    }
    err.flush();
    return ProtectorCli.OK;
  }

  /** Each error on its own line; the stack trace of the first with --verbose. */
  private int failed(List<PolicyException> errors, PrintWriter err) {
    for (PolicyException e : errors) {
      err.println("error: " + e.getMessage().replaceAll("\\s*\\R\\s*", " "));
    }
    if (errors.size() > 1) {
      err.println(errors.size() + " errors");
    }
    if (root != null && root.verbose) {
      errors.get(0).printStackTrace(err);
    }
    err.flush();
    return ProtectorCli.FAILED;
  }

  private static List<String> counts(Policy policy, int columns) {
    List<String> parts = new ArrayList<>();
    if (!policy.tables().isEmpty()) {
      parts.add(plural(policy.tables().size(), "table"));
    }
    if (!policy.paths().isEmpty()) {
      parts.add(plural(policy.paths().size(), "location"));
    }
    parts.add(plural(columns, "protected column"));
    parts.add(plural(policy.keyIds().size(), "key"));
    return parts;
  }

  private static String plural(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static String summary(TablePolicy t) {
    String cols = t.columns().isEmpty()
        ? "no protected columns"
        : t.columns().size() + (t.columns().size() == 1 ? " column (" : " columns (")
            + t.columns().stream().map(ColumnPolicy::path).collect(Collectors.joining(", ")) + ")";
    String keys = t.columnKeyIds().isEmpty() ? "" : ", keys " + String.join(", ", t.columnKeyIds());
    String writers = t.writers().isEmpty() ? "nobody" : String.join(", ", t.writers());
    return t.name() + ": " + cols + keys + ", footer " + t.footerKeyId() + " ("
        + t.footerMode().spec() + "), " + t.algorithm() + ", writers: " + writers;
  }
}
