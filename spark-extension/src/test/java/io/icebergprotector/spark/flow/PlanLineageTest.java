/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.testing.TestPolicy;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Exists;
import org.apache.spark.sql.catalyst.expressions.Explode;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSubquery;
import org.apache.spark.sql.catalyst.expressions.Length;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.ListQuery;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.OuterReference;
import org.apache.spark.sql.catalyst.expressions.Upper;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Complete$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.logical.CTERelationDef;
import org.apache.spark.sql.catalyst.plans.logical.Expand;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Generate;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint$;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Union;
import org.apache.spark.sql.catalyst.plans.logical.WithCTE;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import scala.Option;
import scala.collection.immutable.Seq;

/** The lineage walk on hand-built analyzed plans, with one fake protected source. */
class PlanLineageTest {
  private static final Policy POLICY =
      Policy.parse(
          TestPolicy.resource(PlanLineageTest.class, "policies/PlanLineageTest.conf"),
          "test policy");
  private static final FlowSource SOURCE =
      new FlowSource(
          "table",
          "db.people",
          POLICY.table("db.people").orElseThrow(),
          POLICY,
          Principal.of("alice", List.of()),
          null);
  private static final StructType ADDRESS =
      new StructType().add("city", DataTypes.StringType).add("zip", DataTypes.StringType);

  private final AttributeReference id = attribute("id", DataTypes.LongType);
  private final AttributeReference ssn = attribute("ssn", DataTypes.StringType);
  private final AttributeReference address = attribute("address", ADDRESS);
  private final LogicalPlan people = PlanNodes.localRelation(seq(id, ssn, address));
  private final AttributeReference otherId = attribute("id", DataTypes.LongType);
  private final AttributeReference name = attribute("name", DataTypes.StringType);
  private final LogicalPlan plain = PlanNodes.localRelation(seq(otherId, name));

  private final FlowSources sources =
      node ->
          node == people
              ? List.of(
                  Set.of(),
                  Set.of(flow("ssn", List.of())),
                  Set.of(flow("address.zip", List.of("zip"))))
              : null;

  private static Flow flow(String column, List<String> subPath) {
    return new Flow(SOURCE, column, column, AccessLevel.MASKED, "redact", subPath);
  }

  private static AttributeReference attribute(String name, DataType type) {
    return new AttributeReference(
        name, type, true, Metadata.empty(), NamedExpression$.MODULE$.newExprId(), seq());
  }

  private static Alias alias(Expression child, String name) {
    return new Alias(
        child, name, NamedExpression$.MODULE$.newExprId(), seq(), Option.empty(), seq());
  }

  private static AggregateExpression aggregate(AggregateFunction function, boolean distinct) {
    return new AggregateExpression(
        function,
        Complete$.MODULE$,
        distinct,
        Option.empty(),
        NamedExpression$.MODULE$.newExprId());
  }

  @SafeVarargs
  private static <T> Seq<T> seq(T... items) {
    return ScalaCollections.asScalaList(Arrays.asList(items));
  }

  private static Project project(LogicalPlan child, NamedExpression... list) {
    return new Project(seq(list), child);
  }

  private static Join join(LogicalPlan left, LogicalPlan right, Expression condition) {
    return new Join(left, right, Inner$.MODULE$, Option.apply(condition), JoinHint$.MODULE$.NONE());
  }

  /** For each output column: the columns flowing in, with their sub-paths. */
  private List<String> lineage(LogicalPlan plan) {
    return PlanLineage.of(plan, sources).stream()
        .map(
            flows ->
                flows.stream()
                    .map(
                        f ->
                            f.column()
                                + (f.subPath().isEmpty()
                                    ? ""
                                    : "@" + String.join(".", f.subPath())))
                    .sorted()
                    .collect(Collectors.joining(",")))
        .collect(Collectors.toList());
  }

  @Test
  void expressionsOverAProtectedColumnCarryIt() {
    LogicalPlan plan =
        project(
            people,
            id,
            alias(new Upper(ssn), "u"),
            alias(new Length(ssn), "n"),
            alias(Literal.create(null, DataTypes.StringType), "nothing"));
    assertThat(lineage(plan)).containsExactly("", "ssn", "ssn", "");
  }

  @Test
  void countsCarryNothingOtherAggregatesDo() {
    LogicalPlan plan =
        PlanNodes.aggregate(
            seq(id),
            seq(
                id,
                alias(aggregate(new Count(seq(ssn)), false), "c"),
                alias(aggregate(new Count(seq(ssn)), true), "d"),
                alias(aggregate(new Max(ssn), false), "m")),
            people);
    assertThat(lineage(plan)).containsExactly("", "", "", "ssn");
  }

  @Test
  void conditionsAreNotFlows() {
    Expression bySsn = new EqualTo(ssn, Literal.create("x", DataTypes.StringType));
    LogicalPlan filtered = project(new Filter(bySsn, people), id);
    assertThat(lineage(filtered)).containsExactly("");
    LogicalPlan joined = project(join(people, plain, new LessThan(ssn, name)), otherId, name, ssn);
    assertThat(lineage(joined)).containsExactly("", "", "ssn");
    // grouping by a protected column that is not output
    LogicalPlan grouped =
        PlanNodes.aggregate(
            seq(ssn), seq(alias(aggregate(new Count(seq(id)), false), "n")), people);
    assertThat(lineage(grouped)).containsExactly("");
  }

