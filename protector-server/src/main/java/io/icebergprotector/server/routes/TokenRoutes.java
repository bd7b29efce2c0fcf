/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KeyGrants;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.TokenException;
import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.TokenFields;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.http.Exchange;
import io.icebergprotector.server.http.HttpError;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The protector's token endpoints (not on Vault): {@code POST /v1/protector/token-key/<key>},
 * {@code /encode/<key>} and {@code /decode/<key>}.
 *
 * <p>They name their token domain in the body, so the order of checks is: authenticate (401),
 * key-name syntax (400), read the body (413/400 naming the field), authorize key and domain (403,
 * the same body as every 403), then check the method against the policy's (400) and touch the key
 * store. One audit line per request: a batch's line carries domain, method and the count of values,
 * never a value.
 */
final class TokenRoutes {
  private final KeyService keys;
  private final KeyFailures failures;
  private final Metrics metrics;
  private final int maxBatchValues;

  TokenRoutes(KeyService keys, KeyFailures failures, Metrics metrics, int maxBatchValues) {
    this.keys = keys;
    this.failures = failures;
    this.metrics = metrics;
    this.maxBatchValues = maxBatchValues;
  }

  /**
   * Releases the token key of (key, version, domain, method kind) to a caller the token-key rule
   * allows (clear readers of a column of that key and domain; the key detokenizes the whole
   * domain): {@code local} token mode through the key server. Audited like an unwrap.
   */
  void tokenKey(Exchange x, String[] parts) {
    x.route(RouteTable.PROTECTOR + Endpoints.TOKEN_KEY + "/{key}");
    x.op("token-key");
    x.requireMethod("POST");
    x.rawKey(parts.length > 1 ? parts[1] : "");
    x.authenticate();
    String key = x.keyName(parts.length == 2);
    Map<String, Object> body = x.readJson(false);
    String domain = x.stringField(key, body, TokenFields.DOMAIN);
    int version = versionOf(x, key, body.get(TokenFields.VERSION));
    String kindText = x.stringField(key, body, TokenFields.METHOD);
    x.details().put("domain", domain);
    if (!x.grants().allowsTokenKey(key, domain)) {
      throw x.deny(key, KeyGrants.Operation.TOKEN_KEY.refusal());
    }
    ProtectionMethod.Kind policyKind =
        x.served().policy().tokenDomain(domain).orElseThrow().method().kind();
    if (!kindText.equalsIgnoreCase(policyKind.name())) {
      throw x.badRequest(
          key,
          null,
          "field 'method' is '"
              + Exchange.clip(kindText)
              + "', but token domain '"
              + domain
              + "' is "
              + policyKind.name().toLowerCase(Locale.ROOT)
              + " in the server's policy");
    }
    x.details().put("method", policyKind.name().toLowerCase(Locale.ROOT));
    byte[] bytes = null;
    try (TokenKey tk = keys.deriveTokenKey(key, version, domain, policyKind)) {
      bytes = tk.exportBytes();
      x.auditOk(key, tk.version());
      Map<String, Object> data = new LinkedHashMap<>();
      data.put(TokenFields.KEY, Base64.getEncoder().encodeToString(bytes));
      data.put(TokenFields.KEY_VERSION, tk.version());
      data.put(TokenFields.DOMAIN, domain);
      data.put(TokenFields.METHOD, policyKind.name().toLowerCase(Locale.ROOT));
      x.sendJson(200, Envelope.data(data));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw failures.of(x, key, version == KeyService.LATEST_VERSION ? null : version, e);
    } finally {
      if (bytes != null) {
        Arrays.fill(bytes, (byte) 0);
      }
    }
  }

