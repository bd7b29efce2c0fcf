/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs the annotated class only where a Docker daemon answers; elsewhere JUnit reports it skipped
 * with {@value MinioStore#SKIP_MESSAGE}. Evaluated before any {@code @BeforeAll}, so no server is
 * started for a skipped class.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresDocker.Condition.class)
public @interface RequiresDocker {
  final class Condition implements ExecutionCondition {
    private static volatile Boolean available;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (available == null) {
        available = MinioStore.dockerAvailable();
      }
      return available
          ? ConditionEvaluationResult.enabled("Docker is available")
          : ConditionEvaluationResult.disabled(MinioStore.SKIP_MESSAGE);
    }
  }
}
