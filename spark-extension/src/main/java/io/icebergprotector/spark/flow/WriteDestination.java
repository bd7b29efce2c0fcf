package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.ProtectedTable;
import io.icebergprotector.spark.ProtectionSpec;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/** Where a write stores its columns, and which of them it protects. */
public final class WriteDestination {
  private final String description;
  private final boolean protectedDestination;
  private final Predicate<String> protects;

  private WriteDestination(
      String description, boolean protectedDestination, Predicate<String> protects) {
    this.description = description;
    this.protectedDestination = protectedDestination;
    this.protects = protects;
  }

  /** A table of a protecting catalog that the policy lists. */
  static WriteDestination protectedTable(String name, ProtectedTable table) {
    ProtectionSpec spec = SessionFlowSources.protectionOf(table).withoutRetired();
    Schema schema = table.table().schema();
    Set<Integer> ids = spec.protectedFieldIds(schema);
    return new WriteDestination(
        "protected table " + name, true, path -> coveredById(schema, ids, path));
  }

  /** A new table, or files under a prefix, that a policy entry will protect. */
  static WriteDestination policyEntry(String description, TablePolicy entry) {
    return new WriteDestination(description, true, path -> entry.covering(path).isPresent());
  }

  /** A destination that protects nothing. */
  static WriteDestination unprotected(String description) {
    return new WriteDestination(description, false, path -> false);
  }

  /** E.g. {@code protected table prot.db.orders} or {@code path file:/tmp/out (outside ...)}. */
  public String description() {
    return description;
  }

  /** Whether the destination protects any column (a policy table or prefix). */
  public boolean isProtected() {
    return protectedDestination;
  }

  /**
   * Whether a value stored at dotted {@code path} (a column, or a field inside one) is protected.
   */
  public boolean protects(String path) {
    return protects.test(path);
  }

  // A value at `path` is protected when the field there, or the nearest existing ancestor, is a
  // protected column or lies inside one.
  private static boolean coveredById(Schema schema, Set<Integer> protectedIds, String path) {
    String candidate = path;
    while (true) {
      Types.NestedField field = schema.caseInsensitiveFindField(candidate);
      if (field != null) {
        return protectedIds.contains(field.fieldId());
      }
      int dot = candidate.lastIndexOf('.');
      if (dot < 0) {
        return false;
      }
      candidate = candidate.substring(0, dot);
    }
  }

  @Override
  public String toString() {
    return description;
  }
}
