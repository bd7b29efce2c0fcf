/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.compat.SparkCompat;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Predicate;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.analysis.SimpleAnalyzer$;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ConditionalExpression;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.HigherOrderFunction;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.ScalaUDF;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.CatalystSerde$;
import org.apache.spark.sql.catalyst.plans.logical.DeserializeToObject;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.GlobalLimit;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LocalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MapPartitions;
import org.apache.spark.sql.catalyst.plans.logical.MapPartitions$;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SerializeFromObject;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.Union;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Function1;
import scala.Option;
import scala.PartialFunction;
import scala.runtime.AbstractFunction1;

/**
 * Optimizer rule for server token mode: {@code protect} and {@code unprotect} calls that a query
 * evaluates for every row (tokenizing a CSV or a stream, grouping or joining on tokens) send their
 * values to the key server in batches of {@link #BATCH_SIZE}, one request per batch instead of one
 * per value. A projection's calls are computed by a partition function over its input, a batch at a
 * time, and the projection reads the results in their place; the calls in an aggregate's grouping
 * keys and aggregate arguments, and in the sides of a join condition's equalities, move to such a
 * projection of the child whose columns they read. Calls whose evaluation depends on other values
 * (a branch of a conditional, the right side of AND/OR, a lambda, a filter) keep one request per
 * value: evaluating them for every row could fail on values the query means to skip.
 */
final class TokenCallBatching extends Rule<LogicalPlan> {
  static final int BATCH_SIZE = 1024;

  private final Predicate<TokenCall> worthBatching;

  /** Batches the calls of server token mode, where each call to the tokenizer is a request. */
  TokenCallBatching() {
    this(TokenCall::batchesPay);
  }

  TokenCallBatching(Predicate<TokenCall> worthBatching) {
    this.worthBatching = worthBatching;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return rewrite(plan, Integer.MAX_VALUE);
  }

  /**
   * Bottom up, like {@code transformUp}, knowing how many rows at most the operators above {@code
   * node} take from it: a {@code LIMIT n} above a projection through operators that stream their
   * input row by row (projections, filters, unions) caps each of its batches at n rows, so {@code
   * SELECT protect(...) ... LIMIT 3} sends 3 values per partition, not 1,024.
   */
  private LogicalPlan rewrite(LogicalPlan node, int rowsWanted) {
    int below = rowsBelow(node, rowsWanted);
    LogicalPlan withChildren =
        node.mapChildren((Function1<LogicalPlan, LogicalPlan>) child -> rewrite(child, below));
    return batchCalls(withChildren, Math.min(BATCH_SIZE, rowsWanted));
  }

  /** How many rows {@code node} takes from its children when at most {@code rowsWanted} are. */
  private static int rowsBelow(LogicalPlan node, int rowsWanted) {
    Expression limit = null;
    if (node instanceof LocalLimit) {
      limit = ((LocalLimit) node).limitExpr();
    } else if (node instanceof GlobalLimit) {
      limit = ((GlobalLimit) node).limitExpr();
    }
    if (limit != null) {
      Object n = limit.foldable() ? limit.eval(null) : null;
      return n instanceof Integer && (Integer) n >= 0
          ? Math.min(rowsWanted, Math.max(1, (Integer) n))
          : Integer.MAX_VALUE;
    }
    boolean streams =
        node instanceof Project
            || node instanceof Filter
            || node instanceof Union
            || node instanceof SubqueryAlias
            || node instanceof SerializeFromObject
            || node instanceof DeserializeToObject
            || node instanceof MapPartitions;
    return streams ? rowsWanted : Integer.MAX_VALUE;
  }

  private LogicalPlan batchCalls(LogicalPlan node, int batchSize) {
    if (node instanceof Project) {
      return batch((Project) node, batchSize);
    }
    if (node instanceof Aggregate) {
      Aggregate aggregate = (Aggregate) node;
      List<ScalaUDF> calls = new ArrayList<>();
      ScalaCollections.asJava(aggregate.groupingExpressions()).forEach(e -> collect(e, calls));
      for (NamedExpression e : ScalaCollections.asJava(aggregate.aggregateExpressions())) {
        collectInAggregateFunctions((Expression) e, calls);
      }
      return pullOut(node, calls);
    }
    if (node instanceof Join && ((Join) node).condition().isDefined()) {
      List<ScalaUDF> calls = new ArrayList<>();
      collectInJoinKeys(((Join) node).condition().get(), calls);
      return pullOut(node, calls);
    }
    return node;
  }

