/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.PolicyException;
import io.icebergprotector.policy.PolicyWarning;
import io.icebergprotector.policy.Principal;
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
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code protector policy ...}: work with policy files. */
@Command(
    name = "policy",
    mixinStandardHelpOptions = true,
    header = "Validate a policy, or explain what it grants a user.",
    description = "Policies are HOCON files; conf/policy.conf is a commented example.")
public final class PolicyCommand implements Runnable {
  @Spec CommandSpec spec;

  @picocli.CommandLine.ParentCommand ProtectorCli root;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing subcommand, e.g. 'policy validate <file>'");
  }

  @Command(
      name = "validate",
      header = "Check a policy file, and optionally that it fits table schemas.",
      footerHeading = "%nA --table-schema file:%n",
      footer = "  \"db.customers\" { ssn = string, salary = decimal, address { zip = string } }",
      mixinStandardHelpOptions = true,
      description =
          "Checks syntax, references (roles, keys), masks, and every rule the runtime enforces, "
              + "and reports every error found, each with file:line. With --table-schema, also checks that "
              + "protected columns exist and masks fit their column types. Risky but valid settings (e.g. "
              + "AES_GCM_CTR_V1, whose data pages are not authenticated) are printed as warnings; they do not fail.")
  int validate(
      @Parameters(
              paramLabel = "<file>",
              description = "Policy file (or file:, http(s):, classpath: URL).")
          String file,
      @Option(
              names = "--table-schema",
              paramLabel = "<file>",
              description =
                  "HOCON file mapping table -> column -> type (example below). Nested objects "
                      + "are struct fields. Types: string, binary, boolean, int, long, float, double, decimal, "
                      + "date, timestamp, struct, list, map (and SQL aliases).")
          Path tableSchema,
      @picocli.CommandLine.Mixin OutputFormat format) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<PolicyException> errors = new ArrayList<>();
    Policy policy = null;
    try {
      policy = Policy.load(file);
    } catch (PolicyException e) {
      errors.addAll(e.all());
    }
    Map<String, Map<String, ColumnType>> schemas =
        tableSchema == null ? null : TableSchemas.load(tableSchema);
    if (policy == null) {
      return format.json() ? validationJson(file, null, errors, 0, out) : failed(errors, err);
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
          notes
              .append("  note: ")
              .append(e.getKey())
              .append(" in ")
              .append(tableSchema)
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
          notes
              .append("  note: no schema for ")
              .append(t)
              .append(" in ")
              .append(tableSchema)
              .append(" (not checked)\n");
        }
      }
    }

    if (format.json()) {
      return validationJson(file, policy, errors, columns, out);
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

  private static int validationJson(
      String file, Policy policy, List<PolicyException> errors, int columns, PrintWriter out) {
    List<Object> errorList = new ArrayList<>();
    for (PolicyException e : errors) {
      errorList.add(
          JsonCodec.object(
              "file",
              e.origin(),
              "line",
              e.line() > 0 ? e.line() : null,
              "key",
              e.key().isEmpty() ? null : e.key(),
              "problem",
              e.problem(),
              "message",
              e.getMessage()));
    }
    List<Object> warnings = new ArrayList<>();
    List<Object> entries = new ArrayList<>();
    if (policy != null) {
      policy.warnings().forEach(w -> warnings.add(w.message()));
      for (TablePolicy t : policy.tables().values()) {
        entries.add(entryJson("table", t));
      }
      for (TablePolicy t : policy.paths().values()) {
        entries.add(entryJson("location", t));
      }
    }
    OutputFormat.print(
        out,
        JsonCodec.object(
            "file", file,
            "valid", errors.isEmpty(),
            "errors", errorList,
            "warnings", warnings,
            "tables", policy == null ? 0 : policy.tables().size(),
            "locations", policy == null ? 0 : policy.paths().size(),
            "protected_columns", columns,
            "keys", policy == null ? List.of() : new ArrayList<>(policy.keyIds()),
            "entries", entries));
    return errors.isEmpty() ? ProtectorCli.OK : ProtectorCli.FAILED;
  }

  private static Map<String, Object> entryJson(String kind, TablePolicy t) {
    return JsonCodec.object(
        kind,
        t.name(),
        "columns",
        t.columns().stream()
            .map(c -> JsonCodec.object("column", c.path(), "key", c.keyId()))
            .toList(),
        "footer_key",
        t.footerKeyId(),
        "footer_mode",
        t.footerMode().spec(),
        "algorithm",
        t.algorithm().toString(),
        "writers",
        new ArrayList<>(t.writers()));
  }

  @Command(
      name = "explain",
      header =
          "Show what a policy grants a user: per table and column, clear, masked or denied, and the key.",
      mixinStandardHelpOptions = true,
      description =
          "Decides as the runtime does: the user's roles come from the policy's roles (users and "
              + "groups). Columns the policy does not list are clear.")
  int explain(
      @Parameters(
              paramLabel = "<file>",
              arity = "0..1",
              description = "Policy file (default: " + Workspace.DEFAULT_POLICY + ").")
          String file,
      @Option(
              names = {"-u", "--user"},
              required = true,
              paramLabel = "<user>",
              description = "The principal.")
          String user,
      @Option(
              names = {"-g", "--groups"},
              paramLabel = "<g1,g2>",
              description = "The principal's groups, comma separated.")
          String groups,
      @Option(
              names = {"-t", "--table"},
              paramLabel = "<db.table>",
              description = "Only this table (or location).")
          String table,
      @picocli.CommandLine.Mixin OutputFormat format) {
    Policy policy = Policy.load(file != null ? file : Workspace.defaultPolicy().toString());
    Principal who = principal(user, groups);
    List<TablePolicy> entries = Explain.entries(policy, table);
    PrintWriter out = spec.commandLine().getOut();
    if (format.json()) {
      OutputFormat.print(out, Explain.json(policy, who, entries));
    } else {
      out.print(Explain.text(policy, who, entries));
      out.flush();
    }
    return ProtectorCli.OK;
  }

  static Principal principal(String user, String groups) {
    List<String> g =
        groups == null || groups.isBlank()
            ? List.of()
            : java.util.Arrays.stream(groups.split(","))
                .map(String::strip)
                .filter(x -> !x.isEmpty())
                .toList();
    return Principal.of(user, g);
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
    String cols =
        t.columns().isEmpty()
            ? "no protected columns"
            : t.columns().size()
                + (t.columns().size() == 1 ? " column (" : " columns (")
                + t.columns().stream().map(ColumnPolicy::path).collect(Collectors.joining(", "))
                + ")";
    String keys = t.columnKeyIds().isEmpty() ? "" : ", keys " + String.join(", ", t.columnKeyIds());
    String writers = t.writers().isEmpty() ? "nobody" : String.join(", ", t.writers());
    return t.name()
        + ": "
        + cols
        + keys
        + ", footer "
        + t.footerKeyId()
        + " ("
        + t.footerMode().spec()
        + "), "
        + t.algorithm()
        + ", writers: "
        + writers;
  }
}
