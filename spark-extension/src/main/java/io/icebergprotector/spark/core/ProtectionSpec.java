/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.FooterMode;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Everything a task needs to protect one table for one principal: the protected columns resolved to
 * Iceberg field ids, the footer settings, the key-service settings and the principal. It is built
 * on the driver and shipped inside each scan or write.
 */
public final class ProtectionSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String tableName;
  private final KeyScope keyScope;
  private final Policy policy;
  private final String footerKeyId;
  private final boolean plaintextFooter;
  private final String algorithm;
  private final Map<Integer, ColumnProtection> columns;
  private final List<String> unresolvedColumns;
  private final Map<String, String> renamedColumns;
  private final Map<String, RecordedColumns.Entry> droppedColumns;
  private final Set<Integer> retiredFieldIds;
  private final String writeGeneration;
  private final PrincipalBinding binding;

  private ProtectionSpec(
      String tableName,
      KeyScope keyScope,
      Policy policy,
      TablePolicy table,
      Map<Integer, ColumnProtection> columns,
      List<String> unresolvedColumns,
      Map<String, String> renamedColumns,
      Map<String, RecordedColumns.Entry> droppedColumns,
      Set<Integer> retiredFieldIds,
      String writeGeneration) {
    this.binding = null;
    this.tableName = tableName;
    this.keyScope = keyScope;
    this.policy = policy;
    this.footerKeyId = table.footerKeyId();
    this.plaintextFooter = table.footerMode() == FooterMode.PLAINTEXT;
    this.algorithm = table.algorithm().name();
    this.columns = Collections.unmodifiableMap(columns);
    this.unresolvedColumns = List.copyOf(unresolvedColumns);
    this.renamedColumns = Collections.unmodifiableMap(renamedColumns);
    this.droppedColumns = Collections.unmodifiableMap(droppedColumns);
    this.retiredFieldIds = Collections.unmodifiableSet(retiredFieldIds);
    this.writeGeneration = writeGeneration;
  }

  private ProtectionSpec(
      ProtectionSpec base,
      Map<Integer, ColumnProtection> columns,
      Set<Integer> retiredFieldIds,
      String writeGeneration) {
    this(base, columns, retiredFieldIds, writeGeneration, base.binding);
  }

  private ProtectionSpec(
      ProtectionSpec base,
      Map<Integer, ColumnProtection> columns,
      Set<Integer> retiredFieldIds,
      String writeGeneration,
      PrincipalBinding binding) {
    this.binding = binding;
    this.tableName = base.tableName;
    this.keyScope = base.keyScope;
    this.policy = base.policy;
    this.footerKeyId = base.footerKeyId;
    this.plaintextFooter = base.plaintextFooter;
    this.algorithm = base.algorithm;
    this.columns = Collections.unmodifiableMap(columns);
    this.unresolvedColumns = base.unresolvedColumns;
    this.renamedColumns = base.renamedColumns;
    this.droppedColumns = base.droppedColumns;
    this.retiredFieldIds = Collections.unmodifiableSet(retiredFieldIds);
    this.writeGeneration = writeGeneration;
  }

  /** Resolves the table's policy columns by name against its schema. */
  public static ProtectionSpec resolve(
      ProtectorContext context, TablePolicy table, Schema schema, Principal principal) {
    return resolve(context, table, schema, principal, RecordedColumns.none());
  }

  /**
   * Resolves the table's policy columns against its schema. A policy column is matched by name;
   * failing that, by the field id recorded at the last protected write, so a renamed column keeps
   * its protection. Recorded columns that the policy no longer protects but the schema still has
   * are "retired": files may hold them encrypted, so they read as denied and writes are refused
   * until a decrypt-rewrite.
   */
  public static ProtectionSpec resolve(
      ProtectorContext context,
      TablePolicy table,
      Schema schema,
      Principal principal,
      RecordedColumns recorded) {
    TokenizedColumns.refuseNested(table);
    Policy policy = context.policy();
    Set<String> roles = policy.rolesOf(principal);
    Map<Integer, ColumnProtection> resolved = new LinkedHashMap<>();
    List<String> unresolved = new ArrayList<>();
    Map<String, String> renamed = new LinkedHashMap<>();
    Map<String, RecordedColumns.Entry> dropped = new LinkedHashMap<>();
    for (ColumnPolicy column : table.columns()) {
      Types.NestedField field = schema.caseInsensitiveFindField(column.path());
      RecordedColumns.Entry entry = recorded.entries().get(column.path());
      if (field == null && entry != null) {
        field = schema.findField(entry.fieldId());
        if (field == null) {
          dropped.put(column.path(), entry); // nothing left to protect; keep the record
          continue;
        }
        renamed.put(column.path(), schema.findColumnName(field.fieldId()));
      }
      if (field == null) {
        unresolved.add(column.path());
        continue;
      }
      Access access = column.accessFor(roles);
      String mask = access.level() == AccessLevel.MASKED ? access.mask().spec() : null;
      String currentPath = schema.findColumnName(field.fieldId());
      ColumnProtection protection =
          new ColumnProtection(
              field.fieldId(),
              currentPath,
              column.path(),
              column.keyId(),
              access.level(),
              mask,
              column.onDenied(),
              column.tokenized() ? column.method().spec() : null,
              column.domain(),
              column.pme());
      if (column.tokenized()
          && access.level() == AccessLevel.MASKED
          && context.kms().tokenMode() == TokenMode.LOCAL) {
        protection = protection.withMaskOnlyOnServer();
        UnservedMasks.warnOnce(table.name(), protection, principal);
      }
      resolved.put(field.fieldId(), protection);
    }
    Set<Integer> retired = new LinkedHashSet<>();
    for (Map.Entry<String, RecordedColumns.Entry> entry : recorded.entries().entrySet()) {
      int id = entry.getValue().fieldId();
      if (!resolved.containsKey(id) && schema.findField(id) != null) {
        retired.add(id);
        resolved.put(
            id,
            new ColumnProtection(
                id,
                schema.findColumnName(id),
                entry.getKey(),
                entry.getValue().keyId(),
                AccessLevel.DENIED,
                null,
                io.icebergprotector.policy.OnDenied.NULL));
      }
    }
    return new ProtectionSpec(
        table.name(),
        context.keyScope(principal, policy),
        policy,
        table,
        resolved,
        unresolved,
        renamed,
        dropped,
        retired,
        "");
  }

  /**
   * This spec for new files written after the given key versions were current: parquet caches
   * key-encryption keys per access token, so a new generation makes new writes use rotated keys.
   */
  public ProtectionSpec withWriteGeneration(String generation) {
    return new ProtectionSpec(this, columns, retiredFieldIds, generation == null ? "" : generation);
  }

  /** This spec, run by tasks that check their session still acts as the spec's principal. */
  public ProtectionSpec withBinding(PrincipalBinding newBinding) {
    return new ProtectionSpec(this, columns, retiredFieldIds, writeGeneration, newBinding);
  }

  /** How tasks recognize this spec's principal in their session, or null (not bound). */
  public PrincipalBinding binding() {
    return binding;
  }

  /** Refuses the running task when its session acts as another principal than this spec's. */
  public void checkTaskPrincipal() {
    if (binding != null) {
      binding.checkTask();
    }
  }

  /**
   * Columns whose master key was destroyed read as NULL when their policy says {@code on-denied =
   * null}; otherwise a scan that projects them fails, naming the key.
   */
  public ProtectionSpec withDestroyedKeys(Set<String> destroyedKeys) {
    if (destroyedKeys.isEmpty()) {
      return this;
    }
    if (destroyedKeys.contains(footerKeyId)) {
      throw new ProtectorException(
          String.format(
              "Key '%s' was destroyed (crypto-shredded): it is the footer key of %s, whose files"
                  + " can no longer be read",
              footerKeyId, tableName));
    }
    Map<Integer, ColumnProtection> changed = new LinkedHashMap<>();
    for (ColumnProtection column : columns.values()) {
      if (destroyedKeys.contains(column.keyId()) && column.readable()) {
        // read as NULL, or fail once projected when the policy says on-denied = fail
        changed.put(column.fieldId(), column.withDestroyedKey());
      } else {
        changed.put(column.fieldId(), column);
      }
    }
    return new ProtectionSpec(this, changed, retiredFieldIds, writeGeneration);
  }

  /**
   * For a forced decrypt-rewrite: retired columns become readable in clear (the principal must be
   * allowed to unwrap their keys) so they can be written back unencrypted.
   */
  public ProtectionSpec forDecryptRead() {
    Set<String> unwrappable = policy().unwrappableKeys(principal());
    Map<Integer, ColumnProtection> changed = new LinkedHashMap<>(columns);
    for (int id : retiredFieldIds) {
      ColumnProtection column = columns.get(id);
      if (!unwrappable.contains(column.keyId())) {
        throw new ProtectorException(retiredKeyRefusal(column));
      }
      changed.put(id, column.withAccess(AccessLevel.CLEAR, null, column.onDenied()));
    }
    return new ProtectionSpec(this, changed, retiredFieldIds, writeGeneration);
  }

  // The way out depends on the policy: a key no column uses any more needs a retired-keys entry
  // (without one nobody may unwrap it), an entry that lists none of the principal's roles needs
  // one.
  private String retiredKeyRefusal(ColumnProtection column) {
    String keyId = column.keyId();
    Set<String> roles = policy().rolesOf(principal());
    String role = roles.isEmpty() ? "<role>" : roles.iterator().next();
    Set<String> decrypters = policy().retiredKeys().get(keyId);
    String cause;
    if (decrypters != null) {
      cause =
          String.format(
              "retired-keys lists %s for key '%s', and '%s' holds none of them (its roles: %s);"
                  + " add one of its roles: retired-keys { %s { decrypt = [%s] } }",
              decrypters,
              keyId,
              principal().user(),
              roles,
              keyId,
              String.join(", ", new TreeSet<>(union(decrypters, role))));
    } else if (protectsAColumn(keyId)) {
      cause =
          String.format(
              "key '%s' still protects other columns, and '%s' reads none of them; read the"
                  + " column as a principal with a role that reads a column under '%s'",
              keyId, principal().user(), keyId);
    } else {
      cause =
          String.format(
              "no column uses key '%s' any more, so only a retired-keys entry lets anyone unwrap"
                  + " it; add one to the policy: retired-keys { %s { decrypt = [%s] } }",
              keyId, keyId, role);
    }
    return String.format(
        "Principal '%s' may not decrypt retired column %s of %s: it cannot unwrap key '%s': %s",
        principal().user(), column.path(), tableName, keyId, cause);
  }

  private boolean protectsAColumn(String keyId) {
    return java.util.stream.Stream.concat(
            policy().tables().values().stream(), policy().paths().values().stream())
        .flatMap(entry -> entry.columns().stream())
        .anyMatch(column -> column.keyId().equals(keyId));
  }

  private static Set<String> union(Set<String> set, String more) {
    Set<String> out = new LinkedHashSet<>(set);
    out.add(more);
    return out;
  }

  /** For a forced decrypt-rewrite: retired columns are written in plaintext. */
  public ProtectionSpec withoutRetired() {
    Map<Integer, ColumnProtection> kept = new LinkedHashMap<>(columns);
    retiredFieldIds.forEach(kept::remove);
    return new ProtectionSpec(this, kept, Set.of(), writeGeneration);
  }

  /**
   * Where this spec's tokenized columns are tokenized and detokenized: the catalog's {@code
   * protector.kms.token-mode}, carried to the executors in the spec's key scope.
   *
   * <ul>
   *   <li>{@link TokenMode#LOCAL}: each task obtains the derived token key from the key service and
   *       tokenizes in-process.
   *   <li>{@link TokenMode#SERVER}: the token key never leaves the key server. Writers send each
   *       batch of a column (1,024 rows) to its {@code encode} endpoint in one request; readers
   *       send each columnar batch, and the row reader batches of up to 1,024 rows it reads ahead,
   *       to {@code decode}, one request per tokenized column and batch, naming the table column so
   *       the server answers the principal's view of it: clear values for a clear reader, values
   *       masked by the server for a masked reader (the clear value never reaches the executor).
   *       {@code token} readers read the stored token and denied readers get {@code on-denied}:
   *       neither calls the server.
   * </ul>
   */
  public TokenMode tokenMode() {
    return keyScope.kms().tokenMode();
  }

  /**
   * Whether the key server masks {@code column} for this spec's principal (server token mode, a
   * masked reader of a tokenized column): the reader's own masker then leaves it alone.
   */
  public boolean serverMasks(ColumnProtection column) {
    return tokenMode() == TokenMode.SERVER
        && column.tokenized()
        && column.level() == AccessLevel.MASKED;
  }

  /** The tokenized columns (deterministic or fpe), by field id. */
  public Map<Integer, ColumnProtection> tokenizedColumns() {
    Map<Integer, ColumnProtection> out = new LinkedHashMap<>();
    for (ColumnProtection column : columns.values()) {
      if (column.tokenized() && !retiredFieldIds.contains(column.fieldId())) {
        out.put(column.fieldId(), column);
      }
    }
    return out;
  }

  /** Policy column paths found only through their recorded field id, with their current names. */
  public Map<String, String> renamedColumns() {
    return renamedColumns;
  }

  /** Policy columns recorded for this table whose field was dropped since. */
  public Map<String, RecordedColumns.Entry> droppedColumns() {
    return droppedColumns;
  }

  /** Recorded columns that the policy no longer protects but the table still has. */
  public Set<Integer> retiredFieldIds() {
    return retiredFieldIds;
  }

  public String tableName() {
    return tableName;
  }

  public String policyOrigin() {
    return policy.origin();
  }

  /** The policy this spec was resolved from. */
  public Policy policy() {
    return policy;
  }

  /** The principal's key scope: which key service, credential and policy its keys come from. */
  public KeyScope keyScope() {
    return keyScope;
  }

  /** What distinguishes Parquet key caches of this spec's writes after a key rotation, or "". */
  public String writeGeneration() {
    return writeGeneration;
  }

  /** Master keys a write needs: every column key and the footer key. */
  public Set<String> writeKeyIds() {
    Set<String> keys = new LinkedHashSet<>();
    keys.add(footerKeyId);
    columns.values().stream()
        .filter(c -> !retiredFieldIds.contains(c.fieldId()))
        .forEach(c -> keys.add(c.keyId()));
    return keys;
  }

  public Principal principal() {
    return keyScope.principal();
  }

  public KmsSettings kms() {
    return keyScope.kms();
  }

  public String footerKeyId() {
    return footerKeyId;
  }

  public boolean plaintextFooter() {
    return plaintextFooter;
  }

  public String algorithm() {
    return algorithm;
  }

  /** Protected columns by field id. */
  public Map<Integer, ColumnProtection> columns() {
    return columns;
  }

  /** Policy columns that the table schema does not have. */
  public List<String> unresolvedColumns() {
    return unresolvedColumns;
  }

  /** Field ids of every protected column and of every field nested below one. */
  public Set<Integer> protectedFieldIds(Schema schema) {
    Set<Integer> ids = new LinkedHashSet<>();
    for (int id : columns.keySet()) {
      ids.add(id);
      Types.NestedField field = schema.findField(id);
      if (field != null && field.type().isNestedType()) {
        addDescendants(field.type().asNestedType(), ids);
      }
    }
    return ids;
  }

  private static void addDescendants(
      org.apache.iceberg.types.Type.NestedType type, Set<Integer> ids) {
    for (Types.NestedField child : type.fields()) {
      ids.add(child.fieldId());
      if (child.type().isNestedType()) {
        addDescendants(child.type().asNestedType(), ids);
      }
    }
  }

  /**
   * Refuses a write whose policy columns are missing from the table: they would go out in clear.
   */
  public void checkWritable(Schema schema) {
    if (!retiredFieldIds.isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Cannot write to %s: column(s) %s are no longer protected by the policy %s, but files"
                  + " still hold them encrypted. Restore their protection in the policy, or remove it"
                  + " for good with a forced decrypt-rewrite:"
                  + " CALL <catalog>.system.rewrite_protected(table => '%s', decrypt => true)",
              tableName,
              retiredFieldIds.stream()
                  .map(id -> columns.get(id).path())
                  .collect(Collectors.toList()),
              policyOrigin(),
              tableName));
    }
    if (!unresolvedColumns.isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Cannot write to %s: the policy %s protects column(s) %s that the table does not have"
                  + " (table columns: %s). Fix the policy or the table before writing.",
              tableName,
              policyOrigin(),
              unresolvedColumns,
              schema.columns().stream().map(Types.NestedField::name).collect(Collectors.toList())));
    }
  }

  /**
   * Refuses a write whose schema a strict policy entry does not allow. Protected columns are this
   * spec's, which follow renames by field id. (Kept here, not in {@link StrictSchema}, which the
   * plain-Parquet path loads without Iceberg.)
   */
  public void checkStrict(org.apache.spark.sql.types.StructType schema) {
    java.util.Optional<TablePolicy> entry = policy.table(tableName);
    if (entry.isEmpty() || !entry.get().strict()) {
      return;
    }
    List<String> protectedPaths = new ArrayList<>();
    for (ColumnProtection column : columns.values()) {
      protectedPaths.add(column.path().toLowerCase(java.util.Locale.ROOT));
    }
    StrictSchema.check(
        entry.get(),
        schema,
        path -> protectedPaths.stream().anyMatch(p -> path.equals(p) || path.startsWith(p + ".")),
        "table " + tableName,
        policyOrigin());
  }

  /** Refuses a partition spec with a protected source column: partition values are plaintext. */
  public void checkPartitioning(PartitionSpec spec, Schema schema) {
    Set<Integer> protectedIds = protectedFieldIds(schema);
    for (PartitionField field : spec.fields()) {
      if (protectedIds.contains(field.sourceId())) {
        throw new ProtectorException(
            String.format(
                "Table %s may not be partitioned by protected column '%s' (partition field '%s'):"
                    + " partition values are stored in plaintext in Iceberg metadata",
                tableName, schema.findColumnName(field.sourceId()), field.name()));
      }
    }
  }

  @Override
  public String toString() {
    return "ProtectionSpec{table="
        + tableName
        + ", principal="
        + principal()
        + ", columns="
        + columns.values()
        + "}";
  }
}
