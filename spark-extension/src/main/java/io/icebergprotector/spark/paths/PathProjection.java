/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.OnDenied;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.SparkCompat;
import io.icebergprotector.spark.core.TokenizedColumns;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * What a principal sees of a relation under a policy path: its output with every protected column
 * replaced by the principal's view. Clear columns pass through; denied columns become NULL (so
 * column pruning never reads them) or, with {@code on-denied = fail}, a marker that fails the query
 * if it survives pruning ({@link PathPlanCheck}); masked columns become mask expressions. Protected
 * fields of structs are rewritten in place; a protected path through a list or map fails closed on
 * the whole collection (NULL, or the failure marker).
 */
final class PathProjection {
  /** Messages of the on-denied=fail marker start with this. */
  static final String DENIED_MARKER = "[iceberg-protector] ";

  private final TablePolicy entry;
  private final PathScope scope;
  private final String location;

  private PathProjection(TablePolicy entry, PathScope scope, String location) {
    TokenizedColumns.refuse(entry);
    this.entry = entry;
    this.scope = scope;
    this.location = location;
  }

  /** The projection over {@code output}, or null when the principal sees every column in clear. */
  static List<NamedExpression> of(
      List<Attribute> output, TablePolicy entry, PathScope scope, String location) {
    return new PathProjection(entry, scope, location).build(output);
  }

  private List<NamedExpression> build(List<Attribute> output) {
    List<NamedExpression> projected = new ArrayList<>(output.size());
    boolean changed = false;
    for (Attribute attribute : output) {
      List<ColumnPolicy> policies = new ArrayList<>();
      for (ColumnPolicy c : entry.columns()) {
        if (c.pathParts().get(0).equalsIgnoreCase(attribute.name())) {
          policies.add(c);
        }
      }
      Expression view =
          policies.isEmpty()
              ? attribute
              : rewrite(attribute, attribute.dataType(), attribute.name(), policies, 1, null);
      if (view == attribute) {
        projected.add(attribute);
      } else {
        changed = true;
        projected.add(
            new Alias(
                view,
                attribute.name(),
                NamedExpression$.MODULE$.newExprId(),
                PathMasks.seq(List.of()),
                Option.apply(attribute.metadata()),
                PathMasks.seq(List.of())));
      }
    }
    return changed ? projected : null;
  }

  /**
   * The view of {@code value}, at {@code depth} path parts into the policies that start with its
   * path; {@code inherited} is the nearest protected ancestor (or null).
   */
  private Expression rewrite(
      Expression value,
      DataType type,
      String path,
      List<ColumnPolicy> policies,
      int depth,
      ColumnPolicy inherited) {
    ColumnPolicy own = inherited;
    List<ColumnPolicy> deeper = new ArrayList<>();
    for (ColumnPolicy c : policies) {
      if (c.pathParts().size() == depth) {
        own = c;
      } else if (c.pathParts().size() > depth) {
        deeper.add(c);
      }
    }
    if (deeper.isEmpty()) {
      return own == null ? value : view(own, value, type, path);
    }
    if (!(type instanceof StructType)) {
      return collapse(value, type, path, own, deeper);
    }
    StructType struct = (StructType) type;
    StructField[] fields = struct.fields();
    List<Expression> children = new ArrayList<>();
    boolean changed = false;
    boolean anyVisible = false;
    for (int i = 0; i < fields.length; i++) {
      String name = fields[i].name();
      List<ColumnPolicy> sub = new ArrayList<>();
      for (ColumnPolicy c : deeper) {
        if (c.pathParts().get(depth).equalsIgnoreCase(name)) {
          sub.add(c);
        }
      }
      Expression field = new GetStructField(value, i, Option.apply(name));
      Expression fieldView =
          rewrite(field, fields[i].dataType(), path + "." + name, sub, depth + 1, own);
      changed |= fieldView != field;
      anyVisible |= fieldView.references().nonEmpty();
      children.add(new Literal(UTF8String.fromString(name), DataTypes.StringType));
      children.add(fieldView);
    }
    if (!changed) {
      return value;
    }
    CreateNamedStruct rebuilt = new CreateNamedStruct(PathMasks.seq(children));
    if (!anyVisible) {
      // Nothing of the struct is readable: do not read it at all.
      return new Literal(null, rebuilt.dataType());
    }
    // IsNull over the struct does not force its other fields to be read: Spark's nested-schema
    // pruning reads only the fields referenced through GetStructField.
    return new If(new IsNull(value), new Literal(null, rebuilt.dataType()), rebuilt);
  }

  /** A protected path through a list, map or primitive: the strictest access, on the whole. */
  private Expression collapse(
      Expression value, DataType type, String path, ColumnPolicy own, List<ColumnPolicy> deeper) {
    List<ColumnPolicy> all = new ArrayList<>(deeper);
    if (own != null) {
      all.add(own);
    }
    ColumnPolicy failing = null;
    boolean restricted = false;
    for (ColumnPolicy c : all) {
      Access access = c.accessFor(scope.roles());
      if (access.level() == AccessLevel.DENIED && access.onDenied() == OnDenied.FAIL) {
        failing = c;
      }
      restricted |= access.level() != AccessLevel.CLEAR;
    }
    if (failing != null) {
      return deniedMarker(type, failing.path());
    }
    return restricted ? new Literal(null, type) : value;
  }

  private Expression view(ColumnPolicy column, Expression value, DataType type, String path) {
    Access access = column.accessFor(scope.roles());
    switch (access.level()) {
      case CLEAR:
        return value;
      case DENIED:
        return access.onDenied() == OnDenied.FAIL
            ? deniedMarker(type, path)
            : new Literal(null, type);
      case MASKED:
        return PathMasks.mask(
            access.mask(),
            value,
            type,
            scope.keyScope(),
            scope.policy(),
            column.keyId(),
            path,
            location);
      default:
        throw new IllegalStateException("Unknown access level " + access.level());
    }
  }

  private Expression deniedMarker(DataType type, String column) {
    String message =
        String.format(
            "%sAccess denied: principal %s may not read column '%s' under %s, and the policy (%s)"
                + " says on-denied = fail for it. Leave the column out of the query (also out of"
                + " filters), or ask for a role with clear or masked access.",
            DENIED_MARKER, scope.principal(), column, location, scope.policy().origin());
    return SparkCompat.raiseError(message, type);
  }
}
