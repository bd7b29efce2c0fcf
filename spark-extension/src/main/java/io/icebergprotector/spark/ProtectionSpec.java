package io.icebergprotector.spark;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.FooterMode;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.crypto.KmsSettings;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Everything a task needs to protect one table for one principal: the protected columns resolved
 * to Iceberg field ids, the footer settings, the key-service settings and the principal. It is
 * built on the driver and shipped inside each scan or write.
 */
public final class ProtectionSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String tableName;
  private final String policyText;
  private final String policyOrigin;
  private final String user;
  private final List<String> groups;
  private final KmsSettings kms;
  private final String footerKeyId;
  private final boolean plaintextFooter;
  private final String algorithm;
  private final Map<Integer, ColumnProtection> columns;
  private final List<String> unresolvedColumns;
  private transient Policy policy;

  private ProtectionSpec(
      String tableName,
      String policyText,
      String policyOrigin,
      Principal principal,
      KmsSettings kms,
      TablePolicy table,
      Map<Integer, ColumnProtection> columns,
      List<String> unresolvedColumns) {
    this.tableName = tableName;
    this.policyText = policyText;
    this.policyOrigin = policyOrigin;
    this.user = principal.user();
    this.groups = List.copyOf(principal.groups());
    this.kms = kms;
    this.footerKeyId = table.footerKeyId();
    this.plaintextFooter = table.footerMode() == FooterMode.PLAINTEXT;
    this.algorithm = table.algorithm().name();
    this.columns = Collections.unmodifiableMap(columns);
    this.unresolvedColumns = List.copyOf(unresolvedColumns);
  }

  /**
   * Resolves the table's policy columns against its current schema. Columns are matched by name
   * once, then tracked by field id, so a later rename keeps its protection.
   */
  public static ProtectionSpec resolve(
      ProtectorContext context, TablePolicy table, Schema schema, Principal principal) {
    Policy policy = context.policy();
    Set<String> roles = policy.rolesOf(principal);
    Map<Integer, ColumnProtection> resolved = new LinkedHashMap<>();
    List<String> unresolved = new ArrayList<>();
    for (ColumnPolicy column : table.columns()) {
      Types.NestedField field = schema.caseInsensitiveFindField(column.path());
      if (field == null) {
        unresolved.add(column.path());
        continue;
      }
      Access access = column.accessFor(roles);
      String mask = access.level() == AccessLevel.MASKED ? access.mask().spec() : null;
      String currentPath = schema.findColumnName(field.fieldId());
      resolved.put(
          field.fieldId(),
          new ColumnProtection(
              field.fieldId(), currentPath, column.keyId(), access.level(), mask,
              access.onDenied()));
    }
    return new ProtectionSpec(
        table.name(),
        context.policyText(),
        policy.origin(),
        principal,
        context.kms(),
        table,
        resolved,
        unresolved);
  }

  public String tableName() {
    return tableName;
  }

  public String policyText() {
    return policyText;
  }

  public String policyOrigin() {
    return policyOrigin;
  }

  /** The policy this spec was resolved from (parsed again after deserialization). */
  public Policy policy() {
    if (policy == null) {
      policy = Policy.parse(policyText, policyOrigin);
    }
    return policy;
  }

  /** Master keys a write needs: every column key and the footer key. */
  public Set<String> writeKeyIds() {
    Set<String> keys = new LinkedHashSet<>();
    keys.add(footerKeyId);
    columns.values().forEach(c -> keys.add(c.keyId()));
    return keys;
  }

  public Principal principal() {
    return Principal.of(user, groups);
  }

  public KmsSettings kms() {
    return kms;
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

  private static void addDescendants(org.apache.iceberg.types.Type.NestedType type, Set<Integer> ids) {
    for (Types.NestedField child : type.fields()) {
      ids.add(child.fieldId());
      if (child.type().isNestedType()) {
        addDescendants(child.type().asNestedType(), ids);
      }
    }
  }

  /** Refuses a write whose policy columns are missing from the table: they would go out in clear. */
  public void checkWritable(Schema schema) {
    if (!unresolvedColumns.isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Cannot write to %s: the policy %s protects column(s) %s that the table does not have"
                  + " (table columns: %s). Fix the policy or the table before writing.",
              tableName, policyOrigin, unresolvedColumns,
              schema.columns().stream().map(Types.NestedField::name).collect(Collectors.toList())));
    }
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

  /** A non-secret identity of (key service, credential, principal, policy) for key caches. */
  public String cacheToken() {
    return kms.credentialDigestFor(user, groups, policyText);
  }

  @Override
  public String toString() {
    return "ProtectionSpec{table=" + tableName + ", principal=" + user + groups + ", columns="
        + columns.values() + "}";
  }
}
