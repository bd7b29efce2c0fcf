package io.icebergprotector.spark.core;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.policy.TablePolicy;

/**
 * Refuses policy entries whose columns ask for field-level tokens. The policy, the tokenizers and
 * the {@code protect}/{@code unprotect} SQL functions support them, but the protected write and
 * read paths store PME-encrypted columns only: reading or writing such a table would silently store
 * something else than the policy says, so it fails instead, naming the column.
 */
public final class TokenizedColumns {
  private TokenizedColumns() {}

  /**
   * @throws ProtectorException for the first column that is not a plain PME column
   */
  public static void refuse(TablePolicy table) {
    for (ColumnPolicy column : table.columns()) {
      boolean tokenized = column.method().kind() != ProtectionMethod.Kind.PME;
      if (tokenized || !column.pme() || !column.tokenRoles().isEmpty()) {
        throw new ProtectorException(
            String.format(
                "Cannot read or write %s: column '%s' is declared with method '%s'%s%s, and"
                    + " protected tables do not tokenize on write or detokenize on read yet;"
                    + " declare it with method = pme, or tokenize values with protect(value,"
                    + " '%s') before writing them to an unprotected column",
                table.name(),
                column.path(),
                column.method().spec(),
                column.pme() ? "" : ", pme = false",
                column.tokenRoles().isEmpty() ? "" : ", token = " + column.tokenRoles(),
                column.domain()));
      }
    }
  }
}