  @Test
  void equalitiesTieAColumnToTheProtectedValue() {
    // SELECT name FROM plain JOIN people ON name = ssn: in every row kept, name is the SSN
    LogicalPlan joined = project(join(plain, people, new EqualTo(name, ssn)), otherId, name);
    assertThat(lineage(joined)).containsExactly("", "ssn");
    // <=> and IN ties too, and from a filter over a cross join (WHERE name = upper(ssn))
    LogicalPlan crossed =
        new Join(plain, people, Inner$.MODULE$, Option.empty(), JoinHint$.MODULE$.NONE());
    assertThat(lineage(project(new Filter(new EqualNullSafe(ssn, name), crossed), name)))
        .containsExactly("ssn");
    assertThat(lineage(project(new Filter(new In(name, seq(id, ssn)), crossed), name)))
        .containsExactly("ssn");
    assertThat(lineage(project(new Filter(new EqualTo(name, new Upper(ssn)), crossed), name)))
        .containsExactly("ssn");
  }

  @Test
  void aTieReachesExpressionsComputedBelowTheCondition() {
    // SELECT u FROM (SELECT name, upper(name) AS u FROM plain) JOIN people ON name = ssn
    Alias upper = alias(new Upper(name), "u");
    LogicalPlan below = project(plain, name, upper);
    LogicalPlan plan = project(join(below, people, new EqualTo(name, ssn)), upper.toAttribute());
    assertThat(lineage(plan)).containsExactly("ssn");
  }

  @Test
  void aSubqueryTiesThroughInAndCorrelatedEqualities() {
    // SELECT name FROM plain WHERE name IN (SELECT ssn FROM people)
    LogicalPlan in =
        project(
            new Filter(
                new InSubquery(
                    seq(name),
                    new ListQuery(
                        project(people, ssn),
                        seq(),
                        NamedExpression$.MODULE$.newExprId(),
                        1,
                        seq(),
                        Option.empty())),
                plain),
            name);
    assertThat(lineage(in)).containsExactly("ssn");
    // SELECT name FROM plain WHERE EXISTS (SELECT 1 FROM people WHERE ssn = outer(name))
    LogicalPlan correlated =
        project(
            new Filter(
                new Exists(
                    project(new Filter(new EqualTo(ssn, new OuterReference(name)), people), id),
                    seq(name),
                    NamedExpression$.MODULE$.newExprId(),
                    seq(),
                    Option.empty()),
                plain),
            name);
    assertThat(lineage(correlated)).containsExactly("ssn");
  }

  @Test
  void aDeniedViewTiesToNothing() {
    FlowSources denied =
        node ->
            node == people
                ? List.of(
                    Set.of(),
                    Set.of(new Flow(SOURCE, "ssn", "ssn", AccessLevel.DENIED, null, List.of())),
                    Set.of())
                : null;
    LogicalPlan joined = project(join(plain, people, new EqualNullSafe(name, ssn)), name, ssn);
    assertThat(PlanLineage.of(joined, denied).get(0)).isEmpty();
    assertThat(PlanLineage.of(joined, denied).get(1)).hasSize(1);
  }

  @Test
  void unionIsPositional() {
    LogicalPlan plan =
        new Union(seq(project(plain, otherId, name), project(people, id, ssn)), false, false);
    assertThat(lineage(plan)).containsExactly("", "ssn");
  }

  @Test
  void structFieldsAreTrackedIntoAndOutOfStructs() {
    LogicalPlan plan =
        project(
            people,
            alias(new GetStructField(address, 0, Option.apply("city")), "city"),
            alias(new GetStructField(address, 1, Option.apply("zip")), "zip"),
            address,
            alias(
                new CreateNamedStruct(seq(Literal.create("s", DataTypes.StringType), ssn)),
                "wrapped"),
            alias(new Upper(new GetStructField(address, 1, Option.apply("zip"))), "upper_zip"));
    assertThat(lineage(plan))
        .containsExactly("", "address.zip", "address.zip@zip", "ssn@s", "address.zip");
    // reading a field of the rebuilt struct narrows again
    Attribute wrapped = ScalaCollections.asJava(plan.output()).get(3);
    LogicalPlan outer =
        project(plan, alias(new GetStructField(wrapped, 0, Option.apply("s")), "s"));
    assertThat(lineage(outer)).containsExactly("ssn");
  }

  @Test
  void generatorsExpandAndCtesCarryTheirInputs() {
    AttributeReference element = attribute("element", DataTypes.StringType);
    LogicalPlan exploded =
        new Generate(
            new Explode(new org.apache.spark.sql.catalyst.expressions.CreateArray(seq(ssn), false)),
            seq(),
            false,
            Option.empty(),
            seq(element),
            people);
    assertThat(lineage(project(exploded, element))).containsExactly("ssn");

    AttributeReference value = attribute("value", DataTypes.StringType);
    AttributeReference tag = attribute("tag", DataTypes.IntegerType);
    LogicalPlan expanded =
        new Expand(
            seq(
                seq(ssn, Literal.create(1, DataTypes.IntegerType)),
                seq(
                    Literal.create(null, DataTypes.StringType),
                    Literal.create(2, DataTypes.IntegerType))),
            seq(value, tag),
            people);
    assertThat(lineage(expanded)).containsExactly("ssn", "");

    CTERelationDef def = PlanNodes.cteRelationDef(project(people, ssn), 7L);
    AttributeReference cteSsn = attribute("ssn", DataTypes.StringType);
    LogicalPlan withCte =
        new WithCTE(project(PlanNodes.cteRelationRef(7L, seq(cteSsn)), cteSsn), seq(def));
    assertThat(lineage(withCte)).containsExactly("ssn");
  }
}
