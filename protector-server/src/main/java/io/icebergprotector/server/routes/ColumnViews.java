package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Policy;
import java.util.Optional;
import java.util.Set;

/**
 * Server token mode, table reads: the view of a tokenized column that a decode naming the column
 * answers its caller with, clear values or the column's mask applied by the server. The token
 * routes ask; the server supplies the views (and the masks) when it builds its routes.
 */
@FunctionalInterface
public interface ColumnViews {
  /**
   * The view of {@code column} of {@code table} for a caller with {@code roles}, or empty when the
   * policy has no such tokenized column of ({@code keyId}, {@code domain}): the caller gets the
   * same refusal as for a column it may not read.
   *
   * @param ints whether the column's values are ints (a hash mask then keeps 4 bytes, not 8)
   */
  Optional<View> find(
      Policy policy,
      Set<String> roles,
      String keyId,
      String domain,
      String table,
      String column,
      boolean ints);

  /** One caller's view of one tokenized column. */
  interface View {
    /** Whether the caller reads the column detokenized: clear, or masked by the server. */
    boolean readable();

    /** The mask this server applies, or null for clear values. */
    Mask mask();

    /** {@code table.column}, for the audit line. */
    String name();

    /**
     * Replaces the decoded values by their masks in place (nulls stay null). Values are as in the
     * answer: strings, base64 strings of binary values, longs.
     *
     * @param keys derives the hash mask's key (only for {@code hash})
     * @param keyId the column's master key
     */
    void apply(Object[] values, boolean binary, KeyService keys, String keyId);
  }
}