  /**
   * Tokenizes ({@code encode}) or detokenizes ({@code decode}) a batch of values in the style of
   * Vault's transform {@code batch_input}: {@code {"domain", "method", "version", "encoding",
   * "batch_input": [{"value": ...}, ...]}} answers {@code {"data": {"key_version", "batch_results":
   * [{"encoded_value"|"decoded_value": ...} | {"error": "batch_input[i]: ..."}, ...]}}} in order.
   * Null values stay null. The token key never leaves the server.
   */
  void tokenBatch(Exchange x, String[] parts, boolean encode) {
    String action = encode ? Endpoints.ENCODE : Endpoints.DECODE;
    x.route(RouteTable.PROTECTOR + action + "/{key}");
    x.op(action);
    x.requireMethod("POST");
    x.rawKey(parts.length > 1 ? parts[1] : "");
    x.useBatchBodyLimit();
    x.authenticate();
    String key = x.keyName(parts.length == 2);
    TokenBatch in = readBatch(x);
    String domain = requiredString(x, key, in.domain, TokenFields.DOMAIN);
    String methodSpec = requiredString(x, key, in.method, TokenFields.METHOD);
    int version = versionOf(x, key, in.version);
    boolean binary = binaryEncoding(x, key, in.encoding);
    if (in.values == null) {
      throw x.badRequest(
          key, null, "field 'batch_input' is required and must be an array of {\"value\": ...}");
    }
    List<Object> items = in.values;
    x.details().put("domain", domain);
    x.details().put("count", items.size());
    KeyGrants grants = x.grants();
    boolean namesColumn = !TokenBatch.absent(in.table) || !TokenBatch.absent(in.column);
    TokenColumnView view = encode || !namesColumn ? null : columnView(x, key, domain, in, grants);
    boolean allowed =
        encode
            ? grants.allowsEncode(key, domain)
            : namesColumn ? view != null && view.readable() : grants.allowsDecode(key, domain);
    if (!allowed) {
      throw x.deny(
          key, (encode ? KeyGrants.Operation.ENCODE : KeyGrants.Operation.DECODE).refusal());
    }
    if (items.size() > maxBatchValues) {
      String message =
          "batch_input has "
              + items.size()
              + " values, more than limits.max-batch-values = "
              + maxBatchValues;
      x.record(key, null, x.op(), "error", message, 413);
      throw new HttpError(413, message);
    }
    if (items.isEmpty()) {
      throw x.badRequest(key, null, "field 'batch_input' is empty");
    }
    if (in.badItem >= 0) {
      throw x.badRequest(
          key, null, "batch_input[" + in.badItem + "] must be an object {\"value\": ...}");
    }
    ColumnPolicy column = x.served().policy().tokenDomain(domain).orElseThrow();
    ProtectionMethod method;
    try {
      method = ProtectionMethod.parse(methodSpec);
    } catch (IllegalArgumentException e) {
      throw x.badRequest(key, null, "field 'method': " + e.getMessage());
    }
    if (!method.equals(column.method())) {
      throw x.badRequest(
          key,
          null,
          "field 'method' is '"
              + Exchange.clip(method.spec())
              + "', but token domain '"
              + domain
              + "' is "
              + column.method().spec()
              + " in the server's policy");
    }
    x.details().put("method", method.spec());
    if (binary && method.kind() != ProtectionMethod.Kind.DETERMINISTIC) {
      throw x.badRequest(key, null, "encoding base64 (binary values) needs method deterministic");
    }
    String outField = TokenFields.resultField(encode);
    int n = items.size();
    Object[] results = new Object[n];
    String[] itemErrors = new String[n];
    int errors = 0;
    int tokenVersion;
    try (Tokenizer tokenizer = keys.tokenizer(key, version, domain, method, TokenMode.LOCAL)) {
      tokenVersion = tokenizer.version();
      for (int i = 0; i < n; i++) {
        Object value = items.get(i);
        if (value == null) {
          continue;
        }
        try {
          results[i] = transform(tokenizer, method, binary, encode, value);
        } catch (TokenException | IllegalArgumentException e) {
          errors++;
          itemErrors[i] = "batch_input[" + i + "]: " + e.getMessage();
        }
      }
      if (view != null) {
        view.apply(results, binary, keys, key); // a masked reader's values never leave in clear
      }
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw failures.of(x, key, version == KeyService.LATEST_VERSION ? null : version, e);
    }
    if (errors > 0) {
      x.details().put("errors", errors);
    }
    x.auditOk(key, tokenVersion);
    metrics.tokenValues(action, method.kind().name().toLowerCase(Locale.ROOT), (long) n - errors);
    String mask = view != null && view.mask() != null ? view.mask().spec() : null;
    x.send(
        200,
        "application/json",
        TokenBatch.answer(tokenVersion, mask, outField, results, itemErrors));
  }

