/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.spark.compat.ScalaCollections;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetArrayStructFields;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSubquery;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.OuterReference;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.expressions.WindowExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.CTERelationDef;
import org.apache.spark.sql.catalyst.plans.logical.CTERelationRef;
import org.apache.spark.sql.catalyst.plans.logical.Expand;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Generate;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeRows;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Union;
import org.apache.spark.sql.catalyst.plans.logical.Window;
import scala.runtime.BoxedUnit;

/**
 * Which protected columns reach each output column of an analyzed plan, and as which view. It
 * follows values: a column flows into an output through projections, aggregates, window functions,
 * generators, unions, CTEs, subqueries in projections and views. What decides which rows are kept
 * or how they are grouped, joined or ordered (filters, join conditions, grouping keys that are not
 * output, sort and window partitioning) is not a flow, with one exception: an equality. A column
 * that a condition ties to a protected value ({@code a = p}, {@code a <=> p}, {@code a IN (p,
 * ...)}, {@code a IN (SELECT p ...)}, also correlated inside a subquery) holds that value in every
 * row the condition keeps: joined against a table of all six-digit strings it is the clear PIN.
 * Such a column carries the protected column's flows, as read (a masked view ties to the masks),
 * and so does every expression over it; a denied view reads as NULL, ties to nothing and is left
 * out. Every expression over a protected value carries it, except {@code count} and {@code
 * count(DISTINCT ...)}; struct field access and struct construction keep track of where in a struct
 * a protected field lies. An operator it does not know passes every input column into each column
 * it adds.
 */
public final class PlanLineage {
  private final FlowSources sources;
  private final List<Expression> rowConditions;
  private final Map<ExprId, Set<Flow>> flows = new HashMap<>();
  private final Map<Long, CTERelationDef> ctes = new HashMap<>();
  private final Set<LogicalPlan> visited = Collections.newSetFromMap(new IdentityHashMap<>());
  // Flows that conditions tie to a column, kept from one pass to the next: a tie found at a join
  // reaches expressions computed below it (over the same column) only in the next pass.
  private final Map<ExprId, Set<Flow>> ties;
  private boolean tiesGrew;

  private PlanLineage(
      FlowSources sources, List<Expression> rowConditions, Map<ExprId, Set<Flow>> ties) {
    this.sources = sources;
    this.rowConditions = rowConditions;
    this.ties = ties;
  }

  /** The flows into each output column of {@code plan}, by position. */
  public static List<Set<Flow>> of(LogicalPlan plan, FlowSources sources) {
    return of(plan, sources, List.of());
  }

  /**
   * The flows into each output column of the query of a row-level write: an {@code IF} whose
   * predicate is one of {@code rowConditions} (the operation's own condition, which Spark's UPDATE
   * rewrite wraps around each column) picks rows, and only its branches flow.
   */
  static List<Set<Flow>> of(LogicalPlan plan, FlowSources sources, List<Expression> rowConditions) {
    Map<ExprId, Set<Flow>> ties = new HashMap<>();
    PlanLineage lineage;
    do {
      // ties only grow, over a finite set of columns and flows: this ends, mostly after one pass
      // (no tie) or two
      lineage = new PlanLineage(sources, rowConditions, ties);
      lineage.collectCtes(plan);
      lineage.visit(plan);
    } while (lineage.tiesGrew);
    List<Set<Flow>> out = new ArrayList<>();
    for (Attribute attribute : list(plan.output())) {
      out.add(lineage.flowsOf(attribute));
    }
    return out;
  }

  private void collectCtes(LogicalPlan plan) {
    plan.foreach(
        node -> {
          if (node instanceof CTERelationDef) {
            CTERelationDef def = (CTERelationDef) node;
            if (ctes.putIfAbsent(def.id(), def) == null) {
              collectCtes(def.child());
            }
          }
          for (LogicalPlan subquery : list(node.subqueries())) {
            collectCtes(subquery);
          }
          return BoxedUnit.UNIT;
        });
  }

