/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.maintenance.ProcedureParam;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL <catalog>.system.describe_protection(table => 'db.t')}: what the session's principal
 * gets from each protected column of a table (the SQL form of {@code bin/protector policy
 * explain}). It describes only the caller's own view, so it reveals no more of the policy than the
 * caller's reads would.
 */
public final class DescribeProtectionProcedure extends CatalogProcedure {
  public static final String NAME = "describe_protection";

  private static final List<ProcedureParam> PARAMETERS =
      List.of(ProcedureParam.required("table", DataTypes.StringType));

  private static final StructType OUTPUT =
      new StructType(
          new StructField[] {
            new StructField("column", DataTypes.StringType, false, Metadata.empty()),
            new StructField("access", DataTypes.StringType, false, Metadata.empty()),
            new StructField("mask", DataTypes.StringType, true, Metadata.empty()),
            new StructField("on_denied", DataTypes.StringType, true, Metadata.empty()),
            new StructField("key", DataTypes.StringType, false, Metadata.empty()),
            new StructField("principal", DataTypes.StringType, false, Metadata.empty()),
            new StructField("may_write", DataTypes.BooleanType, false, Metadata.empty())
          });

  public DescribeProtectionProcedure(ProtectingCatalog catalog) {
    super(
        catalog,
        NAME,
        PARAMETERS,
        OUTPUT,
        "What the current principal reads from each protected column of a table");
  }

  @Override
  InternalRow[] call(InternalRow args) {
    String table = args.getUTF8String(0).toString();
    Policy policy = catalog.protectorContext().policy();
    TablePolicy entry =
        catalog
            .policyFor(table)
            .orElseThrow(
                () ->
                    new ProtectorException(
                        String.format(
                            "Cannot describe protection: table %s is not in the policy of catalog"
                                + " %s (%s), so none of its columns is protected",
                            table, catalog.catalogName(), policy.origin())));
    Principal principal = catalog.principal(SparkSession.active());
    Set<String> roles = policy.rolesOf(principal);
    boolean mayWrite = !Collections.disjoint(entry.writers(), roles);
    List<InternalRow> rows = new ArrayList<>();
    for (ColumnPolicy column : entry.columns()) {
      Access access = column.accessFor(roles);
      AccessLevel level = access.level();
      rows.add(
          new GenericInternalRow(
              new Object[] {
                UTF8String.fromString(column.path()),
                UTF8String.fromString(level.name().toLowerCase(Locale.ROOT)),
                level == AccessLevel.MASKED ? UTF8String.fromString(access.mask().spec()) : null,
                level == AccessLevel.DENIED
                    ? UTF8String.fromString(access.onDenied().name().toLowerCase(Locale.ROOT))
                    : null,
                UTF8String.fromString(column.keyId()),
                UTF8String.fromString(principal.user()),
                mayWrite
              }));
    }
    return rows.toArray(new InternalRow[0]);
  }
}
