/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.core.ExpressionRedactor;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class ExpressionRedactorTest {
  private static final String SSN = "987-65-4329";
  private static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "ssn", Types.StringType.get()),
          optional(
              3,
              "address",
              Types.StructType.of(
                  optional(4, "zip", Types.StringType.get()),
                  optional(5, "city", Types.StringType.get()))),
          optional(6, "born", Types.DateType.get()),
          optional(7, "note", Types.StringType.get()));
  private static final ExpressionRedactor REDACTOR = ExpressionRedactor.of(SCHEMA, Set.of(2, 4, 6));

  @Test
  void protectedLiteralsAreRedactedAndOthersKept() {
    assertThat(REDACTOR.redact(Expressions.equal("ssn", SSN)))
        .isEqualTo("ref(name=\"ssn\") == <redacted>");
    Expression mixed =
        Expressions.and(
            Expressions.equal("id", 5L),
            Expressions.or(
                Expressions.in("SSN", "A-1", "B-2"),
                Expressions.notIn("note", "kept-1", "kept-2")));
    assertThat(REDACTOR.redact(mixed))
        .isEqualTo(
            "(ref(name=\"id\") == 5 and (ref(name=\"SSN\") in (<redacted>)"
                + " or ref(name=\"note\") not in (\"kept-1\", \"kept-2\")))");
    assertThat(REDACTOR.redact(Expressions.not(Expressions.startsWith("address.zip", "994"))))
        .isEqualTo("not(ref(name=\"address.zip\") startsWith <redacted>)");
    assertThat(REDACTOR.redact(Expressions.notIn("ssn", SSN)))
        .isEqualTo("ref(name=\"ssn\") not in (<redacted>)");
    assertThat(REDACTOR.redact(Expressions.lessThanOrEqual("born", "2020-01-01")))
        .isEqualTo("ref(name=\"born\") <= <redacted>");
    assertThat(REDACTOR.redact(Expressions.greaterThan("address.city", "Springfield")))
        .isEqualTo("ref(name=\"address.city\") > \"Springfield\"");
    // no literal to hide; the expression reads as Iceberg prints it
    assertThat(REDACTOR.redact(Expressions.isNull("ssn"))).isEqualTo("is_null(ref(name=\"ssn\"))");
    assertThat(REDACTOR.redact(Expressions.alwaysTrue())).isEqualTo("true");
    assertThat(REDACTOR.redact(List.of(Expressions.equal("ssn", SSN), Expressions.equal("id", 7L))))
        .isEqualTo("[ref(name=\"ssn\") == <redacted>, ref(name=\"id\") == 7]");
  }

  @Test
  void unknownColumnsTransformsAndBoundPredicatesAreRedacted() {
    assertThat(REDACTOR.redact(Expressions.equal("missing", "m-1")))
        .isEqualTo("ref(name=\"missing\") == <redacted>");
    assertThat(REDACTOR.redact(Expressions.equal(Expressions.truncate("ssn", 3), "987")))
        .isEqualTo("truncate[3](ref(name=\"ssn\")) == <redacted>");
    Expression bound = Binder.bind(SCHEMA.asStruct(), Expressions.equal("ssn", SSN), true);
    assertThat(REDACTOR.redact(bound)).doesNotContain(SSN).endsWith(" == <redacted>");
    Expression boundSet =
        Binder.bind(SCHEMA.asStruct(), Expressions.in("ssn", SSN, "other-ssn-1"), true);
    assertThat(REDACTOR.redact(boundSet)).doesNotContain(SSN).endsWith(" in (<redacted>)");
    Expression boundId = Binder.bind(SCHEMA.asStruct(), Expressions.equal("id", 42L), true);
    assertThat(REDACTOR.redact(boundId)).endsWith(" == 42");
    assertThat(ExpressionRedactor.all().redact(Expressions.equal("id", 42L)))
        .isEqualTo("ref(name=\"id\") == <redacted>");
  }

  @Test
  void exceptionMessagesAreRedactedThroughTheCauseChain() {
    Expression filter =
        Expressions.and(Expressions.equal("ssn", SSN), Expressions.lessThan("born", "2020-01-01"));
    ValidationException iceberg =
        new ValidationException(
            "Found conflicting files that can contain records matching %s: %s",
            filter, "[file:/w/db/t/data/00005-1.parquet]");
    // a message that quotes the bound form: a date literal prints as days since the epoch
    RuntimeException wrapped =
        new IllegalStateException(
            "Failed on ref(id=6, accessor-type=int) < 18262 and ssn " + SSN, iceberg);
    wrapped.addSuppressed(new CommitFailedException("Retry of %s failed", filter));

    RuntimeException redacted = REDACTOR.redact(wrapped, filter);

    assertThat(redacted).isExactlyInstanceOf(IllegalStateException.class).isNotSameAs(wrapped);
    assertThat(redacted.getStackTrace()).isEqualTo(wrapped.getStackTrace());
    assertThat(redacted.getMessage())
        .isEqualTo("Failed on ref(id=6, accessor-type=int) < <redacted> and ssn <redacted>");
    assertThat(redacted.getCause()).isExactlyInstanceOf(ValidationException.class);
    assertThat(redacted.getCause().getStackTrace()).isEqualTo(iceberg.getStackTrace());
    assertThat(redacted.getCause().getMessage())
        .isEqualTo(
            "Found conflicting files that can contain records matching (ref(name=\"ssn\") =="
                + " <redacted> and ref(name=\"born\") < <redacted>):"
                + " [file:/w/db/t/data/00005-1.parquet]");
    assertThat(redacted.getSuppressed()).hasSize(1);
    assertThat(redacted.getSuppressed()[0])
        .isExactlyInstanceOf(CommitFailedException.class)
        .hasMessageContaining("<redacted>")
        .hasMessageNotContaining(SSN);
    for (Throwable t = redacted; t != null; t = t.getCause()) {
      assertThat(t.getMessage()).doesNotContain(SSN).doesNotContain("2020-01-01");
    }
  }

  @Test
  void exceptionsWithoutProtectedLiteralsAreKept() {
    Expression filter = Expressions.equal("id", 5L);
    ValidationException e = new ValidationException("Found conflicting files matching %s", filter);
    assertThat(REDACTOR.redact(e, filter)).isSameAs(e);
    RuntimeException unrelated = new IllegalArgumentException("unrelated to " + SSN.length());
    assertThat(REDACTOR.redact(unrelated, Expressions.equal("ssn", SSN))).isSameAs(unrelated);
    assertThat(REDACTOR.redact(unrelated, null)).isSameAs(unrelated);
  }
}