  private void visit(LogicalPlan node) {
    if (!visited.add(node)) {
      return;
    }
    List<Set<Flow>> given = sources.flowsOf(node);
    if (given != null) {
      List<Attribute> output = list(node.output());
      for (int i = 0; i < output.size(); i++) {
        add(output.get(i), given.get(i));
      }
      return;
    }
    for (LogicalPlan child : list(node.children())) {
      visit(child);
    }
    if (node instanceof Filter) {
      condition(((Filter) node).condition());
    } else if (node instanceof Join && ((Join) node).condition().isDefined()) {
      condition(((Join) node).condition().get());
    }
    if (node instanceof Project) {
      named(list(((Project) node).projectList()));
    } else if (node instanceof Aggregate) {
      named(list(((Aggregate) node).aggregateExpressions()));
    } else if (node instanceof Window) {
      named(list(((Window) node).windowExpressions()));
    } else if (node instanceof Generate) {
      Generate generate = (Generate) node;
      Set<Flow> generated = whole(flowsOf((Expression) generate.generator()));
      for (Attribute attribute : list(generate.generatorOutput())) {
        add(attribute, generated);
      }
    } else if (node instanceof Expand) {
      Expand expand = (Expand) node;
      List<Attribute> output = list(expand.output());
      for (scala.collection.Seq<Expression> projection : list(expand.projections())) {
        List<Expression> row = list(projection);
        for (int i = 0; i < output.size(); i++) {
          add(output.get(i), flowsOf(row.get(i)));
        }
      }
    } else if (node instanceof Union) {
      positional(node, list(node.children()));
    } else if (node instanceof CTERelationRef) {
      CTERelationDef def = ctes.get(((CTERelationRef) node).cteId());
      if (def != null) {
        visit(def);
        positional(node, List.of(def));
      }
    } else if (node instanceof MergeRows) {
      mergeRows((MergeRows) node);
    } else {
      unknown(node);
    }
  }

  private void named(List<? extends NamedExpression> expressions) {
    for (NamedExpression expression : expressions) {
      if (!(expression instanceof Attribute)) {
        add(expression.toAttribute(), flowsOf((Expression) expression));
      }
    }
  }

  /** Output column i of {@code node} holds column i of each of {@code inputs}. */
  private void positional(LogicalPlan node, List<LogicalPlan> inputs) {
    List<Attribute> output = list(node.output());
    for (LogicalPlan input : inputs) {
      List<Attribute> columns = list(input.output());
      for (int i = 0; i < output.size() && i < columns.size(); i++) {
        add(output.get(i), flowsOf(columns.get(i)));
      }
    }
  }

  /** MERGE: each output column takes its value from the same position of every instruction. */
  private void mergeRows(MergeRows merge) {
    List<Attribute> output = list(merge.output());
    List<MergeRows.Instruction> instructions = new ArrayList<>();
    instructions.addAll(list(merge.matchedInstructions()));
    instructions.addAll(list(merge.notMatchedInstructions()));
    instructions.addAll(list(merge.notMatchedBySourceInstructions()));
    for (MergeRows.Instruction instruction : instructions) {
      for (scala.collection.Seq<Expression> row : list(instruction.outputs())) {
        List<Expression> values = list(row);
        for (int i = 0; i < output.size() && i < values.size(); i++) {
          add(output.get(i), flowsOf(values.get(i)));
        }
      }
    }
  }

  /** An operator not modelled here: every column it adds may hold any of its inputs. */
  private void unknown(LogicalPlan node) {
    Set<ExprId> inherited = new java.util.HashSet<>();
    Set<Flow> inputs = new LinkedHashSet<>();
    for (LogicalPlan child : list(node.children())) {
      for (Attribute attribute : list(child.output())) {
        inherited.add(attribute.exprId());
        inputs.addAll(whole(flowsOf(attribute)));
      }
    }
    for (Attribute attribute : list(node.output())) {
      if (!inherited.contains(attribute.exprId())) {
        add(attribute, inputs);
      }
    }
  }

  /** Records the ties of every equality in {@code condition}, and of those in its subqueries. */
  private void condition(Expression condition) {
    if (condition instanceof EqualTo || condition instanceof EqualNullSafe) {
      List<Expression> sides = list(condition.children());
      tie(sides.get(0), sides.get(1));
    } else if (condition instanceof In) {
      In in = (In) condition;
      for (Expression option : list(in.list())) {
        tie(in.value(), option);
      }
    } else if (condition instanceof InSubquery) {
      InSubquery in = (InSubquery) condition;
      LogicalPlan query = in.query().plan();
      visit(query);
      List<Expression> values = list(in.values());
      List<Attribute> columns = list(query.output());
      for (int i = 0; i < values.size() && i < columns.size(); i++) {
        tie(values.get(i), columns.get(i));
      }
    }
    if (condition instanceof SubqueryExpression) {
      // EXISTS (SELECT ... WHERE p.pin = outer.v): the subquery's filter ties the outer column
      visit(((SubqueryExpression) condition).plan());
    }
    for (Expression child : list(condition.children())) {
      condition(child);
    }
  }

  /** Each side of an equality holds the other side's values in the rows it keeps. */
  private void tie(Expression left, Expression right) {
    tieTo(left, flowsOf(right));
    tieTo(right, flowsOf(left));
  }

  private void tieTo(Expression side, Set<Flow> values) {
    Set<Flow> tied = new LinkedHashSet<>();
    for (Flow flow : values) {
      if (flow.access() != AccessLevel.DENIED) {
        tied.add(flow.whole());
      }
    }
    if (tied.isEmpty()) {
      return;
    }
    for (Attribute attribute : columnsOf(side)) {
      if (ties.computeIfAbsent(attribute.exprId(), id -> new LinkedHashSet<>()).addAll(tied)) {
        tiesGrew = true;
      }
    }
  }

