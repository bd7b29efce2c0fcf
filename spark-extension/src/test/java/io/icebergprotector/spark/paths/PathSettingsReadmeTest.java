package io.icebergprotector.spark.paths;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README documents every {@code spark.protector.*} session setting of plain Parquet paths. */
class PathSettingsReadmeTest {
  @Test
  void everySessionSettingIsDocumented() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    List<String> missing =
        PathScope.SETTINGS.stream()
            .filter(s -> !readme.contains("`" + s + "`"))
            .collect(Collectors.toList());
    assertThat(PathScope.SETTINGS).contains("spark.protector.policy", "spark.protector.user");
    assertThat(missing).as("spark.protector.* settings missing from README.md").isEmpty();
    assertThat(readme)
        .contains(
            "### Plain Parquet paths", "### REST catalogs: Polaris and Snowflake Open Catalog");
  }
}
