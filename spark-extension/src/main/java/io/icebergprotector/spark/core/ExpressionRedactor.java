/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Renders Iceberg filters for log lines, exception messages and scan descriptions without the
 * literals compared with protected columns: {@code ref(name="ssn") == <redacted>}. A predicate is
 * redacted when its term references a protected field id, or a column the schema does not know;
 * predicates on other columns keep their literals. The output has the form of Iceberg's own {@code
 * toString}, so messages read the same with and without protection.
 *
 * <p>{@link #redact(RuntimeException, Expression)} cleans exceptions that Iceberg builds around
 * such a filter (for example a {@code ValidationException} from a conflicting overwrite).
 */
public final class ExpressionRedactor {
  public static final String REDACTED = "<redacted>";

  private static final ExpressionRedactor ALL = new ExpressionRedactor(null, Set.of());

  /** Operators as Iceberg's predicates print them. */
  private static final Map<Expression.Operation, String> SYMBOLS =
      Map.of(
          Expression.Operation.LT, "<",
          Expression.Operation.LT_EQ, "<=",
          Expression.Operation.GT, ">",
          Expression.Operation.GT_EQ, ">=",
          Expression.Operation.EQ, "==",
          Expression.Operation.NOT_EQ, "!=",
          Expression.Operation.STARTS_WITH, "startsWith",
          Expression.Operation.NOT_STARTS_WITH, "notStartsWith");

  /** Null means: no column is known, every predicate is redacted. */
  private final Schema schema;

  private final Set<Integer> protectedIds;

  private ExpressionRedactor(Schema schema, Set<Integer> protectedIds) {
    this.schema = schema;
    this.protectedIds = Set.copyOf(protectedIds);
  }

  /**
   * @param schema the schema the filters' column names and field ids refer to
   * @param protectedIds protected field ids, with every field nested below one
   */
  public static ExpressionRedactor of(Schema schema, Set<Integer> protectedIds) {
    return new ExpressionRedactor(
        Objects.requireNonNull(schema, "schema"), Objects.requireNonNull(protectedIds, "ids"));
  }

  /** Redacts the literals of the protected columns of {@code spec} in {@code schema}. */
  public static ExpressionRedactor forSpec(ProtectionSpec spec, Schema schema) {
    return of(schema, spec.protectedFieldIds(schema));
  }

  /** Redacts every literal, for filters whose table protection is not at hand. */
  public static ExpressionRedactor all() {
    return ALL;
  }

  /** The filter in Iceberg's notation, literals of protected columns replaced. */
  public String redact(Expression filter) {
    return filter == null ? "null" : ExpressionVisitors.visit(filter, new Renderer());
  }

  /** Like {@code List.toString()} of the filters, each one redacted. */
  public String redact(Collection<? extends Expression> filters) {
    return filters.stream().map(this::redact).collect(Collectors.joining(", ", "[", "]"));
  }

  /**
   * The exception with every message in its cause chain (and its suppressed exceptions) cleaned of
   * the protected literals of {@code filter}: each is rebuilt as the same exception type with the
   * redacted message and the original stack trace. Returns {@code e} itself when nothing in it
   * names such a literal.
   */
  public RuntimeException redact(RuntimeException e, Expression filter) {
    if (e == null || filter == null) {
      return e;
    }
    Renderer renderer = new Renderer();
    String redacted = ExpressionVisitors.visit(filter, renderer);
    Map<String, String> replacements = new LinkedHashMap<>();
    replacements.put(filter.toString(), redacted);
    replacements.putAll(renderer.predicates);
    MessageCleaner cleaner = new MessageCleaner(replacements, renderer.literals);
    if (cleaner.isEmpty()) {
      return e;
    }
    Throwable cleaned = cleaner.clean(e, new IdentityHashMap<>());
    return cleaned instanceof RuntimeException
        ? (RuntimeException) cleaned
        : new ProtectorException(String.valueOf(cleaned.getMessage()), cleaned);
  }

  private boolean isProtected(String name) {
    if (schema == null) {
      return true;
    }
    Types.NestedField field = schema.caseInsensitiveFindField(name);
    return field == null || protectedIds.contains(field.fieldId());
  }

  private Type typeOf(String name) {
    Types.NestedField field = schema == null ? null : schema.caseInsensitiveFindField(name);
    return field == null ? null : field.type();
  }

  /** Renders a filter and collects what a message may contain of its protected predicates. */
  private final class Renderer extends ExpressionVisitors.ExpressionVisitor<String> {
    private final Map<String, String> predicates = new LinkedHashMap<>();
    private final Set<String> literals = new LinkedHashSet<>();

    @Override
    public String alwaysTrue() {
      return "true";
    }

    @Override
    public String alwaysFalse() {
      return "false";
    }

    @Override
    public String not(String child) {
      return "not(" + child + ")";
    }

    @Override
    public String and(String left, String right) {
      return "(" + left + " and " + right + ")";
    }

    @Override
    public String or(String left, String right) {
      return "(" + left + " or " + right + ")";
    }

    @Override
    public <T> String predicate(BoundPredicate<T> pred) {
      int fieldId = pred.term().ref().fieldId();
      boolean hidden = schema == null || protectedIds.contains(fieldId);
      if (!hidden || !hasLiteral(pred.op())) {
        return pred.toString();
      }
      if (pred.isLiteralPredicate()) {
        addValue(pred.asLiteralPredicate().literal().value());
        literals.add(pred.asLiteralPredicate().literal().toString());
      } else if (pred.isSetPredicate()) {
        pred.asSetPredicate().literalSet().forEach(this::addValue);
      }
      return record(pred.toString(), render(pred.term().toString(), pred.op()));
    }

    @Override
    public <T> String predicate(UnboundPredicate<T> pred) {
      String name = pred.term().ref().name();
      if (!hasLiteral(pred.op()) || !isProtected(name)) {
        return pred.toString();
      }
      Type type = typeOf(name);
      List<Literal<T>> values =
          pred.op() == Expression.Operation.IN || pred.op() == Expression.Operation.NOT_IN
              ? pred.literals()
              : List.of(pred.literal());
      for (Literal<T> literal : values) {
        literals.add(literal.toString());
        addValue(literal.value());
        if (type != null && type.isPrimitiveType()) {
          // bound forms print the converted value (dates as days, timestamps as micros)
          Literal<?> converted = literal.to(type);
          if (converted != null) {
            literals.add(converted.toString());
            addValue(converted.value());
          }
        }
      }
      return record(pred.toString(), render(pred.term().toString(), pred.op()));
    }

    private void addValue(Object value) {
      String text = String.valueOf(value);
      literals.add(text);
      if (value instanceof CharSequence) {
        literals.add("\"" + text + "\"");
      }
    }

    private String record(String original, String redacted) {
      predicates.put(original, redacted);
      return redacted;
    }
  }

  private static boolean hasLiteral(Expression.Operation op) {
    switch (op) {
      case IS_NULL:
      case NOT_NULL:
      case IS_NAN:
      case NOT_NAN:
        return false;
      default:
        return true;
    }
  }

  private static String render(String term, Expression.Operation op) {
    if (op == Expression.Operation.IN) {
      return term + " in (" + REDACTED + ")";
    } else if (op == Expression.Operation.NOT_IN) {
      return term + " not in (" + REDACTED + ")";
    }
    String symbol = SYMBOLS.getOrDefault(op, op.name().toLowerCase(Locale.ROOT));
    return term + " " + symbol + " " + REDACTED;
  }

  /** Replaces filter and predicate texts, then any remaining literal as a whole token. */
  private static final class MessageCleaner {
    private final List<Map.Entry<String, String>> texts;
    private final List<Pattern> literals;

    MessageCleaner(Map<String, String> replacements, Set<String> literalForms) {
      this.texts =
          replacements.entrySet().stream()
              .filter(entry -> !entry.getKey().equals(entry.getValue()))
              .sorted(
                  Comparator.comparingInt((Map.Entry<String, String> en) -> -en.getKey().length()))
              .collect(Collectors.toList());
      this.literals = new ArrayList<>();
      literalForms.stream()
          .filter(form -> !form.isEmpty())
          .sorted(Comparator.comparingInt(form -> -form.length()))
          .forEach(
              form ->
                  // not inside a longer word or number: "5" must not hit "file-15.parquet"
                  literals.add(
                      Pattern.compile(
                          "(?<![\\p{Alnum}_.])" + Pattern.quote(form) + "(?![\\p{Alnum}_])")));
    }

    boolean isEmpty() {
      return texts.isEmpty() && literals.isEmpty();
    }

    String clean(String message) {
      if (message == null) {
        return null;
      }
      String result = message;
      for (Map.Entry<String, String> text : texts) {
        result = result.replace(text.getKey(), text.getValue());
      }
      for (Pattern literal : literals) {
        result = literal.matcher(result).replaceAll(Matcher.quoteReplacement(REDACTED));
      }
      return result;
    }

    Throwable clean(Throwable t, IdentityHashMap<Throwable, Throwable> seen) {
      if (seen.containsKey(t)) {
        return seen.get(t);
      }
      seen.put(t, t);
      String message = t.getMessage();
      String cleanedMessage = clean(message);
      Throwable cause = t.getCause();
      Throwable cleanedCause = cause == null || cause == t ? null : clean(cause, seen);
      Throwable[] suppressed = t.getSuppressed();
      Throwable[] cleanedSuppressed = new Throwable[suppressed.length];
      boolean changed = !Objects.equals(message, cleanedMessage) || cleanedCause != cause;
      for (int i = 0; i < suppressed.length; i++) {
        cleanedSuppressed[i] = clean(suppressed[i], seen);
        changed |= cleanedSuppressed[i] != suppressed[i];
      }
      if (!changed) {
        return t;
      }
      Throwable copy = sameType(t, cleanedMessage);
      copy.setStackTrace(t.getStackTrace());
      if (cleanedCause != null) {
        try {
          copy.initCause(cleanedCause);
        } catch (IllegalStateException e) {
          // the constructor fixed a cause of its own; the cleaned one goes along as suppressed
          copy.addSuppressed(cleanedCause);
        }
      }
      for (Throwable s : cleanedSuppressed) {
        copy.addSuppressed(s);
      }
      seen.put(t, copy);
      return copy;
    }

    /** A new exception of t's class with the message; the cause is left to initCause. */
    private static Throwable sameType(Throwable t, String message) {
      Class<? extends Throwable> type = t.getClass();
      try {
        // Iceberg's exceptions take a format string and arguments
        Constructor<? extends Throwable> formatted =
            type.getConstructor(String.class, Object[].class);
        return formatted.newInstance("%s", new Object[] {message});
      } catch (NoSuchMethodException e) {
        // fall through to the plain message constructor
      } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
        return fallback(t, message);
      }
      try {
        return type.getConstructor(String.class).newInstance(message);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return fallback(t, message);
      }
    }

    private static Throwable fallback(Throwable t, String message) {
      return new ProtectorException(t.getClass().getName() + ": " + message);
    }
  }
}
