/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.config.ServerConfig;
import io.icebergprotector.server.http.Exchanges;
import io.icebergprotector.server.http.Router;

/** The key server's paths and the routes serving them. A new endpoint is one more line here. */
public final class RouteTable {
  static final String TRANSIT = Endpoints.transit(Endpoints.TRANSIT_MOUNT);
  static final String PROTECTOR = Endpoints.PROTECTOR;

  private RouteTable() {}

  /** The router of the whole API over {@code keys}, under {@code config}'s limits. */
  public static Router of(
      Exchanges exchanges, KeyService keys, ServerConfig config, Metrics metrics) {
    KeyFailures failures = new KeyFailures(keys);
    StatusRoutes status = new StatusRoutes(metrics, config.metricsRequireAuth());
    PolicyRoutes policy = new PolicyRoutes();
    TransitRoutes transit = new TransitRoutes(keys, failures, config.autoCreateKeys());
    KeyAdminRoutes admin = new KeyAdminRoutes(keys, failures);
    TokenRoutes tokens = new TokenRoutes(keys, failures, metrics, config.maxBatchValues());
    return new Router(exchanges)
        .exact("/health", (x, tail) -> status.health(x))
        .exact("/metrics", (x, tail) -> status.metrics(x))
        .exact(Endpoints.POLICY, (x, tail) -> policy.readPolicy(x))
        .exact(Endpoints.DECLASSIFY, (x, tail) -> policy.declassify(x))
        .exact(Endpoints.WHOAMI, (x, tail) -> policy.whoami(x))
        .under(TRANSIT, Endpoints.ENCRYPT, (x, t) -> transit.keyOperation(x, Endpoints.ENCRYPT, t))
        .under(TRANSIT, Endpoints.DECRYPT, (x, t) -> transit.keyOperation(x, Endpoints.DECRYPT, t))
        .under(TRANSIT, Endpoints.HMAC, (x, t) -> transit.keyOperation(x, Endpoints.HMAC, t))
        .under(TRANSIT, Endpoints.KEYS, admin::keys)
        .under(PROTECTOR, Endpoints.TOKEN_KEY, tokens::tokenKey)
        .under(PROTECTOR, Endpoints.ENCODE, (x, tail) -> tokens.tokenBatch(x, tail, true))
        .under(PROTECTOR, Endpoints.DECODE, (x, tail) -> tokens.tokenBatch(x, tail, false));
  }
}
