package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.core.ProtectorContext;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The README's configuration reference covers every catalog option and every policy field. */
class ReadmeTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path SAMPLE_POLICY = Path.of("..", "conf", "policy.conf");

  @Test
  void everyCatalogOptionIsDocumented() throws IOException {
    String readme = Files.readString(README);
    List<String> missing = new ArrayList<>();
    for (String option : ProtectorContext.OPTIONS) {
      if (!readme.contains("`" + option + "`")) {
        missing.add(option);
      }
    }
    assertThat(missing).as("options of ProtectorContext.OPTIONS missing from README.md").isEmpty();
  }

  @Test
  void everyPolicyFieldIsDocumented() throws Exception {
    String readme = Files.readString(README);
    String sample = Files.readString(SAMPLE_POLICY);
    List<String> missingInReadme = new ArrayList<>();
    List<String> missingInSample = new ArrayList<>();
    for (String field : policyFields()) {
      if (!readme.contains("`" + field + "`")) {
        missingInReadme.add(field);
      }
      if (!sample.contains(field)) {
        missingInSample.add(field);
      }
    }
    assertThat(missingInReadme).as("policy fields missing from README.md").isEmpty();
    assertThat(missingInSample).as("policy fields missing from conf/policy.conf").isEmpty();
  }

  /** The fields the policy parser accepts (it rejects all others), read from its field lists. */
  private static Set<String> policyFields() throws Exception {
    Class<?> parser = Class.forName("io.icebergprotector.policy.PolicyParser");
    Set<String> fields = new LinkedHashSet<>();
    for (String name :
        List.of(
            "TOP_ORDER",
            "ROLE_FIELDS",
            "KEY_FIELDS",
            "RETIRED_KEY_FIELDS",
            "TABLE_FIELDS",
            "COLUMN_FIELDS")) {
      Field f = parser.getDeclaredField(name);
      f.setAccessible(true);
      for (Object value : (List<?>) f.get(null)) {
        fields.add((String) value);
      }
    }
    assertThat(fields)
        .as("policy parser field lists (update this test if they moved)")
        .contains("roles", "footer-key", "on-denied");
    return fields;
  }
}
