package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.config.ServerConfig;
import io.icebergprotector.server.http.Exchanges;
import io.icebergprotector.server.http.Router;

/** The key server's paths and the routes serving them. A new endpoint is one more line here. */
public final class RouteTable {
  static final String TRANSIT = "/v1/transit/";
  static final String PROTECTOR = "/v1/protector/";

  private RouteTable() {}

  /**
   * The router of the whole API over {@code keys}, under {@code config}'s limits.
   *
   * @param views the views of tokenized table columns that token decodes answer with
   */
  public static Router of(
      Exchanges exchanges,
      KeyService keys,
      ServerConfig config,
      Metrics metrics,
      ColumnViews views) {
    KeyFailures failures = new KeyFailures(keys);
    StatusRoutes status = new StatusRoutes(metrics, config.metricsRequireAuth());
    PolicyRoutes policy = new PolicyRoutes();
    TransitRoutes transit = new TransitRoutes(keys, failures, config.autoCreateKeys());
    KeyAdminRoutes admin = new KeyAdminRoutes(keys, failures);
    TokenRoutes tokens = new TokenRoutes(keys, failures, metrics, views, config.maxBatchValues());
    return new Router(exchanges)
        .exact("/health", (x, tail) -> status.health(x))
        .exact("/metrics", (x, tail) -> status.metrics(x))
        .exact(PROTECTOR + "policy", (x, tail) -> policy.readPolicy(x))
        .exact(PROTECTOR + "declassify", (x, tail) -> policy.declassify(x))
        .exact(PROTECTOR + "whoami", (x, tail) -> policy.whoami(x))
        .under(TRANSIT, "encrypt", (x, tail) -> transit.keyOperation(x, "encrypt", tail))
        .under(TRANSIT, "decrypt", (x, tail) -> transit.keyOperation(x, "decrypt", tail))
        .under(TRANSIT, "hmac", (x, tail) -> transit.keyOperation(x, "hmac", tail))
        .under(TRANSIT, "keys", admin::keys)
        .under(PROTECTOR, "token-key", tokens::tokenKey)
        .under(PROTECTOR, "encode", (x, tail) -> tokens.tokenBatch(x, tail, true))
        .under(PROTECTOR, "decode", (x, tail) -> tokens.tokenBatch(x, tail, false));
  }
}
