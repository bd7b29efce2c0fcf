/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.docs;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.MethodReferenceExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds exception assertions that check no message: an {@code assertThatThrownBy(...)} or {@code
 * assertThatExceptionOfType(...)} chain (and AssertJ's {@code assertThatIllegalArgumentException()}
 * family) with no message assertion, and a JUnit {@code assertThrows(...)} whose exception's
 * message is never read in the same method. A test that checks only the type passes for any failure
 * of that type, including one with the wrong cause; the message names the cause.
 *
 * <p>Sources are parsed (JavaParser), not matched with patterns, so a chain split over lines,
 * nested in a loop or holding a lambda with calls of its own is read as Java reads it.
 */
final class ExceptionMessageAssertions {
  private ExceptionMessageAssertions() {}

  /** Calls that start an AssertJ exception assertion chain. */
  static final Set<String> CHAIN_STARTS =
      Set.of(
          "assertThatThrownBy",
          "assertThatExceptionOfType",
          "assertThatIllegalArgumentException",
          "assertThatIllegalStateException",
          "assertThatNullPointerException",
          "assertThatIOException",
          "assertThatRuntimeException",
          "assertThatException");

  /** Chain links that check the message (or the message of the cause that names it). */
  static final Set<String> MESSAGE_CHECKS =
      Set.of(
          "hasMessage",
          "hasMessageContaining",
          "hasMessageContainingAll",
          "hasMessageMatching",
          "hasMessageFindingMatch",
          "hasMessageStartingWith",
          "hasMessageEndingWith",
          "hasRootCauseMessage",
          "hasStackTraceContaining",
          "withMessage",
          "withMessageContaining",
          "withMessageContainingAll",
          "withMessageMatching",
          "withMessageStartingWith",
          "withMessageEndingWith",
          "message");

  /** Chain links that pass when what they are given reads the message. */
  static final Set<String> MESSAGE_CHECKS_BY_ARGUMENT =
      Set.of(
          "satisfies",
          "satisfiesAnyOf",
          "isInstanceOfSatisfying",
          "extracting",
          "matches",
          "has",
          "is");