  /**
   * {@code node} with {@code calls} computed by a batched projection of the child whose columns
   * they read, and read from there: calls that an aggregate or a join evaluates for every input
   * row, where Spark's optimizer has merged them from the projection they were written in.
   */
  private LogicalPlan pullOut(LogicalPlan node, List<ScalaUDF> calls) {
    if (calls.isEmpty()) {
      return node;
    }
    List<LogicalPlan> children = new ArrayList<>();
    List<ScalaUDF> pulled = new ArrayList<>();
    List<Attribute> results = new ArrayList<>();
    for (LogicalPlan child : ScalaCollections.asJava(node.children())) {
      List<NamedExpression> columns = new ArrayList<>(ScalaCollections.asJava(child.output()));
      int width = columns.size();
      for (ScalaUDF call : calls) {
        if (indexOf(pulled, call) < 0 && call.references().subsetOf(child.outputSet())) {
          Alias result =
              alias(
                  call,
                  "token" + pulled.size(),
                  NamedExpression$.MODULE$.newExprId(),
                  Metadata.empty());
          columns.add(result);
          pulled.add(call);
          results.add(result.toAttribute());
        }
      }
      children.add(
          columns.size() == width
              ? child
              : batch(new Project(ScalaCollections.asScalaList(columns), child), BATCH_SIZE));
    }
    if (pulled.isEmpty()) {
      return node;
    }
    LogicalPlan replaced =
        ((LogicalPlan) node.transformExpressions(replacing(pulled, results)))
            .withNewChildren(ScalaCollections.asScalaList(children));
    // a join's output now has the results too; the plan above expects its own columns only
    return node instanceof Join
        ? new Project(
            ScalaCollections.asScalaList(
                List.<NamedExpression>copyOf(ScalaCollections.asJava(node.output()))),
            replaced)
        : replaced;
  }

  private LogicalPlan batch(Project project, int batchSize) {
    List<NamedExpression> list = ScalaCollections.asJava(project.projectList());
    List<ScalaUDF> calls = new ArrayList<>();
    list.forEach(e -> collect((Expression) e, calls));
    if (calls.isEmpty()) {
      return project;
    }
    LogicalPlan child = project.child();
    // only the columns the projection reads pass through the row conversion
    List<Attribute> columns = new ArrayList<>();
    for (Attribute a : ScalaCollections.asJava(child.output())) {
      if (project.references().contains(a)) {
        columns.add(a);
      }
    }
    int width = columns.size();

    // Unique names: the row encoders resolve the columns by name, and a join's may repeat.
    List<NamedExpression> inputs = new ArrayList<>();
    List<StructField> outFields = new ArrayList<>();
    for (int j = 0; j < width; j++) {
      Attribute a = columns.get(j);
      inputs.add(alias(a, "c" + j, NamedExpression$.MODULE$.newExprId(), a.metadata()));
      outFields.add(new StructField("c" + j, a.dataType(), a.nullable(), a.metadata()));
    }
    TokenCall[] functions = new TokenCall[calls.size()];
    for (int i = 0; i < calls.size(); i++) {
      ScalaUDF call = calls.get(i);
      functions[i] = (TokenCall) call.function();
      inputs.add(
          alias(
              call.children().head(),
              "t" + i,
              NamedExpression$.MODULE$.newExprId(),
              Metadata.empty()));
      outFields.add(new StructField("t" + i, call.dataType(), true, Metadata.empty()));
    }
    Project withArguments = new Project(ScalaCollections.asScalaList(inputs), child);
    LogicalPlan mapped =
        mapPartitions(
            new BatchedCalls(functions, width, batchSize),
            withArguments,
            new StructType(outFields.toArray(new StructField[0])));

    // The columns again under their own ids, so the rest of the plan still resolves them.
    List<Attribute> out = ScalaCollections.asJava(mapped.output());
    List<NamedExpression> restored = new ArrayList<>();
    for (int j = 0; j < width; j++) {
      Attribute a = columns.get(j);
      restored.add(alias(out.get(j), a.name(), a.exprId(), a.metadata()));
    }
    List<Attribute> results = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      Attribute result = out.get(width + i);
      restored.add(result);
      results.add(result);
    }
    LogicalPlan below = new Project(ScalaCollections.asScalaList(restored), mapped);

