/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import io.icebergprotector.spark.compat.ScalaCollections;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.Or;

/**
 * Widens a file-selection condition (the {@code where} of {@code rewrite_data_files}) so that no
 * part of it that refers to a protected column is evaluated on manifest metrics. Protected columns
 * have no metrics in the files the protector writes, and plaintext metrics in legacy files, which
 * must decide nothing. Every maximal subcondition that refers to a protected column (or to a struct
 * holding one, or to a name that does not resolve) is replaced by the constant that selects more
 * files: {@code TRUE} where it counts positively, {@code FALSE} under an odd number of {@code
 * NOT}s. The result selects a superset of the files the condition could select, which a rewrite may
 * always do: rewriting a file changes no row.
 */
final class ConditionWidening {
  private final Schema schema;
  private final Set<Integer> protectedIds;
  private final boolean caseSensitive;
  private final List<String> widened = new ArrayList<>();

  /**
   * @param protectedIds field ids of the protected columns and of every field nested in one
   */
  ConditionWidening(Schema schema, Set<Integer> protectedIds, boolean caseSensitive) {
    this.schema = schema;
    this.protectedIds = protectedIds;
    this.caseSensitive = caseSensitive;
  }

  /** The widened condition: {@code condition} with protected subconditions replaced. */
  Expression widen(Expression condition) {
    return widen(condition, true);
  }

  /** Names of the protected (or unresolved) columns whose subconditions were replaced. */
  List<String> widenedColumns() {
    return widened;
  }

  private Expression widen(Expression expr, boolean positive) {
    if (expr instanceof And) {
      And and = (And) expr;
      return simplifyAnd(widen(and.left(), positive), widen(and.right(), positive));
    }
    if (expr instanceof Or) {
      Or or = (Or) expr;
      return simplifyOr(widen(or.left(), positive), widen(or.right(), positive));
    }
    if (expr instanceof Not) {
      Expression child = widen(((Not) expr).child(), !positive);
      if (child instanceof Literal) {
        return isTrue(child) ? Literal.FalseLiteral() : Literal.TrueLiteral();
      }
      return new Not(child);
    }
    if (!refersToProtected(expr)) {
      return expr;
    }
    return positive ? Literal.TrueLiteral() : Literal.FalseLiteral();
  }

  private boolean refersToProtected(Expression expr) {
    boolean found = false;
    if (expr instanceof UnresolvedAttribute) {
      UnresolvedAttribute attribute = (UnresolvedAttribute) expr;
      String name = String.join(".", ScalaCollections.asJava(attribute.nameParts()));
      if (isProtected(name)) {
        widened.add(name);
        found = true;
      }
    }
    for (Expression child : ScalaCollections.asJava(expr.children())) {
      found |= refersToProtected(child);
    }
    return found;
  }

  /**
   * A protected field, a field nested in one, a struct holding one, or a name that does not
   * resolve.
   */
  private boolean isProtected(String name) {
    Types.NestedField field =
        caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
    if (field == null) {
      return true; // an alias or qualified name we cannot place: do not let it prune
    }
    if (protectedIds.contains(field.fieldId())) {
      return true;
    }
    if (field.type().isNestedType()) {
      for (Types.NestedField nested : field.type().asNestedType().fields()) {
        if (holdsProtected(nested)) {
          return true;
        }
      }
    }
    return false;
  }

  private boolean holdsProtected(Types.NestedField field) {
    if (protectedIds.contains(field.fieldId())) {
      return true;
    }
    if (field.type().isNestedType()) {
      for (Types.NestedField nested : field.type().asNestedType().fields()) {
        if (holdsProtected(nested)) {
          return true;
        }
      }
    }
    return false;
  }

  private static Expression simplifyAnd(Expression left, Expression right) {
    if (left instanceof Literal) {
      return isTrue(left) ? right : left;
    }
    if (right instanceof Literal) {
      return isTrue(right) ? left : right;
    }
    return new And(left, right);
  }

  private static Expression simplifyOr(Expression left, Expression right) {
    if (left instanceof Literal) {
      return isTrue(left) ? left : right;
    }
    if (right instanceof Literal) {
      return isTrue(right) ? right : left;
    }
    return new Or(left, right);
  }

  /** True for the TRUE literal; other literals (FALSE, NULL) select no file on their own. */
  static boolean isTrue(Expression expr) {
    return expr instanceof Literal && Boolean.TRUE.equals(((Literal) expr).value());
  }
}
