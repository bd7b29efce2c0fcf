/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import io.icebergprotector.policy.KeyIds;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Takes each request to its route through one {@link Exchange}, and answers whatever the route
 * throws. Routing works on the raw (still percent-encoded) path, so an encoded slash or dot can
 * never turn into a path step: a key name is one segment following {@link KeyIds#RULE}.
 *
 * <p>A path is served by its exact route, or else by the prefix route of its first segment below a
 * prefix (e.g. {@code encrypt} below {@code /v1/transit/}); nothing else matches (404).
 */
public final class Router {
  private static final System.Logger LOG = System.getLogger(Router.class.getName());

  private final Exchanges exchanges;
  private final Map<String, Route> exact = new LinkedHashMap<>();
  private final Map<String, Map<String, Route>> prefixes = new LinkedHashMap<>();

  public Router(Exchanges exchanges) {
    this.exchanges = exchanges;
  }

  /** Serves {@code path} itself with {@code route}. */
  public Router exact(String path, Route route) {
    exact.put(path, route);
    return this;
  }

  /** Serves the paths {@code prefix + action + ...} with {@code route}. */
  public Router under(String prefix, String action, Route route) {
    prefixes.computeIfAbsent(prefix, p -> new LinkedHashMap<>()).put(action, route);
    return this;
  }

  /** Serves one request; never throws. The audit line (if any) is written before this returns. */
  Reply handle(HttpCall call) {
    long start = System.nanoTime();
    Exchange x = exchanges.open(call);
    try {
      dispatch(x);
    } catch (HttpError e) {
      x.sendError(e.status, e.getMessage(), e.closeConnection);
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.ERROR, "internal error on " + x.method() + " " + x.route(), e);
      x.sendError(500, "internal error", true);
    } finally {
      exchanges.metrics.request(x.route(), x.method(), x.status(), System.nanoTime() - start);
    }
    return x.reply();
  }

  private void dispatch(Exchange x) {
    String path = x.path();
    Route route = exact.get(path);
    if (route != null) {
      x.route(path);
      route.serve(x, new String[0]);
      return;
    }
    for (Map.Entry<String, Map<String, Route>> prefix : prefixes.entrySet()) {
      if (path.startsWith(prefix.getKey())) {
        String[] parts = path.substring(prefix.getKey().length()).split("/", -1);
        route = prefix.getValue().get(parts[0]);
        if (route != null) {
          route.serve(x, parts);
          return;
        }
      }
    }
    throw new HttpError(404, "unsupported path");
  }
}