  /**
   * The view a decode request asks for when it names the table column it reads ({@code table},
   * {@code column}, optional {@code value_type} int or long); null, after the audit details name
   * the column, when the policy has no such tokenized column of the key and domain.
   */
  private TokenColumnView columnView(
      Exchange x, String key, String domain, TokenBatch in, KeyGrants grants) {
    String table = requiredString(x, key, in.table, TokenFields.TABLE);
    String column = requiredString(x, key, in.column, TokenFields.COLUMN);
    boolean ints = false;
    if (!TokenBatch.absent(in.valueType)) {
      ints = TokenFields.INT.equals(in.valueType);
      if (!ints && !TokenFields.LONG.equals(in.valueType)) {
        throw x.badRequest(key, null, "field 'value_type' must be int or long");
      }
    }
    TokenColumnView view =
        TokenColumnView.of(x.served().policy(), grants.roles(), key, domain, table, column, ints)
            .orElse(null);
    // the policy's name of the column; a caller's name the policy lacks is clipped
    x.details().put("column", view != null ? view.name() : Exchange.clip(table + "." + column));
    if (view != null && view.mask() != null) {
      x.details().put("view", "masked");
      x.details().put("mask", view.mask().spec());
    }
    return view;
  }

  /**
   * One value through the tokenizer. @throws IllegalArgumentException naming what the value should
   * be (never quoting it)
   */
  private static Object transform(
      Tokenizer tokenizer, ProtectionMethod method, boolean binary, boolean encode, Object value) {
    if (method.numeric()) {
      checkArgument(value instanceof Long, "Value must be an integer for method %s", method.spec());
      long v = (Long) value;
      return encode ? tokenizer.protect(v) : tokenizer.unprotect(v);
    }
    checkArgument(
        value instanceof String,
        "Value must be a string for method %s%s",
        method.spec(),
        (binary ? " (base64 of the bytes)" : ""));
    if (binary) {
      byte[] in;
      try {
        in = Base64.getDecoder().decode((String) value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Value is not valid base64");
      }
      byte[] out = encode ? tokenizer.protect(in) : tokenizer.unprotect(in);
      return Base64.getEncoder().encodeToString(out);
    }
    return encode ? tokenizer.protect((String) value) : tokenizer.unprotect((String) value);
  }

  /** The body of a token batch, read as a stream (400 for malformed JSON). */
  private static TokenBatch readBatch(Exchange x) {
    byte[] bytes = x.readBody();
    if (bytes.length == 0) {
      throw x.emptyBody();
    }
    try {
      return TokenBatch.parse(bytes);
    } catch (IllegalArgumentException e) {
      throw x.malformedJson(e);
    }
  }

  private static String requiredString(Exchange x, String key, Object member, String field) {
    String value = TokenBatch.string(member);
    if (value == null) {
      throw x.missingString(key, field);
    }
    return value;
  }

  /** An optional {@code version}: 0 or absent for the latest version. */
  private static int versionOf(Exchange x, String key, Object member) {
    if (TokenBatch.absent(member)) {
      return KeyService.LATEST_VERSION;
    }
    if (!(member instanceof Long) || (Long) member < 0 || (Long) member > Integer.MAX_VALUE) {
      throw x.badRequest(
          key,
          null,
          "field 'version' must be a version number of key '" + key + "', or 0 for the latest");
    }
    return Math.toIntExact((Long) member);
  }

  /** The optional {@code encoding}: utf-8 (strings, the default) or base64 (binary values). */
  private static boolean binaryEncoding(Exchange x, String key, Object encoding) {
    if (TokenBatch.absent(encoding) || TokenFields.UTF_8.equals(encoding)) {
      return false;
    }
    if (TokenFields.BASE64.equals(encoding)) {
      return true;
    }
    throw x.badRequest(key, null, "field 'encoding' must be utf-8 or base64");
  }
}
