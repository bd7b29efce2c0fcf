/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures every log line of every logger at INFO and above while open, each with the messages of
 * its exception chain. The console keeps showing WARN and above only.
 */
public final class LogCapture implements AutoCloseable {
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final LoggerContext context;
  private final LoggerConfig root;
  private final Level previousLevel;
  private final List<Appender> consoles = new ArrayList<>();
  private final Appender appender;

  public LogCapture() {
    this.context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    this.root = config.getRootLogger();
    this.previousLevel = root.getLevel();
    this.appender =
        new AbstractAppender(
            "capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            StringBuilder line = new StringBuilder();
            line.append(event.getLevel()).append(' ').append(event.getLoggerName()).append(": ");
            line.append(event.getMessage().getFormattedMessage());
            for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
              line.append(" | ").append(t);
              for (Throwable s : t.getSuppressed()) {
                line.append(" | suppressed ").append(s);
              }
            }
            lines.add(line.toString());
          }
        };
    appender.start();
    // the console stays at WARN while the root logger lets INFO through to the capture
    for (Appender existing : root.getAppenders().values()) {
      consoles.add(existing);
      root.removeAppender(existing.getName());
      root.addAppender(existing, Level.WARN, null);
    }
    root.addAppender(appender, Level.INFO, null);
    root.setLevel(Level.INFO);
    context.updateLoggers();
  }

  /** The captured lines so far. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    root.removeAppender(appender.getName());
    for (Appender console : consoles) {
      root.removeAppender(console.getName());
      root.addAppender(console, null, null);
    }
    root.setLevel(previousLevel);
    context.updateLoggers();
    appender.stop();
  }
}
