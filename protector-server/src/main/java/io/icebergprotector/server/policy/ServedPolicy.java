/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.policy;

import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.PolicyException;
import io.icebergprotector.server.auth.Authorizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * One version of the server's policy: the file's text as read, its parse, its content digest and
 * the authorizer over it. A request works on one of these from start to end, so a reload never
 * mixes two policies in one decision.
 */
public final class ServedPolicy {
  private final Policy policy;
  private final String text;
  private final String textDigest;
  private final Authorizer authorizer;

  private ServedPolicy(Policy policy, String text, Set<String> adminRoles) {
    this.policy = policy;
    this.text = text;
    this.textDigest = Digests.sha256Hex(text);
    this.authorizer = new Authorizer(policy, adminRoles);
  }

  /**
   * Reads and parses the policy file.
   *
   * @throws PolicyException naming file and line of a malformed policy
   * @throws UncheckedIOException when the file cannot be read
   */
  public static ServedPolicy load(Path file, Set<String> adminRoles) {
    return parse(read(file), file, adminRoles);
  }

  public static ServedPolicy parse(String text, Path file, Set<String> adminRoles) {
    return new ServedPolicy(Policy.parse(text, file.toString()), text, adminRoles);
  }

  public static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read policy " + file + ": " + e.getMessage(), e);
    }
  }

  public Policy policy() {
    return policy;
  }

  /** The file's text as read (comments included), served to admin roles. */
  public String text() {
    return text;
  }

  /** SHA-256 of {@link #text()}: whether the file changed at all. */
  public String textDigest() {
    return textDigest;
  }

  /** The policy's content digest ({@link Policy#contentDigest()}), which catalogs compare. */
  public String digest() {
    return policy.contentDigest();
  }

  public Authorizer authorizer() {
    return authorizer;
  }
}
