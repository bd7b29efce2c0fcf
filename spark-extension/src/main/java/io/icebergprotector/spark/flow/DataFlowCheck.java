/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.paths.PathScope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SQLExecution;
import scala.Function1;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Check rule on every analyzed write: the data a write stores must not be a protector view, and
 * must not leave protection by accident. On the driver, before any file is written, it refuses
 *
 * <ul>
 *   <li>a masked or denied view of a protected column (or any expression over one) stored into a
 *       protected column: the masks or NULLs would replace the real values;
 *   <li>a protected column's values, clear or masked (or any expression over them but {@code
 *       count}), stored where that column is not protected: a table outside the policy, an
 *       unprotected column, a non-Iceberg table, a path outside every protected prefix. Such a
 *       declassification is allowed only for a principal holding a {@code declassify} role of every
 *       source entry, in a session that sets {@code spark.protector.declassify}{@code =true}; it
 *       then passes the key service's {@link DeclassificationGate}.
 * </ul>
 *
 * Denied columns stored where they are not protected store NULLs and disclose nothing: allowed.
 */
public final class DataFlowCheck extends AbstractFunction1<LogicalPlan, BoxedUnit> {
  // On the query of an approved declassifying write: its sources and principals.
  private static final TreeNodeTag<String> APPROVED =
      new TreeNodeTag<>("iceberg-protector.declassification-approved");

  private final SparkSession session;

  public DataFlowCheck(SparkSession session) {
    this.session = session;
  }

  /** For {@code SparkSessionExtensions.injectCheckRule}. */
  public static Function1<LogicalPlan, BoxedUnit> forSession(SparkSession session) {
    return new DataFlowCheck(session);
  }

  @Override
  public BoxedUnit apply(LogicalPlan plan) {
    if (!PlanWrites.hasWrite(plan)) {
      return BoxedUnit.UNIT;
    }
    Supplier<Optional<PathScope>> scope = memoize(() -> PathScope.fromSession(session));
    FlowSources sources = new SessionFlowSources(session, scope);
    for (PlanWrites.Write write : new PlanWrites(session, scope).find(plan)) {
      check(write, sources);
    }
    return BoxedUnit.UNIT;
  }

  /** A flow stored at a destination column (or a field inside one). */
  private record Stored(String column, Flow flow) {}

  private void check(PlanWrites.Write write, FlowSources sources) {
    List<Set<Flow>> lineage = PlanLineage.of(write.query(), sources, write.rowConditions());
    List<Stored> views = new ArrayList<>();
    List<Stored> declassified = new ArrayList<>();
    for (int i = 0; i < lineage.size() && i < write.columns().size(); i++) {
      String column = write.columns().get(i);
      if (column == null) {
        continue; // an operation or metadata column of a row-level write
      }
      for (Flow flow : lineage.get(i)) {
        String path =
            flow.subPath().isEmpty() ? column : column + "." + String.join(".", flow.subPath());
        boolean covered = write.destination().protects(path);
        if (flow.access() != AccessLevel.CLEAR && covered) {
          if (copiedInPlace(flow, path)) {
            continue;
          }
          views.add(new Stored(path, flow));
        } else if (flow.access() != AccessLevel.DENIED && !covered) {
          declassified.add(new Stored(path, flow));
        }
      }
    }
    if (!views.isEmpty()) {
      throw new ProtectorException(viewsRefused(write.destination(), views) + rddNote(views));
    }
    if (!declassified.isEmpty()) {
      declassify(write, declassified);
    }
  }

  /**
   * A row-level operation writing a column's values back to that column of its own table (the rows
   * copy-on-write rewrites, the rows UPDATE and MERGE change). Whether it may is for the table's
   * own check (RowLevelAccess), made when Spark builds the operation's scan: by then a DELETE that
   * drops whole files through metadata reads and copies nothing, and a copy of a value the
   * principal does not read in clear is refused there, before anything is written.
   */
  private static boolean copiedInPlace(Flow flow, String path) {
    return FlowSource.ROW_LEVEL_SCAN.equals(flow.source().kind())
        && flow.column().equalsIgnoreCase(path);
  }

  private static String viewsRefused(WriteDestination destination, List<Stored> views) {
    Map<String, Set<String>> clearRoles = new LinkedHashMap<>();
    for (Stored stored : views) {
      Flow flow = stored.flow();
      clearRoles.put(
          "'" + flow.column() + "' of " + flow.source().describe(),
          flow.source().clearRoles(flow.policyColumn()));
    }
    return String.format(
        "Cannot write to %s: it would store protector views as data, in place of the values they"
            + " stand for: %s. A protected column takes only values read in clear: read them as a"
            + " principal with a role that sees them in clear (%s), or leave them out of the write"
            + " (a literal NULL is fine)",
        destination.description(),
        views.stream().map(DataFlowCheck::describe).collect(Collectors.joining("; ")),
        clearRoles.entrySet().stream()
            .map(e -> e.getKey() + ": " + (e.getValue().isEmpty() ? "no role" : e.getValue()))
            .collect(Collectors.joining(", ")));
  }