  /** Test source folders below {@code root}: every module's, the Spark version folders too. */
  static List<Path> testSources(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> isTestSource(root.relativize(p)))
          .sorted()
          .toList();
    }
  }

  private static boolean isTestSource(Path relative) {
    String path = relative.toString().replace('\\', '/');
    return path.contains("/src/test/")
        && !path.contains("/target/")
        && !path.startsWith(".")
        && !path.contains("/node_modules/");
  }

  /** {@code file:line: what} for every unchecked assertion in the test sources below root. */
  static List<String> unchecked(Path root) throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : testSources(root)) {
      String source = Files.readString(file, StandardCharsets.UTF_8);
      for (String problem : unchecked(source, root.relativize(file).toString())) {
        found.add(problem);
      }
    }
    return found;
  }

  /** {@code name:line: what} for every unchecked assertion in one source file. */
  static List<String> unchecked(String source, String name) {
    ParseResult<CompilationUnit> parsed = parser().parse(source);
    if (!parsed.isSuccessful() || parsed.getResult().isEmpty()) {
      return List.of(name + ": cannot parse: " + parsed.getProblems());
    }
    List<String> found = new ArrayList<>();
    for (MethodCallExpr call : parsed.getResult().get().findAll(MethodCallExpr.class)) {
      String method = call.getNameAsString();
      if (CHAIN_STARTS.contains(method) && call.getScope().isEmpty()) {
        if (!chainChecksMessage(call)) {
          found.add(where(name, call) + ": " + method + "(...) checks no message");
        }
      } else if (method.equals("assertThrows")
          && call.getScope().map(ExceptionMessageAssertions::isJUnit).orElse(true)) {
        if (!thrownMessageRead(call)) {
          found.add(where(name, call) + ": assertThrows(...) checks no message");
        }
      }
    }
    return found;
  }

  private static boolean isJUnit(Expression scope) {
    return scope.toString().endsWith("Assertions");
  }

  private static JavaParser parser() {
    return new JavaParser(
        new ParserConfiguration()
            .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17)
            .setCharacterEncoding(StandardCharsets.UTF_8));
  }

  private static String where(String name, Node node) {
    return name + ":" + node.getBegin().map(p -> p.line).orElse(0);
  }

  /**
   * Whether the chain that starts at {@code start} checks the message: one of its links is a
   * message check, or one passes a lambda or method reference that reads the message.
   */
  static boolean chainChecksMessage(MethodCallExpr start) {
    Expression link = start;
    while (true) {
      Node parent = link.getParentNode().orElse(null);
      if (parent instanceof VariableDeclarator held) {
        // var thrown = assertThatThrownBy(...)...; thrown.hasMessageContaining(...)
        return heldChainChecksMessage(held);
      }
      // the next link is a call on this one; anything else (an argument, a statement) ends it
      if (!(parent instanceof MethodCallExpr next) || next.getScope().orElse(null) != link) {
        return false;
      }
      if (isMessageCheck(next)) {
        return true;
      }
      link = next;
    }
  }

  private static boolean heldChainChecksMessage(VariableDeclarator held) {
    String variable = held.getNameAsString();
    Optional<Node> method = held.findAncestor(CallableDeclaration.class).map(m -> (Node) m);
    return method.isPresent()
        && method.get().findAll(MethodCallExpr.class).stream()
            .anyMatch(
                c ->
                    c.getScope().filter(s -> s.toString().equals(variable)).isPresent()
                        && isMessageCheck(c));
  }

  private static boolean isMessageCheck(MethodCallExpr link) {
    String name = link.getNameAsString();
    if (MESSAGE_CHECKS.contains(name)) {
      return true;
    }
    return MESSAGE_CHECKS_BY_ARGUMENT.contains(name)
        && link.getArguments().stream().anyMatch(ExceptionMessageAssertions::readsMessage);
  }

  /** Whether an argument (a lambda, a method reference, "message") reads the message. */
  private static boolean readsMessage(Expression argument) {
    if (argument instanceof StringLiteralExpr literal) {
      return literal.getValue().equals("message") || literal.getValue().equals("localizedMessage");
    }
    if (argument instanceof MethodReferenceExpr ref) {
      return isGetMessage(ref.getIdentifier());
    }
    if (argument instanceof LambdaExpr lambda) {
      return lambda.findAll(MethodCallExpr.class).stream()
              .anyMatch(c -> readsText(c.getNameAsString()) || passesAFragment(c, lambda))
          || !lambda
              .findAll(MethodReferenceExpr.class, r -> readsText(r.getIdentifier()))
              .isEmpty();
    }
    return false;
  }

  private static boolean isGetMessage(String name) {
    return name.equals("getMessage") || name.equals("getLocalizedMessage");
  }

  /**
   * getMessage, a message check, or a helper that reads the text ({@code stackTrace(e)}, {@code
   * rootCauseMessage(e)}): the stack trace holds the messages of the whole cause chain.
   */
  private static boolean readsText(String name) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    return MESSAGE_CHECKS.contains(name)
        || lower.contains("message")
        || lower.contains("stacktrace");
  }

  /** A helper given the exception and a string: {@code assertRedactedChain(e, "Cannot ...")}. */
  private static boolean passesAFragment(MethodCallExpr call, LambdaExpr lambda) {
    Set<String> params =
        lambda.getParameters().stream()
            .map(p -> p.getNameAsString())
            .collect(java.util.stream.Collectors.toSet());
    return call.getArguments().stream()
            .anyMatch(a -> a instanceof NameExpr n && params.contains(n.getNameAsString()))
        && call.getArguments().stream().anyMatch(a -> a instanceof StringLiteralExpr);
  }

  /**
   * For {@code assertThrows(...)}: its result's message is read where it is used directly ({@code
   * assertThrows(...).getMessage()}, {@code assertThat(assertThrows(...)).hasMessage...}), or, when
   * it is held in a variable, anywhere in the same method through that variable.
   */
  static boolean thrownMessageRead(MethodCallExpr call) {
    Node parent = call.getParentNode().orElse(null);
    if (parent instanceof MethodCallExpr outer) {
      if (outer.getScope().orElse(null) == call) {
        return isGetMessage(outer.getNameAsString()) || isMessageCheck(outer);
      }
      if (outer.getNameAsString().equals("assertThat") && outer.getScope().isEmpty()) {
        return chainChecksMessage(outer);
      }
      return false;
    }
    String variable = null;
    if (parent instanceof VariableDeclarator declarator) {
      variable = declarator.getNameAsString();
    } else if (parent instanceof AssignExpr assign) {
      variable = assign.getTarget().toString();
    }
    if (variable == null) {
      return false;
    }
    Optional<Node> method = call.findAncestor(CallableDeclaration.class).map(m -> (Node) m);
    if (method.isEmpty()) {
      return false;
    }
    for (NameExpr use : method.get().findAll(NameExpr.class)) {
      if (!use.getNameAsString().equals(variable)) {
        continue;
      }
      Node user = use.getParentNode().orElse(null);
      if (user instanceof MethodCallExpr m
          && m.getScope().orElse(null) == use
          && isGetMessage(m.getNameAsString())) {
        return true;
      }
      if (user instanceof MethodCallExpr m
          && m.getNameAsString().equals("assertThat")
          && m.getScope().isEmpty()
          && chainChecksMessage(m)) {
        return true;
      }
    }
    return false;
  }
}