  /** The columns an expression reads, correlated outer columns included, subqueries excluded. */
  private static List<Attribute> columnsOf(Expression expression) {
    List<Attribute> out = new ArrayList<>();
    if (expression instanceof Attribute) {
      out.add((Attribute) expression);
    } else if (expression instanceof OuterReference) {
      out.addAll(columnsOf((Expression) ((OuterReference) expression).e()));
    } else if (!(expression instanceof SubqueryExpression)) {
      for (Expression child : list(expression.children())) {
        out.addAll(columnsOf(child));
      }
    }
    return out;
  }

  private void add(Attribute attribute, Set<Flow> more) {
    if (!more.isEmpty()) {
      flows.computeIfAbsent(attribute.exprId(), id -> new LinkedHashSet<>()).addAll(more);
    }
  }

  /** The flows into the value of {@code expression}. */
  Set<Flow> flowsOf(Expression expression) {
    if (expression instanceof Attribute) {
      ExprId id = ((Attribute) expression).exprId();
      Set<Flow> tied = ties.get(id);
      if (tied == null) {
        return flows.getOrDefault(id, Set.of());
      }
      Set<Flow> out = new LinkedHashSet<>(flows.getOrDefault(id, Set.of()));
      out.addAll(tied);
      return out;
    } else if (expression instanceof OuterReference) {
      return flowsOf((Expression) ((OuterReference) expression).e());
    } else if (expression instanceof Literal) {
      return Set.of();
    } else if (expression instanceof Alias) {
      return flowsOf(((Alias) expression).child());
    } else if (expression instanceof GetStructField) {
      GetStructField get = (GetStructField) expression;
      return field(flowsOf(get.child()), get.extractFieldName());
    } else if (expression instanceof GetArrayStructFields) {
      GetArrayStructFields get = (GetArrayStructFields) expression;
      return field(flowsOf(get.child()), get.field().name());
    } else if (expression instanceof CreateNamedStruct) {
      CreateNamedStruct struct = (CreateNamedStruct) expression;
      List<Object> names = list(struct.names());
      List<Expression> values = list(struct.valExprs());
      Set<Flow> out = new LinkedHashSet<>();
      for (int i = 0; i < values.size(); i++) {
        for (Flow flow : flowsOf(values.get(i))) {
          out.add(flow.under(String.valueOf(names.get(i))));
        }
      }
      return out;
    } else if (expression instanceof If && isRowCondition(((If) expression).predicate())) {
      If choice = (If) expression;
      Set<Flow> out = new LinkedHashSet<>(flowsOf(choice.trueValue()));
      out.addAll(flowsOf(choice.falseValue()));
      return out;
    } else if (expression instanceof AggregateExpression) {
      AggregateExpression aggregate = (AggregateExpression) expression;
      // count and count(DISTINCT ...) say how many, never which values; the FILTER is a condition
      return aggregate.aggregateFunction() instanceof Count
          ? Set.of()
          : flowsOf(aggregate.aggregateFunction());
    } else if (expression instanceof WindowExpression) {
      // the window's partitioning and ordering decide which rows, not which values
      return flowsOf(((WindowExpression) expression).windowFunction());
    } else if (expression instanceof SubqueryExpression) {
      SubqueryExpression subquery = (SubqueryExpression) expression;
      visit(subquery.plan());
      Set<Flow> out = new LinkedHashSet<>();
      for (Attribute attribute : list(subquery.plan().output())) {
        out.addAll(whole(flowsOf(attribute)));
      }
      for (Expression child : list(subquery.children())) {
        out.addAll(whole(flowsOf(child)));
      }
      return out;
    }
    Set<Flow> out = new LinkedHashSet<>();
    for (Expression child : list(expression.children())) {
      out.addAll(whole(flowsOf(child)));
    }
    return out;
  }

  private boolean isRowCondition(Expression predicate) {
    return rowConditions.stream().anyMatch(condition -> condition.semanticEquals(predicate));
  }

  private static Set<Flow> field(Set<Flow> in, String name) {
    Set<Flow> out = new LinkedHashSet<>();
    for (Flow flow : in) {
      Flow narrowed = flow.field(name);
      if (narrowed != null) {
        out.add(narrowed);
      }
    }
    return out;
  }

  private static Set<Flow> whole(Set<Flow> in) {
    Set<Flow> out = new LinkedHashSet<>();
    for (Flow flow : in) {
      out.add(flow.whole());
    }
    return out;
  }

  private static <T> List<T> list(scala.collection.Seq<T> seq) {
    return ScalaCollections.asJava(seq);
  }
}