  private void declassify(PlanWrites.Write write, List<Stored> stored) {
    WriteDestination destination = write.destination();
    Map<FlowSource, Set<String>> columnsBySource = new LinkedHashMap<>();
    for (Stored s : stored) {
      // the policy's names: the key server checks them against the entry
      columnsBySource
          .computeIfAbsent(s.flow().source(), k -> new LinkedHashSet<>())
          .add(s.flow().policyColumn());
    }
    boolean enabled =
        Boolean.parseBoolean(
            session
                .conf()
                .get(CatalogOptions.DECLASSIFY.key(), CatalogOptions.DECLASSIFY.defaultValue())
                .trim());
    boolean entitled =
        columnsBySource.keySet().stream().allMatch(FlowSource::principalMayDeclassify);
    if (!enabled || !entitled) {
      throw new ProtectorException(
          String.format(
                  "Cannot write to %s: it would declassify protected data, storing it where it is not"
                      + " protected: %s. Declassification needs a principal with a declassify role of"
                      + " every source (%s) and the session setting %s=true (%s). To keep the data"
                      + " protected instead, protect these destination columns in the policy",
                  destination.description(),
                  stored.stream().map(DataFlowCheck::describe).collect(Collectors.joining("; ")),
                  columnsBySource.keySet().stream()
                      .map(DataFlowCheck::describeDeclassifiers)
                      .collect(Collectors.joining("; ")),
                  CatalogOptions.DECLASSIFY.key(),
                  enabled ? "set" : "not set")
              + rddNote(stored));
    }
    String approval =
        columnsBySource.keySet().stream()
            .map(source -> source.describe() + " as " + source.principal())
            .collect(Collectors.joining(", "));
    // Spark analyzes a command again when it runs it, and CTAS writes its query again through an
    // inner command while it runs: the same write, approved a moment ago. Log it once.
    boolean running =
        session.sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY()) != null;
    if (approved(write.anchor(), approval) || (running && approved(write.query(), approval))) {
      return;
    }
    String requestId = UUID.randomUUID().toString();
    for (Map.Entry<FlowSource, Set<String>> entry : columnsBySource.entrySet()) {
      FlowSource source = entry.getKey();
      DeclassificationGate.forKeyService(source.kms())
          .authorize(
              new Declassification(
                  requestId,
                  source.principal(),
                  source,
                  List.copyOf(entry.getValue()),
                  destination.description()));
    }
    write.anchor().setTagValue(APPROVED, approval);
    write.query().setTagValue(APPROVED, approval);
  }

  /** Why a column the RDD's code may not have touched is named: the code is not a plan. */
  private static String rddNote(List<Stored> stored) {
    boolean throughRdd =
        stored.stream()
            .map(s -> s.flow().source().kind())
            .anyMatch(k -> FlowSource.RDD_OF_TABLE.equals(k) || FlowSource.RDD_OF_PATH.equals(k));
    return throughRdd
        ? ". A DataFrame made from an RDD carries, in every column, each protected column read"
            + " into the RDD (what the RDD's code did is not known): select only the columns the"
            + " write needs before .rdd(), or stay in DataFrame operations"
        : "";
  }

  private static boolean approved(LogicalPlan node, String approval) {
    return approval.equals(node.getTagValue(APPROVED).getOrElse(() -> null));
  }

  // column 'x' <- column 'ssn' of table prot.db.customers, read by etl as denied (reads as NULL)
  private static String describe(Stored stored) {
    Flow flow = stored.flow();
    return String.format(
        "column '%s' <- column '%s' of %s, read by %s as %s",
        stored.column(),
        flow.column(),
        flow.source().describe(),
        flow.source().principal().user(),
        flow.describeAccess());
  }

  private static String describeDeclassifiers(FlowSource source) {
    Set<String> roles = source.entry().declassifiers();
    return String.format(
        "%s: declassify = %s, which %s %s",
        source.entry().name(),
        roles,
        source.principal().user(),
        source.principalMayDeclassify() ? "holds" : "does not hold");
  }

  static <T> Supplier<T> memoize(Supplier<T> supplier) {
    Object[] value = new Object[1];
    return () -> {
      if (value[0] == null) {
        value[0] = supplier.get();
      }
      @SuppressWarnings("unchecked")
      T result = (T) value[0];
      return result;
    };
  }
}
