package io.icebergprotector.spark.masks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.SharedVectors;
import java.util.HexFormat;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The mask vectors of {@code testdata/protection-vectors.json} through the Spark readers' value
 * kernels: the key server's server token mode ({@code TokenColumnViewVectorsTest}) must give the
 * same results.
 */
class MaskVectorsTest {
  private static final Map<String, DataType> TYPES =
      Map.of(
          "string", DataTypes.StringType,
          "long", DataTypes.LongType,
          "int", DataTypes.IntegerType);

  @Test
  void masks() {
    JsonNode vectors = SharedVectors.load();
    byte[] key = HexFormat.of().parseHex(vectors.get("mask_hash_key").asText());
    assertThat(vectors.get("masks").size()).isGreaterThan(10);
    for (JsonNode c : vectors.get("masks")) {
      String type = c.get("type").asText();
      ColumnMask mask =
          MaskEngine.columnMask(
              Mask.parse(c.get("mask").asText()),
              MaskType.of(TYPES.get(type)),
              "c",
              "mask vectors",
              key::clone);
      JsonNode value = c.get("value");
      Object input =
          switch (type) {
            case "string" -> UTF8String.fromString(value.asText());
            case "long" -> value.asLong();
            default -> value.asInt();
          };
      Object out = mask.apply(input);
      JsonNode expected = c.get("masked");
      Object want;
      if (expected.isNull()) {
        want = null;
      } else if (type.equals("string")) {
        want = expected.asText();
      } else if (type.equals("long")) {
        want = expected.asLong();
      } else {
        want = expected.asInt();
      }
      assertThat(out instanceof UTF8String ? out.toString() : out).as(c.toString()).isEqualTo(want);
    }
  }
}