    List<NamedExpression> replaced = new ArrayList<>();
    for (NamedExpression e : list) {
      replaced.add((NamedExpression) ((Expression) e).transformDown(replacing(calls, results)));
    }
    return new Project(ScalaCollections.asScalaList(replaced), below);
  }

  /**
   * What {@code Dataset.mapPartitions} plans, built inside the optimizer: the analyzer that
   * resolves a Dataset's row deserializer has already run, so it is resolved here against the
   * input's attributes.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static LogicalPlan mapPartitions(
      BatchedCalls function, LogicalPlan input, StructType outSchema) {
    Encoder<Row> in = Encoders.row(input.schema());
    Encoder<Row> out = Encoders.row(outSchema);
    LogicalPlan stand = SparkCompat.emptyRelation(ScalaCollections.asJava(input.output()));
    DeserializeToObject resolved =
        (DeserializeToObject)
            SimpleAnalyzer$.MODULE$.execute(CatalystSerde$.MODULE$.deserialize(stand, in));
    LogicalPlan deserialized =
        new DeserializeToObject(resolved.deserializer(), resolved.outputObjAttr(), input);
    LogicalPlan mapped =
        MapPartitions$.MODULE$.apply(
            (Function1) function, CatalystSerde$.MODULE$.generateObjAttr(out), deserialized);
    return CatalystSerde$.MODULE$.serialize(mapped, out);
  }

  /** The batchable calls {@code e} evaluates for every row, innermost calls left in place. */
  private void collectInAggregateFunctions(Expression e, List<ScalaUDF> calls) {
    if (e instanceof AggregateExpression) {
      collect(((AggregateExpression) e).aggregateFunction(), calls);
    } else {
      ScalaCollections.asJava(e.children()).forEach(c -> collectInAggregateFunctions(c, calls));
    }
  }

  /** Calls in the sides of the join condition's equalities: the join keys, read for every row. */
  private void collectInJoinKeys(Expression condition, List<ScalaUDF> calls) {
    if (condition instanceof And) {
      collectInJoinKeys(((And) condition).left(), calls);
      collectInJoinKeys(((And) condition).right(), calls);
    } else if (condition instanceof EqualTo || condition instanceof EqualNullSafe) {
      ScalaCollections.asJava(condition.children()).forEach(c -> collect(c, calls));
    }
  }

  private void collect(Expression e, List<ScalaUDF> calls) {
    if (batchable(e)) {
      if (indexOf(calls, e) < 0) {
        calls.add((ScalaUDF) e);
      }
      return;
    }
    if (e instanceof ConditionalExpression
        || e instanceof And
        || e instanceof Or
        || e instanceof HigherOrderFunction) {
      return;
    }
    ScalaCollections.asJava(e.children()).forEach(c -> collect(c, calls));
  }

  private boolean batchable(Expression e) {
    if (!(e instanceof ScalaUDF) || !(((ScalaUDF) e).function() instanceof TokenCall)) {
      return false;
    }
    Expression argument = ((ScalaUDF) e).children().head();
    return worthBatching.test((TokenCall) ((ScalaUDF) e).function())
        && argument.find((Function1<Expression, Object>) this::batchable).isEmpty();
  }

  /** Each of {@code calls}, wherever it occurs, replaced by its result column. */
  private static PartialFunction<Expression, Expression> replacing(
      List<ScalaUDF> calls, List<Attribute> results) {
    return ScalaCollections.total(
        (Expression x) -> {
          int at = indexOf(calls, x);
          return at < 0 ? x : results.get(at);
        });
  }

  private static int indexOf(List<ScalaUDF> calls, Expression e) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).semanticEquals(e)) {
        return i;
      }
    }
    return -1;
  }

  private static Alias alias(Expression child, String name, ExprId id, Metadata metadata) {
    return new Alias(
        child,
        name,
        id,
        ScalaCollections.asScalaList(List.of()),
        Option.apply(metadata),
        ScalaCollections.asScalaList(List.of()));
  }

  /** The token calls of a partition function, if it is the one this rule plans; else none. */
  static List<TokenCall> callsOf(Object function) {
    return function instanceof BatchedCalls ? List.of(((BatchedCalls) function).calls) : List.of();
  }

  /** How many rows a partition function this rule plans puts in one batch, or 0 for another. */
  static int batchSizeOf(Object function) {
    return function instanceof BatchedCalls ? ((BatchedCalls) function).batchSize : 0;
  }

  /** Per partition: rows in batches; each call's values of a batch go in one request. */
  private static final class BatchedCalls
      extends AbstractFunction1<scala.collection.Iterator<Row>, scala.collection.Iterator<Row>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final TokenCall[] calls;
    private final int width;
    private final int batchSize;

    BatchedCalls(TokenCall[] calls, int width, int batchSize) {
      this.calls = calls;
      this.width = width;
      this.batchSize = batchSize;
    }

    @Override
    public scala.collection.Iterator<Row> apply(scala.collection.Iterator<Row> rows) {
      java.util.Iterator<Row> in = ScalaCollections.asJava(rows);
      return ScalaCollections.asScala(
          new java.util.Iterator<Row>() {
            private final Object[][] batch = new Object[batchSize][];
            private final Object[] values = new Object[batchSize];
            private int size;
            private int next;

            @Override
            public boolean hasNext() {
              if (next < size) {
                return true;
              }
              fill();
              return next < size;
            }

            @Override
            public Row next() {
              if (!hasNext()) {
                throw new NoSuchElementException();
              }
              Object[] fields = batch[next];
              batch[next++] = null;
              return RowFactory.create(fields);
            }

            private void fill() {
              size = 0;
              next = 0;
              while (size < batchSize && in.hasNext()) {
                Row row = in.next();
                Object[] fields = new Object[width + calls.length];
                for (int j = 0; j < fields.length; j++) {
                  fields[j] = row.get(j);
                }
                batch[size++] = fields;
              }
              for (int i = 0; i < calls.length && size > 0; i++) {
                for (int r = 0; r < size; r++) {
                  values[r] = batch[r][width + i];
                }
                calls[i].applyAll(values, size);
                for (int r = 0; r < size; r++) {
                  batch[r][width + i] = values[r];
                }
              }
            }
          });
    }
  }
}
