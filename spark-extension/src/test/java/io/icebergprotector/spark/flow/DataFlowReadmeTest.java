package io.icebergprotector.spark.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.core.CatalogOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's security model documents the data-flow guard and how to declassify. */
class DataFlowReadmeTest {
  @Test
  void readmeDocumentsTheDataFlowGuard() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    String section =
        readme.substring(readme.indexOf("### Data flow"), readme.indexOf("## Performance"));
    assertThat(section)
        .contains(
            "`" + CatalogOptions.DECLASSIFY.key() + "=true`",
            "`" + DeclassificationGate.LOGGER + "`")
        .contains("`count(DISTINCT col)`", "not a flow", "`declassify = [...]`");
  }
}
