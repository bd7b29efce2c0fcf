/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.TokenException;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.kms.wire.TokenFields;
import io.icebergprotector.policy.ProtectionMethod;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;

/**
 * Server token mode: every batch goes to the key server's {@code POST /v1/protector/encode/<key>}
 * or {@code /decode/<key>} as one request (a single value as a batch of one), and the token key
 * never leaves the server. A batch larger than the request limits is split. The first answer pins
 * the key version, so every token of one tokenizer is under one version. A tokenizer {@link
 * #readingColumn reading a table column} names it in its decode requests, and the server answers
 * that column's view for the caller (clear values, or masked ones with the mask named in the
 * answer's {@code mask}). Not thread-safe.
 */
final class RemoteTokenizer implements Tokenizer {
  private static final JsonFactory JSON = JsonCodec.mapper().getFactory();

  private final RemoteKeyService service;
  private final String keyId;
  private final String domain;
  private final ProtectionMethod method;
  private final int maxValues;
  private final long maxBodyChars;
  private int version; // LATEST_VERSION until the first answer names it
  private boolean closed;
  // decode requests of a table read name the column; the server answers its view for the caller
  private String table;
  private String column;
  private boolean ints;
  private String appliedMask;

  RemoteTokenizer(
      RemoteKeyService service,
      String keyId,
      int version,
      String domain,
      ProtectionMethod method,
      int maxValues,
      long maxBodyChars) {
    checkArgument(method.tokenizes(), "Cannot tokenize with method pme: domain %s", domain);
    this.service = service;
    this.keyId = keyId;
    this.version = version;
    this.domain = domain;
    this.method = method;
    this.maxValues = maxValues;
    this.maxBodyChars = maxBodyChars;
  }

  @Override
  public String domain() {
    return domain;
  }

  /** The key version; for the latest version, asked of the server (a batch of one null). */
  @Override
  public int version() {
    if (version == KeyService.LATEST_VERSION) {
      Object[] probe = {null};
      run(probe, 0, 1, true, Kind.STRING);
    }
    return version;
  }

  @Override
  public String protect(String value) {
    if (value == null) {
      return null;
    }
    String[] one = {value};
    protectAll(one, 1);
    return one[0];
  }

  @Override
  public String unprotect(String token) {
    if (token == null) {
      return null;
    }
    String[] one = {token};
    unprotectAll(one, 1);
    return one[0];
  }

  @Override
  public byte[] protect(byte[] value) {
    if (value == null) {
      return null;
    }
    byte[][] one = {value};
    protectAll(one, 1);
    return one[0];
  }

  @Override
  public byte[] unprotect(byte[] token) {
    if (token == null) {
      return null;
    }
    byte[][] one = {token};
    unprotectAll(one, 1);
    return one[0];
  }

  @Override
  public long protect(long value) {
    long[] one = {value};
    protectAll(one, 1);
    return one[0];
  }

  @Override
  public long unprotect(long token) {
    long[] one = {token};
    unprotectAll(one, 1);
    return one[0];
  }

  @Override
  public void protectAll(String[] values, int count) {
    requireKind(Kind.STRING, true);
    batches(values, count, true, Kind.STRING);
  }

  @Override
  public void unprotectAll(String[] tokens, int count) {
    requireKind(Kind.STRING, false);
    batches(tokens, count, false, Kind.STRING);
  }

  @Override
  public void protectAll(byte[][] values, int count) {
    requireKind(Kind.BINARY, true);
    batches(values, count, true, Kind.BINARY);
  }

  @Override
  public void unprotectAll(byte[][] tokens, int count) {
    requireKind(Kind.BINARY, false);
    batches(tokens, count, false, Kind.BINARY);
  }

  @Override
  public void protectAll(long[] values, int count) {
    requireKind(Kind.LONG, true);
    Long[] boxed = box(values, count);
    batches(boxed, count, true, Kind.LONG);
    unbox(boxed, values, count);
  }

