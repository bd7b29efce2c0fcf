/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Every field of the policy file, where it may appear, its default and its documentation. {@link
 * PolicyParser} accepts exactly these names at each level (any other is an error), and the policy
 * reference ({@code docs/reference/policy-fields.md}) is generated from this list, so the two
 * cannot disagree.
 */
public final class PolicyFields {
  /** Where in the policy a field appears. */
  public enum Scope {
    PROTECTOR("`protector`"),
    ROLE("`protector.roles.<role>`"),
    KEY("`protector.keys.<key>`"),
    RETIRED_KEY("`protector.retired-keys.<key>`"),
    TABLE("table or path"),
    COLUMN("column");

    private final String shown;

    Scope(String shown) {
      this.shown = shown;
    }

    /** How the reference names the place, e.g. {@code protector.roles.<role>}. */
    public String shown() {
      return shown;
    }
  }

  /**
   * One field.
   *
   * @param scope where it appears
   * @param name its name
   * @param defaultValue its default as the reference shows it ("" when it has none)
   * @param doc what it means, in Markdown; links are relative to {@code docs/reference/}
   */
  public record Field(Scope scope, String name, String defaultValue, String doc) {}

  private static final String DESCRIPTION = "free text";

  /** Every field, in the order of the reference (within a scope: the parser's order). */
  public static final List<Field> ALL =
      List.of(
          new Field(Scope.PROTECTOR, "roles", "", "role name -> who holds it"),
          new Field(
              Scope.PROTECTOR,
              "keys",
              "",
              "master key ids, `keys { pii {}, fin {} }` or `keys = [pii, fin]`; an id is 1-128"
                  + " letters, digits, `.`, `_` or `-`, starting with a letter or digit"),
          new Field(
              Scope.PROTECTOR,
              "retired-keys",
              "",
              "keys that protect only data written before a policy change: `retired-keys { pii2 {"
                  + " decrypt = [admin] } }`; each must be in `keys` and protect no column and no"
                  + " footer"),
          new Field(
              Scope.PROTECTOR,
              "tables",
              "",
              "`\"namespace.table\" { ... }`, matched case-insensitively"),
          new Field(
              Scope.PROTECTOR,
              "paths",
              "",
              "`\"scheme://bucket/prefix/\" { ... }`: same fields as a table, for files written"
                  + " outside a catalog; the longest prefix wins; prefixes are compared normalized"
                  + " (two spellings of one location are an error)"),
          new Field(Scope.ROLE, "users", "`[]`", "user names holding the role"),
          new Field(
              Scope.ROLE,
              "groups",
              "`[]`",
              "groups holding the role (a role needs a user or a group)"),
          new Field(Scope.ROLE, "description", "", DESCRIPTION),
          new Field(Scope.KEY, "description", "", DESCRIPTION),
          new Field(
              Scope.RETIRED_KEY,
              "decrypt",
              "`[]`",
              "roles that may still unwrap the key (to read or decrypt-rewrite old files); nobody"
                  + " wraps with it"),
          new Field(Scope.RETIRED_KEY, "description", "", DESCRIPTION),
          new Field(
              Scope.TABLE,
              "footer-key",
              "(required)",
              "master key of the footer; must not protect any column"),
          new Field(
              Scope.TABLE,
              "footer-mode",
              "`encrypted`",
              "`encrypted`, or `plaintext` (readable, signed)"),
          new Field(
              Scope.TABLE,
              "algorithm",
              "`AES_GCM_V1`",
              "or `AES_GCM_CTR_V1` (data pages unauthenticated: storage writers can alter values"
                  + " undetectably)"),
          new Field(Scope.TABLE, "writers", "`[]`", "roles allowed to write (to wrap its keys)"),
          new Field(
              Scope.TABLE,
              "declassify",
              "`[]`",
              "roles that may store this entry's protected values where they are not protected,"
                  + " in a session that sets `spark.protector.declassify=true`; logged, and"
                  + " audited by the key server (see [Data flow](../security/data-flow.md))"),
          new Field(
              Scope.TABLE,
              "strict",
              "`false`",
              "`true`: writes may hold only protected columns and `plain-columns`; protected names"
                  + " nested in structs, lists or map values are refused (checked on every write to"
                  + " a strict path or Iceberg table)"),
          new Field(
              Scope.TABLE,
              "plain-columns",
              "`[]`",
              "with `strict = true`: the columns stored in plaintext on purpose"),
          new Field(
              Scope.TABLE,
              "columns",
              "",
              "the protected columns: `ssn { ... }`, `\"address.zip\" { ... }` or `address { zip {"
                  + " ... } }`"),
          new Field(Scope.TABLE, "description", "", DESCRIPTION),
          new Field(
              Scope.COLUMN, "key", "(required)", "master key of the column; never a footer key"),
          new Field(
              Scope.COLUMN,
              "method",
              "`pme`",
              "`pme` (column encryption), `deterministic` (AES-SIV tokens, string and binary"
                  + " columns), `\"fpe(alphabet = digits|alnum|lower|upper, keep = \\\"-\\\","
                  + " min-length = N)\"` (FF1 over strings, the `keep` characters stay in place)"
                  + " or `\"fpe(width = N)\"` (FF1 over an int or long below 10^N, sign kept); a"
                  + " format-preserving domain below 1,000,000 values is an error, and"
                  + " `--table-schema` checks that the method fits the column type. See"
                  + " [Tokens](../spark/tokens.md)"),
          new Field(
              Scope.COLUMN,
              "domain",
              "`<table>.<column>`",
              "tokenized columns: the token domain. Columns with the same key and domain give"
                  + " equal tokens for equal values, in any table, so tables join on them; one"
                  + " domain has one key and one method in a policy"),
          new Field(
              Scope.COLUMN,
              "pme",
              "`true`",
              "tokenized columns: `false` stores the tokens as a plain Parquet column, which"
                  + " engines without any key read"),
          new Field(
              Scope.COLUMN,
              "clear",
              "`[]`",
              "roles that read plaintext (of a tokenized column: the detokenized value)"),
          new Field(
              Scope.COLUMN,
              "token",
              "`[]`",
              "tokenized columns: roles that read the stored token, without the token key"),
          new Field(
              Scope.COLUMN,
              "masked",
              "`{}`",
              "`role = mask`: `null`, `redact`, `\"partial(keep_last=N)\"`, `hash`, `year`"),
          new Field(
              Scope.COLUMN,
              "on-denied",
              "`null`",
              "for every other role: `null` (reads as NULL) or `fail` (the query fails)"),
          new Field(Scope.COLUMN, "description", "", DESCRIPTION));

  private PolicyFields() {}

  /** The names a policy may use at {@code scope}, in order: what the parser accepts there. */
  public static List<String> names(Scope scope) {
    return ALL.stream()
        .filter(f -> f.scope() == scope)
        .map(Field::name)
        .collect(Collectors.toUnmodifiableList());
  }
}
