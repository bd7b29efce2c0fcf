/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.logs;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.config.AppenderRef;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.SimpleMessage;
import org.apache.logging.log4j.util.ReadOnlyStringMap;
import org.apache.logging.log4j.util.SortedArrayStringMap;
import org.apache.logging.log4j.util.StringMap;

/**
 * A logger configuration that removes sensitive values from each event's message and context before
 * its appenders and its parents' appenders see it. It takes the place of the configuration of its
 * name (its level, additivity, appenders and filter) or, where there was none, inherits everything
 * from its parent.
 */
final class RedactingLoggerConfig extends LoggerConfig {
  private final UnaryOperator<String> redaction;

  private RedactingLoggerConfig(
      String name, Level level, boolean additive, UnaryOperator<String> redaction) {
    super(name, level, additive);
    this.redaction = redaction;
  }

  /** Takes the place of {@code existing}, or of nothing when it is null. */
  static RedactingLoggerConfig replacing(
      String name, LoggerConfig existing, UnaryOperator<String> redaction) {
    if (existing == null) {
      return new RedactingLoggerConfig(name, null, true, redaction);
    }
    RedactingLoggerConfig config =
        new RedactingLoggerConfig(
            name, existing.getExplicitLevel(), existing.isAdditive(), redaction);
    Map<String, org.apache.logging.log4j.core.Appender> appenders = existing.getAppenders();
    for (AppenderRef ref : existing.getAppenderRefs()) {
      org.apache.logging.log4j.core.Appender appender = appenders.get(ref.getRef());
      if (appender != null) {
        config.addAppender(appender, ref.getLevel(), ref.getFilter());
      }
    }
    if (existing.hasFilter()) {
      config.addFilter(existing.getFilter());
    }
    return config;
  }

  @Override
  protected void log(LogEvent event, LoggerConfigPredicate predicate) {
    super.log(redacted(event), predicate);
  }

  private LogEvent redacted(LogEvent event) {
    if (event.getMessage() instanceof RedactedMessage) {
      return event; // a child configuration redacted it already
    }
    String text = event.getMessage().getFormattedMessage();
    String message = redaction.apply(text);
    StringMap context = redactedContext(event.getContextData());
    if (message == text && context == null) {
      return event;
    }
    Log4jLogEvent.Builder copy = new Log4jLogEvent.Builder(event);
    copy.setMessage(new RedactedMessage(message));
    if (context != null) {
      copy.setContextData(context);
    }
    return copy.build();
  }

  /**
   * The context map with its values redacted, or null when none changes. Spark 4's structured
   * logging puts a message's values (such as the pushed filters) in the context as well.
   */
  private StringMap redactedContext(ReadOnlyStringMap context) {
    if (context == null || context.isEmpty()) {
      return null;
    }
    boolean[] changed = {false};
    SortedArrayStringMap copy = new SortedArrayStringMap(context.size());
    context.forEach(
        (key, value) -> {
          if (value instanceof String) {
            String redacted = redaction.apply((String) value);
            changed[0] |= redacted != value;
            copy.putValue(key, redacted);
          } else {
            copy.putValue(key, value);
          }
        });
    return changed[0] ? copy : null;
  }

  /** A message this class wrote, so that parent configurations leave it as it is. */
  private static final class RedactedMessage extends SimpleMessage {
    private static final long serialVersionUID = 1L;

    RedactedMessage(String message) {
      super(message);
    }
  }
}
