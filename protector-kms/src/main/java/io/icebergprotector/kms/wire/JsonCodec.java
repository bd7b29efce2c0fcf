/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * JSON of the Vault-style bodies (client, server, audit log, CLI output), through Jackson.
 *
 * <p>Reading is strict because the server reads untrusted input with it: RFC 8259 only, no
 * duplicate object members, nothing after the value, nesting at most {@value #MAX_DEPTH} deep,
 * numbers at most 64 digits, integers within Long's range; error messages never quote the input.
 * Objects become insertion-ordered {@code Map<String,Object>}, arrays {@code List<Object>},
 * integral numbers {@link Long}, other numbers {@link java.math.BigDecimal}.
 */
public final class JsonCodec {
  static final int MAX_DEPTH = 32;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_DEPTH)
                          .maxNumberLength(64)
                          .build())
                  .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                  .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
                  .build())
          .enable(DeserializationFeature.USE_LONG_FOR_INTS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .build();

  private JsonCodec() {}

  /** The shared, configured mapper (thread-safe). */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses one JSON value. @throws IllegalArgumentException saying what is wrong (without quoting
   * the input)
   */
  public static Object parse(String text) {
    checkArgument(text != null, "Invalid JSON: no input");
    try {
      return MAPPER.readValue(text, Object.class);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("Invalid JSON" + where(e) + ": " + safeMessage(e), e);
    }
  }

  /**
   * What is wrong with the JSON a streaming reader of Jackson refused, the way {@link #parse} says
   * it: where, and the problem without quoting the input.
   */
  public static String describe(JacksonException e) {
    return "invalid JSON" + where(e) + ": " + safeMessage(e);
  }

  private static String where(JacksonException e) {
    return e.getLocation() == null || e.getLocation().getLineNr() < 1
        ? ""
        : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
  }

  /**
   * Jackson quotes an unrecognized token in full ("Unrecognized token 'abc'"), which could be a
   * secret sent without quotes: only the one-character quotes of unexpected characters, and the
   * member name of a duplicate, are kept.
   */
  private static String safeMessage(JacksonException e) {
    String m = String.valueOf(e.getOriginalMessage());
    if (m.startsWith("Duplicate field")) {
      return m.length() > 120 ? m.substring(0, 120) + "..." : m;
    }
    return QUOTED.matcher(m).replaceAll("(not shown)");
  }

  private static final Pattern QUOTED = Pattern.compile("'[^']{2,}'");

  /** Parses a JSON object. @throws IllegalArgumentException if malformed or not an object */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object value = parse(text);
    checkArgument(value instanceof Map, "Invalid JSON: expected an object");
    return (Map<String, Object>) value;
  }

  /** Writes maps, collections, strings, numbers, booleans and null as compact JSON. */
  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("Cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** An insertion-ordered object: {@code JsonCodec.object("a", 1, "b", "x")}. */
  public static Map<String, Object> object(Object... keysAndValues) {
    checkArgument(
        keysAndValues.length % 2 == 0,
        "Cannot build a JSON object: object() needs key/value pairs, got %s arguments",
        keysAndValues.length);
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]);
    }
    return map;
  }

  /**
   * The string member, or null if absent. @throws IllegalArgumentException naming the member if it
   * is not a string
   */
  public static String string(Map<String, Object> object, String member) {
    Object value = object.get(member);
    if (value == null) {
      return null;
    }
    checkArgument(value instanceof String, "Field '%s' must be a string", member);
    return (String) value;
  }

  /**
   * The object member, or null if absent. @throws IllegalArgumentException naming the member if it
   * is not an object
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(Map<String, Object> object, String member) {
    Object value = object.get(member);
    if (value == null) {
      return null;
    }
    checkArgument(value instanceof Map, "Field '%s' must be an object", member);
    return (Map<String, Object>) value;
  }

  /**
   * An integral member as a Long, or null if absent; accepts "12" strings as Vault does.
   *
   * @throws IllegalArgumentException naming the member if it is not an integer in Long's range
   */
  public static Long integer(Map<String, Object> object, String member) {
    Object value = object.get(member);
    if (value == null) {
      return null;
    }
    if (value instanceof Long) {
      return (Long) value;
    }
    if (value instanceof String) {
      try {
        return Long.parseLong((String) value);
      } catch (NumberFormatException e) {
        // fall through to the error below
      }
    }
    throw new IllegalArgumentException("Field '" + member + "' must be an integer");
  }
}
