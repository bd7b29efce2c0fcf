/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.policy.Principal;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.spark.TaskContext;

/**
 * The principal a scan was resolved for, and how an executor tells whether the session running a
 * task still acts as that principal. With the key server a session's principal is its token and
 * cannot change; in local mode a session names its principal in its settings, which Spark hands to
 * every task of a SQL execution. A plan that was built (or cached) as one principal and executed
 * after the session switched to another is refused here, on the executor, before a file is opened.
 */
public final class PrincipalBinding implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final String EXECUTION_ID = "spark.sql.execution.id";

  private final String catalogName;
  private final String table;
  // what the binding guards, for messages: "a plan over protected table db.t"
  private final String subject;
  private final String user;
  private final List<String> groups;
  private final boolean fixed;
  private final String configuredUser;
  private final List<String> configuredGroups;
  private final String fallbackUser;
  private transient Long checkedTaskAttempt;

  PrincipalBinding(
      String catalogName,
      String table,
      String subject,
      Principal principal,
      boolean fixed,
      String configuredUser,
      List<String> configuredGroups,
      String fallbackUser) {
    this.catalogName = catalogName;
    this.table = table;
    this.subject = subject;
    this.user = principal.user();
    this.groups = List.copyOf(principal.groups());
    this.fixed = fixed;
    this.configuredUser = configuredUser;
    this.configuredGroups = configuredGroups == null ? List.of() : List.copyOf(configuredGroups);
    this.fallbackUser = fallbackUser;
  }

  public Principal principal() {
    return Principal.of(user, groups);
  }

  public String catalogName() {
    return catalogName;
  }

  /** The table (or, for a token function, the call) the binding was made for (for messages). */
  public String table() {
    return table;
  }

  /** Whether a session may switch principals (local mode), so tasks must check theirs. */
  public boolean switchable() {
    return !fixed;
  }

  /**
   * Refuses the current task when its session's settings name another principal than this binding.
   * Tasks outside a SQL execution (no settings propagated) are not checked.
   */
  public void checkTask() {
    if (fixed) {
      return;
    }
    TaskContext task = TaskContext.get();
    if (task == null || task.getLocalProperty(EXECUTION_ID) == null) {
      return;
    }
    long attempt = task.taskAttemptId();
    if (checkedTaskAttempt != null && checkedTaskAttempt == attempt) {
      return;
    }
    Principal executing = executingPrincipal(task::getLocalProperty);
    if (!executing.equals(principal())) {
      throw mismatch(executing);
    }
    checkedTaskAttempt = attempt;
  }

  /** The principal the settings of a task name, by the catalog's rules for local mode. */
  Principal executingPrincipal(java.util.function.Function<String, String> settings) {
    return ProtectorContext.localPrincipal(
        settings, catalogName, configuredUser, configuredGroups, fallbackUser);
  }

  public ProtectorException mismatch(Principal executing) {
    return new ProtectorException(
        String.format(
            "Refusing to run %s that was resolved for principal '%s' %s in a session that now acts"
                + " as '%s' %s (catalog %s): a plan, view or cached result never carries one"
                + " principal's view or keys to another. Build the query again (and uncache data"
                + " cached as another principal).",
            subject, user, groups, executing.user(), executing.groups(), catalogName));
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof PrincipalBinding)) {
      return false;
    }
    PrincipalBinding other = (PrincipalBinding) o;
    return catalogName.equals(other.catalogName)
        && user.equals(other.user)
        && groups.equals(other.groups);
  }

  @Override
  public int hashCode() {
    return Objects.hash(catalogName, user, groups);
  }

  @Override
  public String toString() {
    return user + groups + "@" + catalogName;
  }
}
