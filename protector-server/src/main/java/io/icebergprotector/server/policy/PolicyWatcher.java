/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.policy;

import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.PolicyException;
import io.icebergprotector.server.audit.AuditLog;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Applies edits of the policy file while the server runs: each {@link #run} reads the file and,
 * when its rules changed (another content digest), installs the new policy and audits {@code
 * policy-change} with the previous and new digests. A file that does not parse or cannot be read
 * leaves the served policy in place; the failure is logged and audited once per distinct file
 * content, naming file and line. Edits that change only comments or layout are not a change.
 */
public final class PolicyWatcher implements Runnable {
  private static final System.Logger LOG = System.getLogger(PolicyWatcher.class.getName());

  private final Path file;
  private final Set<String> adminRoles;
  private final Supplier<ServedPolicy> current;
  private final Consumer<ServedPolicy> install;
  private final AuditLog audit;
  private String lastSeenText; // digest of the last text read, applied or refused

  public PolicyWatcher(
      Path file,
      Set<String> adminRoles,
      Supplier<ServedPolicy> current,
      Consumer<ServedPolicy> install,
      AuditLog audit) {
    this.file = file;
    this.adminRoles = Set.copyOf(adminRoles);
    this.current = current;
    this.install = install;
    this.audit = audit;
    this.lastSeenText = current.get().textDigest();
  }

  /** Records the policy the server starts with, so the audit log names every policy it served. */
  public void auditInitial() {
    ServedPolicy served = current.get();
    try {
      record("policy-load", "allow", null, 200, details(served.digest(), null));
    } catch (UncheckedIOException e) {
      LOG.log(System.Logger.Level.ERROR, "audit write failed for the initial policy", e);
    }
  }

  public String servedDigest() {
    return current.get().digest();
  }

  @Override
  public synchronized void run() {
    String text;
    try {
      text = ServedPolicy.read(file);
    } catch (UncheckedIOException e) {
      refuse(Digests.sha256Hex("unreadable\u0000" + e.getMessage()), e.getMessage());
      return;
    }
    String textDigest = Digests.sha256Hex(text);
    if (textDigest.equals(lastSeenText)) {
      return;
    }
    ServedPolicy next;
    try {
      next = ServedPolicy.parse(text, file, adminRoles);
    } catch (PolicyException e) {
      refuse(textDigest, e.getMessage());
      return;
    }
    ServedPolicy previous = current.get();
    if (next.digest().equals(previous.digest())) {
      lastSeenText = textDigest;
      install.accept(next); // admins read the file as it is now
      LOG.log(System.Logger.Level.INFO, "policy file " + file + " edited; its rules are unchanged");
      return;
    }
    try {
      // Audited before it applies: no decision is made under a policy the log does not name.
      record("policy-change", "allow", null, 200, details(next.digest(), previous.digest()));
    } catch (UncheckedIOException e) {
      LOG.log(
          System.Logger.Level.ERROR,
          "audit write failed; the changed policy " + file + " is not applied yet",
          e);
      return; // the next run tries again
    }
    lastSeenText = textDigest;
    install.accept(next);
    LOG.log(
        System.Logger.Level.INFO,
        "policy " + file + " changed: " + previous.digest() + " -> " + next.digest());
  }

  private void refuse(String textDigest, String message) {
    if (textDigest.equals(lastSeenText)) {
      return; // already refused this content
    }
    lastSeenText = textDigest;
    String reason = "Cannot apply the changed policy, still serving " + current.get().digest();
    LOG.log(System.Logger.Level.ERROR, reason + ": " + message);
    try {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("file", file.toString());
      d.put("serving_digest", current.get().digest());
      record("policy-change", "error", message, 400, d);
    } catch (UncheckedIOException e) {
      LOG.log(System.Logger.Level.ERROR, "audit write failed for a refused policy change", e);
    }
  }

  private Map<String, Object> details(String digest, String previous) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("file", file.toString());
    if (digest != null) {
      d.put("digest", digest);
    }
    if (previous != null) {
      d.put("previous_digest", previous);
    }
    return d;
  }

  private void record(
      String op, String decision, String reason, int status, Map<String, Object> details) {
    audit.record(
        new AuditLog.Event(
            null, null, op, null, null, decision, reason, status, "-", null, details));
  }
}
