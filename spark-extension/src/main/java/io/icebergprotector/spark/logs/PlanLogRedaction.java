/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.logs;

import java.beans.PropertyChangeListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.UnaryOperator;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the literals of queries over protected data out of the driver and executor logs. Spark's
 * planner logs a scan's pushed and post-scan filters at INFO ({@code V2ScanRelationPushDown},
 * {@code FileSourceStrategy}), literals included, Spark's Parquet readers log parquet-java's filter
 * predicate ({@code FilterCompat}), and clusters keep their logs at INFO. This installs a {@link
 * RedactingLoggerConfig} over every logger under {@link #PREFIXES} in the Log4j 2 configuration,
 * again after each reconfiguration: their events reach every appender with the literals registered
 * in {@link SensitiveLiterals} redacted, and parquet-java's predicates without any value ({@link
 * ParquetPredicateText}). The session extension installs it on the driver, the path readers' crypto
 * factory on executors.
 */
public final class PlanLogRedaction {
  private static final String PARQUET = "org.apache.parquet";

  /** The loggers whose messages are redacted, with every logger below them. */
  public static final List<String> PREFIXES =
      List.of("org.apache.spark.sql", "org.apache.iceberg", PARQUET);

  private static final Logger LOG = LoggerFactory.getLogger(PlanLogRedaction.class);

  // the Log4j contexts this installed into, each with its reconfiguration listener
  private static final Set<LoggerContext> CONTEXTS =
      Collections.newSetFromMap(Collections.synchronizedMap(new WeakHashMap<>()));

  private PlanLogRedaction() {}

  /**
   * Installs the redaction into the Log4j 2 context of this class's callers, once. Where the
   * logging backend is not Log4j 2's core, says so once at WARN and installs nothing.
   */
  public static void install() {
    LoggerContext context;
    try {
      org.apache.logging.log4j.spi.LoggerContext spi = LogManager.getContext(false);
      if (!(spi instanceof LoggerContext)) {
        warnOnce(spi.getClass().getName());
        return;
      }
      context = (LoggerContext) spi;
    } catch (LinkageError e) {
      warnOnce(String.valueOf(e));
      return;
    }
    if (!CONTEXTS.add(context)) {
      return;
    }
    try {
      listenAndInstall(context);
    } catch (RuntimeException e) {
      // logging must never fail a session or a read; say once that the redaction is missing
      warnOnce(String.valueOf(e));
    }
  }

  private static void listenAndInstall(LoggerContext context) {
    PropertyChangeListener reinstall =
        change -> {
          if (LoggerContext.PROPERTY_CONFIG.equals(change.getPropertyName())
              && change.getNewValue() instanceof Configuration) {
            // updateLoggers fires this event again: it finds everything installed and stops
            if (installInto((Configuration) change.getNewValue(), SensitiveLiterals.global())) {
              context.updateLoggers();
            }
          }
        };
    context.addPropertyChangeListener(reinstall);
    installInto(context.getConfiguration(), SensitiveLiterals.global());
    context.updateLoggers();
  }

  /**
   * Puts a redacting configuration at each prefix and in place of every one below it; true when it
   * changed anything.
   */
  static boolean installInto(Configuration configuration, SensitiveLiterals literals) {
    Map<String, LoggerConfig> existing = configuration.getLoggers();
    List<String> names = new ArrayList<>(PREFIXES);
    for (String name : existing.keySet()) {
      for (String prefix : PREFIXES) {
        if (name.startsWith(prefix + ".")) {
          names.add(name);
        }
      }
    }
    boolean changed = false;
    for (String name : names) {
      LoggerConfig current = configuration.getLoggers().get(name);
      if (current instanceof RedactingLoggerConfig) {
        continue;
      }
      changed = true;
      UnaryOperator<String> redaction =
          name.startsWith(PARQUET)
              ? text -> ParquetPredicateText.redact(literals.redact(text))
              : literals::redact;
      RedactingLoggerConfig redacting = RedactingLoggerConfig.replacing(name, current, redaction);
      if (current != null) {
        configuration.removeLogger(name);
      }
      configuration.addLogger(name, redacting);
    }
    return changed;
  }

  private static boolean warned;

  private static synchronized void warnOnce(String backend) {
    if (!warned) {
      warned = true;
      LOG.warn(
          "Cannot redact protected literals from Spark's plan log lines: the logging backend is"
              + " not Log4j 2 ({}); keep org.apache.spark.sql at WARN",
          backend);
    }
  }
}
