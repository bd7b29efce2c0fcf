/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The words for the token-key rule of the key service: a token key goes only to principals who read
 * a column of its key and domain in clear, since it detokenizes every token of the domain. Local
 * token mode needs the key to tokenize, so a writer (or a {@code protect} call) without clear
 * access is refused there before any task runs, with the way out.
 */
public final class TokenKeyRule {
  private TokenKeyRule() {}

  /**
   * E.g. "Cannot write to protected table db.customers: principal etl (roles [etl]) would tokenize
   * column 'ssn' in local token mode, which needs the token key of domain 'ssn' ...".
   *
   * @param action what was refused ("write to protected table db.t", "call protect")
   * @param what what needs the key ("tokenize column 'ssn'", "tokenize values")
   */
  public static String refusal(
      String action,
      Principal principal,
      Policy policy,
      String what,
      String domain,
      KmsSettings kms) {
    Set<String> clearRoles = clearRoles(policy, domain);
    String serverMode =
        kms.type() == KmsSettings.Type.REMOTE
            ? "set the catalog option "
                + KmsOptions.TOKEN_MODE.key()
                + " = server (the key server then"
                + " tokenizes for writers, and the key never leaves it)"
            : "use the key server ("
                + KmsOptions.TYPE.key()
                + " = remote) with "
                + KmsOptions.TOKEN_MODE.key()
                + " = server, which tokenizes for writers without releasing the key";
    return String.format(
        "Cannot %s: principal %s (roles %s) would %s in local token mode, which needs the token key"
            + " of domain '%s', and a token key goes only to principals who read its domain in"
            + " clear (it detokenizes every token of it). Either %s, or act as a principal with a"
            + " clear role of the domain (%s)",
        action,
        principal.user(),
        new TreeSet<>(policy.rolesOf(principal)),
        what,
        domain,
        serverMode,
        clearRoles.isEmpty() ? "none in the policy" : "clear = " + clearRoles);
  }

  private static Set<String> clearRoles(Policy policy, String domain) {
    Set<String> out = new TreeSet<>();
    List<TablePolicy> entries = new ArrayList<>(policy.tables().values());
    entries.addAll(policy.paths().values());
    for (TablePolicy entry : entries) {
      for (ColumnPolicy column : entry.columns()) {
        if (column.tokenized() && column.domain().equals(domain)) {
          out.addAll(column.clearRoles());
        }
      }
    }
    return out;
  }
}