  @Override
  public void unprotectAll(long[] tokens, int count) {
    requireKind(Kind.LONG, false);
    Long[] boxed = box(tokens, count);
    batches(boxed, count, false, Kind.LONG);
    unbox(boxed, tokens, count);
  }

  @Override
  public Tokenizer readingColumn(String tableName, String columnPath, boolean intValues) {
    this.table = tableName;
    this.column = columnPath;
    this.ints = intValues;
    return this;
  }

  @Override
  public String appliedMask() {
    return appliedMask;
  }

  @Override
  public void close() {
    closed = true;
  }

  // ---- batches -------------------------------------------------------------------------------

  /** The JSON type of the values of a batch. */
  private enum Kind {
    STRING,
    BINARY,
    LONG
  }

  private void requireKind(Kind kind, boolean forward) {
    checkState(!closed, "Cannot use a closed tokenizer of domain %s", domain);
    boolean ok;
    switch (kind) {
      case LONG:
        ok = method.numeric();
        break;
      case BINARY:
        ok = method.kind() == ProtectionMethod.Kind.DETERMINISTIC;
        break;
      default:
        ok = !method.numeric();
    }
    if (!ok) {
      throw new TokenException(
          "Cannot "
              + (forward ? "tokenize" : "detokenize")
              + " "
              + kind.name().toLowerCase(java.util.Locale.ROOT)
              + " values with method "
              + method.spec()
              + ": domain "
              + domain);
    }
  }

  /** Splits values[0..count) into requests within the value and body limits. */
  private void batches(Object[] values, int count, boolean forward, Kind kind) {
    int start = 0;
    boolean first = true;
    while (start < count) {
      int end = start;
      long chars = 0;
      while (end < count && end - start < maxValues) {
        chars += 16 + length(values[end], kind);
        if (end > start && chars > maxBodyChars) {
          break;
        }
        end++;
      }
      String before = appliedMask;
      run(values, start, end, forward, kind);
      if (!first && !java.util.Objects.equals(before, appliedMask)) {
        // one call's values are all clear or all masked alike, whatever the server's policy did
        throw new KeyServiceException(
            "key service at "
                + service.shownUrl()
                + " answered the token batches of one call of token domain '"
                + domain
                + "' with different views (mask "
                + before
                + ", then "
                + appliedMask
                + ")");
      }
      first = false;
      start = end;
    }
  }

  private static long length(Object value, Kind kind) {
    if (value == null) {
      return 4;
    }
    switch (kind) {
      case STRING:
        return 6L * ((String) value).length(); // the worst case of JSON escapes
      case BINARY:
        return 4L * ((byte[]) value).length / 3 + 4;
      default:
        return 20;
    }
  }

  /** One request: values[start..end) are replaced by the server's answers. */
  private void run(Object[] values, int start, int end, boolean forward, Kind kind) {
    String action = forward ? Endpoints.ENCODE : Endpoints.DECODE;
    byte[] body = requestBody(values, start, end, forward, kind);
    String response =
        service.tokenBatch(
            action,
            keyId,
            body,
            (forward ? "encode values" : "decode tokens") + " of token domain '" + domain + "'");
    readAnswer(response, values, start, end, forward, kind);
  }

