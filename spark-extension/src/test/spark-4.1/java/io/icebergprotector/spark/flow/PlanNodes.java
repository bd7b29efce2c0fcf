/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.CTERelationDef;
import org.apache.spark.sql.catalyst.plans.logical.CTERelationRef;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.Option;
import scala.collection.immutable.List$;
import scala.collection.immutable.Seq;

/**
 * Hand-built analyzed plan nodes for {@link PlanLineageTest}, Spark 4.0 version (the Spark 3.5
 * version, in src/test/spark-3.5, has the same methods): Spark 4.0 added a stream to {@code
 * LocalRelation}, a hint to {@code Aggregate} and a recursion flag to {@code CTERelationRef}.
 */
final class PlanNodes {
  private PlanNodes() {}

  /** An empty batch relation with {@code output}. */
  static LocalRelation localRelation(Seq<Attribute> output) {
    return new LocalRelation(output, List$.MODULE$.empty(), false, Option.empty());
  }

  /** An aggregate without hints. */
  static Aggregate aggregate(
      Seq<Expression> grouping, Seq<NamedExpression> aggregates, LogicalPlan child) {
    return new Aggregate(grouping, aggregates, child, Option.empty());
  }

  /** A resolved batch reference to CTE {@code id}, without statistics. */
  static CTERelationRef cteRelationRef(long id, Seq<Attribute> output) {
    return new CTERelationRef(
        id, true, output, false, Option.empty(), false, Option.empty(), false);
  }

  /** A CTE definition {@code id} of {@code child}, not recursive. */
  static CTERelationDef cteRelationDef(LogicalPlan child, long id) {
    return new CTERelationDef(child, id, Option.empty(), false, Option.empty());
  }
}
