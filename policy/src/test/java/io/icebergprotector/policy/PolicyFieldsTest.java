/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PolicyFields} is what the parser accepts: an unknown field at each level is refused with
 * exactly the documented names as the valid ones. And the sample policy, which explains every field
 * in place, mentions each of them.
 */
class PolicyFieldsTest {
  // One policy with a place for a typo at each level.
  private static final String POLICY =
      String.join(
          "\n",
          "protector {",
          "  roles { admin { users = [alice] <ROLE> } }",
          "  keys { pii { <KEY> }, footer {}, old {} }",
          "  retired-keys { old { decrypt = [admin] <RETIRED_KEY> } }",
          "  tables { \"db.t\" { footer-key = footer <TABLE>, columns { c { key = pii <COLUMN> } } } }",
          "  <PROTECTOR>",
          "}");

  @Test
  void theParserAcceptsExactlyTheDocumentedFields() {
    for (PolicyFields.Scope scope : PolicyFields.Scope.values()) {
      String text = POLICY;
      for (PolicyFields.Scope place : PolicyFields.Scope.values()) {
        String typo =
            place == PolicyFields.Scope.KEY || place == PolicyFields.Scope.PROTECTOR
                ? "typo = 1"
                : ", typo = 1";
        text = text.replace("<" + place.name() + ">", place == scope ? typo : "");
      }
      String policy = text;
      PolicyException e =
          catchThrowableOfType(PolicyException.class, () -> Policy.parse(policy, "typo.conf"));
      assertThat(e).as("a typo at %s is refused", scope).isNotNull();
      assertThat(e.getMessage())
          .as("valid fields at %s", scope)
          .contains("unknown field 'typo'")
          .contains("valid fields: " + String.join(", ", PolicyFields.names(scope)));
    }
  }

  @Test
  void everyFieldHasADocumentationString() {
    for (PolicyFields.Field field : PolicyFields.ALL) {
      assertThat(field.doc()).as("doc of %s", field).isNotBlank();
    }
  }

  @Test
  void theSamplePolicyMentionsEveryField() throws IOException {
    String sample = Files.readString(Path.of("..", "conf", "policy.conf"));
    List<String> missing = new ArrayList<>();
    for (PolicyFields.Field field : PolicyFields.ALL) {
      if (!sample.contains(field.name())) {
        missing.add(field.name());
      }
    }
    assertThat(missing).as("policy fields missing from conf/policy.conf").isEmpty();
  }
}