  private byte[] requestBody(Object[] values, int start, int end, boolean forward, Kind kind) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 32 * (end - start));
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField(TokenFields.DOMAIN, domain);
      g.writeStringField(TokenFields.METHOD, method.spec());
      g.writeNumberField(TokenFields.VERSION, version);
      if (!forward && table != null) {
        g.writeStringField(TokenFields.TABLE, table);
        g.writeStringField(TokenFields.COLUMN, column);
        if (ints) {
          g.writeStringField(TokenFields.VALUE_TYPE, TokenFields.INT);
        }
      }
      if (kind == Kind.BINARY) {
        g.writeStringField(TokenFields.ENCODING, TokenFields.BASE64);
      }
      g.writeArrayFieldStart(TokenFields.BATCH_INPUT);
      for (int i = start; i < end; i++) {
        g.writeStartObject();
        Object v = values[i];
        if (v == null) {
          g.writeNullField(TokenFields.VALUE);
        } else if (kind == Kind.LONG) {
          g.writeNumberField(TokenFields.VALUE, (Long) v);
        } else if (kind == Kind.BINARY) {
          g.writeStringField(TokenFields.VALUE, Base64.getEncoder().encodeToString((byte[]) v));
        } else {
          g.writeStringField(TokenFields.VALUE, (String) v);
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }

  private void readAnswer(
      String response, Object[] values, int start, int end, boolean forward, Kind kind) {
    String outField = TokenFields.resultField(forward);
    String firstError = null;
    int errors = 0;
    int i = start;
    Integer answeredVersion = null;
    String mask = null;
    try (JsonParser p = JSON.createParser(response)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        if (!field.equals(Envelope.DATA)) {
          p.skipChildren();
          continue;
        }
        expect(t, JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if (name.equals(TokenFields.KEY_VERSION)) {
            expect(v, JsonToken.VALUE_NUMBER_INT);
            answeredVersion = p.getIntValue();
          } else if (name.equals(TokenFields.MASK)) {
            expect(v, JsonToken.VALUE_STRING);
            mask = p.getText();
          } else if (name.equals(TokenFields.BATCH_RESULTS)) {
            expect(v, JsonToken.START_ARRAY);
            while (p.nextToken() == JsonToken.START_OBJECT) {
              checkArgument(i < end, "More results than values");
              Object result = null;
              String error = null;
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String rn = p.currentName();
                JsonToken rv = p.nextToken();
                if (rn.equals(outField)) {
                  result = value(p, rv, kind);
                } else if (rn.equals(TokenFields.ERROR)) {
                  error = p.getValueAsString();
                } else {
                  p.skipChildren();
                }
              }
              if (error != null) {
                errors++;
                if (firstError == null) {
                  firstError = error;
                }
              } else {
                values[i] = result;
              }
              i++;
            }
          } else {
            p.skipChildren();
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new KeyServiceException(
          "key service at "
              + service.shownUrl()
              + " sent an unreadable token batch answer for token domain '"
              + domain
              + "': "
              + e.getMessage());
    }
    if (i != end || answeredVersion == null) {
      throw new KeyServiceException(
          "key service at "
              + service.shownUrl()
              + " answered "
              + (i - start)
              + " results for "
              + (end - start)
              + " values of token domain '"
              + domain
              + "'"
              + (answeredVersion == null ? " and no key_version" : ""));
    }
    if (errors > 0) {
      // the server's error names the item's index within the request; shift it to the caller's
      throw new TokenException(
          "Cannot "
              + (forward ? "tokenize" : "detokenize")
              + " "
              + errors
              + " of "
              + (end - start)
              + " values of token domain '"
              + domain
              + "' (values "
              + start
              + ".."
              + (end - 1)
              + " of the batch) at key service "
              + service.shownUrl()
              + "; the first: "
              + firstError);
    }
    version = answeredVersion;
    if (!forward) {
      appliedMask = mask;
    }
  }

  private static Object value(JsonParser p, JsonToken t, Kind kind) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    switch (kind) {
      case LONG:
        expect(t, JsonToken.VALUE_NUMBER_INT);
        return p.getLongValue();
      case BINARY:
        expect(t, JsonToken.VALUE_STRING);
        return Base64.getDecoder().decode(p.getText());
      default:
        expect(t, JsonToken.VALUE_STRING);
        return p.getText();
    }
  }

  private static void expect(JsonToken actual, JsonToken expected) {
    checkArgument(actual == expected, "Expected %s, got %s", expected, actual);
  }

  private static Long[] box(long[] values, int count) {
    Long[] boxed = new Long[count];
    for (int i = 0; i < count; i++) {
      boxed[i] = values[i];
    }
    return boxed;
  }

  private static void unbox(Long[] boxed, long[] values, int count) {
    for (int i = 0; i < count; i++) {
      values[i] = boxed[i];
    }
  }

  @Override
  public String toString() {
    return "RemoteTokenizer(" + keyId + ", domain " + domain + ", " + method.spec() + ")";
  }
}
