package io.icebergprotector.server;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.server.routes.ColumnViews;
import java.util.Optional;
import java.util.Set;

/**
 * The token routes' column views, as {@link TokenColumnView} computes them from the policy. The
 * view and its masks live in this package; the routes reach them only through {@link ColumnViews}.
 */
final class PolicyColumnViews implements ColumnViews {
  @Override
  public Optional<View> find(
      Policy policy,
      Set<String> roles,
      String keyId,
      String domain,
      String table,
      String column,
      boolean ints) {
    return TokenColumnView.of(policy, roles, keyId, domain, table, column, ints)
        .map(ViewOfColumn::new);
  }

  private record ViewOfColumn(TokenColumnView view) implements View {
    @Override
    public boolean readable() {
      return view.readable();
    }

    @Override
    public Mask mask() {
      return view.mask();
    }

    @Override
    public String name() {
      return view.name();
    }

    @Override
    public void apply(Object[] values, boolean binary, KeyService keys, String keyId) {
      view.apply(values, binary, keys, keyId);
    }
  }
}
