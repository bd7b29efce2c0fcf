/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.kms.wire.TokenFields;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of a token batch request ({@code encode}/{@code decode}), read with Jackson's streaming
 * parser under the same strict rules as every other body ({@link JsonCodec}'s factory: duplicate
 * members, nesting and number limits; messages never quote the input), and its answer, written with
 * the streaming generator: a batch of 10,000 values builds no map per value.
 */
final class TokenBatch {
  private static final JsonFactory JSON = JsonCodec.mapper().getFactory();

  /** A value of a JSON type no method takes (object, array, boolean, fraction, huge integer). */
  static final Object UNUSABLE = new Object();

  private static final Object ABSENT = new Object();

  Object domain = ABSENT;
  Object method = ABSENT;
  Object version = ABSENT;
  Object encoding = ABSENT;
  // decode of a table read: the column whose view the caller asks for, and its value type
  Object table = ABSENT;
  Object column = ABSENT;
  Object valueType = ABSENT;

  /** Strings, Longs, nulls and {@link #UNUSABLE}; null when batch_input is missing or no array. */
  List<Object> values;

  /** The index of the first item that is not an object, or -1. */
  int badItem = -1;

  private TokenBatch() {}

  /**
   * @throws IllegalArgumentException for malformed JSON or a body that is not an object
   */
  static TokenBatch parse(byte[] body) {
    TokenBatch b = new TokenBatch();
    try (JsonParser p = JSON.createParser(body)) {
      checkArgument(p.nextToken() == JsonToken.START_OBJECT, "Invalid JSON: expected an object");
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case TokenFields.DOMAIN:
            b.domain = scalar(p, t);
            break;
          case TokenFields.METHOD:
            b.method = scalar(p, t);
            break;
          case TokenFields.VERSION:
            b.version = scalar(p, t);
            break;
          case TokenFields.ENCODING:
            b.encoding = scalar(p, t);
            break;
          case TokenFields.TABLE:
            b.table = scalar(p, t);
            break;
          case TokenFields.COLUMN:
            b.column = scalar(p, t);
            break;
          case TokenFields.VALUE_TYPE:
            b.valueType = scalar(p, t);
            break;
          case TokenFields.BATCH_INPUT:
            if (t == JsonToken.START_ARRAY) {
              b.values = items(p, b);
            } else {
              p.skipChildren();
            }
            break;
          default:
            p.skipChildren();
        }
      }
      checkArgument(p.nextToken() == null, "Invalid JSON: content after the object");
    } catch (JacksonException e) {
      throw new IllegalArgumentException(JsonCodec.describe(e), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return b;
  }

  private static List<Object> items(JsonParser p, TokenBatch b) throws IOException {
    List<Object> out = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.START_OBJECT) {
        if (b.badItem < 0) {
          b.badItem = out.size();
        }
        p.skipChildren();
        out.add(UNUSABLE);
        continue;
      }
      Object value = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (name.equals(TokenFields.VALUE)) {
          value = scalar(p, v);
        } else {
          p.skipChildren();
        }
      }
      out.add(value);
    }
    return out;
  }

  /** A string, a long, null, or {@link #UNUSABLE} (whose children are skipped). */
  private static Object scalar(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case VALUE_STRING:
        return p.getText();
      case VALUE_NULL:
        return null;
      case VALUE_NUMBER_INT:
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
            ? UNUSABLE
            : (Object) p.getLongValue();
      default:
        p.skipChildren();
        return UNUSABLE;
    }
  }

  /** The string member {@code name}: absent, not a string or empty gives null. */
  static String string(Object member) {
    return member instanceof String && !((String) member).isEmpty() ? (String) member : null;
  }

  static boolean absent(Object member) {
    return member == ABSENT || member == null;
  }

  /**
   * The answer: {@code {"data": {"key_version": v, "batch_results": [...]}}}, each result {@code
   * {"<field>": value}} or {@code {"error": "..."}} when {@code errors[i]} is set.
   */
  static byte[] answer(int keyVersion, String field, Object[] results, String[] errors) {
    return answer(keyVersion, null, field, results, errors);
  }

  /** The answer, with {@code "mask": spec} when the results are masked values (else null). */
  static byte[] answer(
      int keyVersion, String mask, String field, Object[] results, String[] errors) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 40 * results.length);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeObjectFieldStart(Envelope.DATA);
      g.writeNumberField(TokenFields.KEY_VERSION, keyVersion);
      if (mask != null) {
        g.writeStringField(TokenFields.MASK, mask);
      }
      g.writeArrayFieldStart(TokenFields.BATCH_RESULTS);
      for (int i = 0; i < results.length; i++) {
        g.writeStartObject();
        if (errors[i] != null) {
          g.writeStringField(TokenFields.ERROR, errors[i]);
        } else if (results[i] == null) {
          g.writeNullField(field);
        } else if (results[i] instanceof Long) {
          g.writeNumberField(field, (Long) results[i]);
        } else {
          g.writeStringField(field, (String) results[i]);
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }
}
