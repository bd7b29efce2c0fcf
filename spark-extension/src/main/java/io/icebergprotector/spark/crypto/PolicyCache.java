package io.icebergprotector.spark.crypto;

import io.icebergprotector.policy.Policy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Executors parse each shipped policy text once. */
final class PolicyCache {
  private static final Map<String, Policy> CACHE = new ConcurrentHashMap<>();

  private PolicyCache() {}

  static Policy parse(String text, String origin) {
    return CACHE.computeIfAbsent(
        KmsSettings.sha256Hex(origin + "\u0000" + text), k -> Policy.parse(text, origin));
  }
}
