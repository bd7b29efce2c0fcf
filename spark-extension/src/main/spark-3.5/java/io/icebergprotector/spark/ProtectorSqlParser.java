/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.procedures.DescribeProtectionProcedure;
import io.icebergprotector.spark.procedures.RewriteProtectedProcedure;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.CallStatement;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Parses {@code CALL <catalog>.system.rewrite_protected(...)} and {@code describe_protection(...)}.
 * Iceberg's SQL extensions parse CALL only for Iceberg's own procedure names, so this parser lets
 * Iceberg parse the statement under a known name and then puts ours back; Iceberg's analyzer
 * resolves it through our catalog's {@code loadProcedure}. Everything else goes to the wrapped
 * parser unchanged.
 */
final class ProtectorSqlParser implements ParserInterface {
  private static final Pattern OUR_CALL =
      Pattern.compile(
          "(?is)^\\s*call\\s+(.*?)\\bsystem\\s*\\.\\s*`?("
              + RewriteProtectedProcedure.NAME
              + "|"
              + DescribeProtectionProcedure.NAME
              + ")`?\\s*\\(");
  // any name Iceberg's parser accepts for CALL; only used while parsing
  private static final String STAND_IN = "rewrite_data_files";

  private final ParserInterface delegate;

  ProtectorSqlParser(ParserInterface delegate) {
    this.delegate = delegate;
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    Matcher matcher = OUR_CALL.matcher(sqlText);
    if (!matcher.find()) {
      return delegate.parsePlan(sqlText);
    }
    String ours = matcher.group(2).toLowerCase(Locale.ROOT);
    int nameStart = matcher.start(2);
    String standIn = sqlText.substring(0, nameStart) + STAND_IN + sqlText.substring(matcher.end(2));
    LogicalPlan parsed = delegate.parsePlan(standIn);
    if (!(parsed instanceof CallStatement)) {
      return parsed;
    }
    CallStatement call = (CallStatement) parsed;
    List<String> name = new ArrayList<>(ScalaCollections.asJava(call.name()));
    name.set(name.size() - 1, ours);
    return new CallStatement(ScalaCollections.asScalaList(name), call.args());
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public scala.collection.immutable.List<String> parseMultipartIdentifier(String sqlText)
      throws ParseException {
    // a List is the Seq of Scala 2.12 and of 2.13
    return delegate.parseMultipartIdentifier(sqlText).toList();
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
