/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.AbstractConfiguration;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Copies everything the test JVM (Spark driver and executors in local mode) logs through Log4j to a
 * file in {@code target/it-logs}, with stack traces, so a test can search it for secrets. While
 * open, {@code io.icebergprotector} logs at DEBUG.
 */
public final class DriverLogCapture implements AutoCloseable {
  private static final String LOGGER = "io.icebergprotector";

  private final Path file;
  private final Writer out;
  private final Appender appender;
  private final Level previousLevel;
  private final boolean createdLoggerConfig;

  private DriverLogCapture(Path file) throws IOException {
    this.file = file;
    this.out =
        Files.newBufferedWriter(
            file,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
    this.appender = new Appender(out);
    appender.start();
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    config.addAppender(appender);
    config.getRootLogger().addAppender(appender, null, null);
    LoggerConfig own = config.getLoggerConfig(LOGGER);
    this.createdLoggerConfig = !own.getName().equals(LOGGER);
    if (createdLoggerConfig) {
      own = new LoggerConfig(LOGGER, Level.DEBUG, true);
      config.addLogger(LOGGER, own);
    }
    this.previousLevel = own.getLevel();
    own.setLevel(Level.DEBUG);
    context.updateLoggers();
  }

  /** Starts copying to {@code target/it-logs/<name>.log}. */
  public static DriverLogCapture start(String name) {
    Path file = ItPaths.logsDir().resolve(name + ".log");
    try {
      return new DriverLogCapture(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  public Path file() {
    return file;
  }

  /** Flushes and returns what was captured so far. */
  public String text() {
    synchronized (out) {
      try {
        out.flush();
        return Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file, e);
      }
    }
  }

  @Override
  public void close() {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    config.getRootLogger().removeAppender(appender.getName());
    if (config instanceof AbstractConfiguration) {
      ((AbstractConfiguration) config).removeAppender(appender.getName());
    }
    if (createdLoggerConfig) {
      config.removeLogger(LOGGER);
    } else {
      config.getLoggerConfig(LOGGER).setLevel(previousLevel);
    }
    context.updateLoggers();
    appender.stop();
    synchronized (out) {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot close " + file, e);
      }
    }
  }

  private static final class Appender extends AbstractAppender {
    private final Writer out;

    Appender(Writer out) {
      super("it-driver-log-capture", null, null, true, Property.EMPTY_ARRAY);
      this.out = out;
    }

    @Override
    public void append(LogEvent event) {
      StringWriter line = new StringWriter();
      line.append(String.valueOf(event.getTimeMillis()))
          .append(' ')
          .append(event.getLevel().name())
          .append(' ')
          .append(event.getLoggerName())
          .append(": ")
          .append(event.getMessage().getFormattedMessage())
          .append(System.lineSeparator());
      if (event.getThrown() != null) {
        event.getThrown().printStackTrace(new PrintWriter(line));
      }
      synchronized (out) {
        try {
          out.write(line.toString());
        } catch (IOException e) {
          // a lost log line must not fail the code that logged it
        }
      }
    }
  }
}
