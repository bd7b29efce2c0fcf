/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.PrincipalBinding;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.TokenKeyRule;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.ScalaUDF;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StringType;
import scala.Option;
import scala.Tuple3;

/**
 * The SQL functions {@code protect(value, domain)} and {@code unprotect(token, domain)}: tokens of
 * a policy's token domain outside protected tables (a CSV, a Kafka stream), equal to the tokens the
 * table's columns of that domain hold. They use the policy, principal and key service of the
 * session's protecting catalog whose policy has the domain. The domain must be a string literal;
 * the call is authorized when the query is analyzed ({@code protect}: a writer of an entry with a
 * column of the domain, or a clear reader of one; {@code unprotect}: a clear reader), bound to the
 * principal of the session that runs the query and authorized again for it ({@link
 * TokenCallBinding}), and each task's key request is checked again by the key service. Tokens use
 * the latest key version. Catalog option {@code protector.kms.token-mode} decides where they are
 * computed: {@code local} (the task derives the token key) or {@code server} (the key server
 * tokenizes; the key never reaches the executor). In server mode, {@link TokenCallBatching} sends
 * the values of calls that every row evaluates (projections, aggregates, join keys) to the server
 * in batches; others (a filter, a branch of a conditional) send one request per value.
 */
public final class TokenFunctions {
  private TokenFunctions() {}

  // Raw: the builder's Seq is scala.collection.Seq on Scala 2.12 and immutable.Seq on 2.13; a
  // builder over scala.collection.Seq accepts both.
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void register(SparkSessionExtensions extensions) {
    extensions.injectFunction((Tuple3) function("protect", true));
    extensions.injectFunction((Tuple3) function("unprotect", false));
    // bind every call to the session that analyzes the query that runs it (before the optimizer
    // may evaluate a call over a local relation), then batch the bound calls
    extensions.injectPostHocResolutionRule(TokenCallBinding::new);
    extensions.injectPreCBORule(session -> new TokenCallBatching());
  }

  private static Tuple3<
          FunctionIdentifier,
          ExpressionInfo,
          scala.Function1<scala.collection.Seq<Expression>, Expression>>
      function(String name, boolean forward) {
    ExpressionInfo info =
        new ExpressionInfo(
            TokenFunctions.class.getName(),
            null,
            name,
            forward
                ? "_FUNC_(value, domain) - the token of value in the policy's token domain"
                : "_FUNC_(token, domain) - the value of a token of the policy's token domain",
            "",
            "",
            "",
            "misc_funcs",
            "",
            "",
            "");
    scala.Function1<scala.collection.Seq<Expression>, Expression> builder =
        children -> build(name, forward, ScalaCollections.asJava(children));
    return new Tuple3<>(new FunctionIdentifier(name, Option.empty()), info, builder);
  }

  private static Expression build(String name, boolean forward, List<Expression> args) {
    if (args.size() != 2) {
      throw new ProtectorException(
          String.format(
              "Cannot call %s with %d arguments: it takes (%s, domain)",
              name, args.size(), forward ? "value" : "token"));
    }
    Expression domainArg = args.get(1);
    Object literal = domainArg.foldable() ? domainArg.eval(null) : null;
    if (literal == null) {
      throw new ProtectorException(
          String.format(
              "Cannot call %s: its domain must be a string literal naming a token domain of the"
                  + " policy, got %s",
              name, domainArg.sql()));
    }
    String domain = literal.toString();
    SparkSession session = SparkSession.active();
    CatalogPlugin plugin = catalogFor(session, domain, name);
    ProtectingCatalog catalog = ProtectingCatalog.unwrap(plugin);
    Policy policy = catalog.protectorContext().policy();
    // refused at once for the principal that writes the query; bound (and checked again) for the
    // principal of the session that runs it
    authorize(name, forward, domain, catalog.principal(session), policy, catalog);
    ColumnPolicy column = policy.tokenDomain(domain).orElseThrow();
    Expression value = args.get(0);
    DataType type = resultType(name, domain, column.method(), value.dataType());
    TokenCall call = new TokenCall(plugin.name(), column, forward, type);
    // The call itself is the UDF's function: TokenCallBinding and TokenCallBatching recognize it.
    return new ScalaUDF(
        call,
        type,
        ScalaCollections.asScalaList(List.of(value)),
        ScalaCollections.asScalaList(List.of()),
        Option.empty(),
        Option.apply(name),
        true,
        true);
  }

  /**
   * {@code call} bound to the principal that {@code session} acts as now, under its catalog's
   * current policy, after the same checks as when the call was written.
   *
   * @throws ProtectorException when the session has no such protecting catalog, the policy no
   *     longer has the domain, or the principal may not make the call
   */
  static TokenCall bind(SparkSession session, TokenCall call, DataType type) {
    String name = call.forward() ? "protect" : "unprotect";
    CatalogPlugin plugin;
    try {
      plugin = session.sessionState().catalogManager().catalog(call.catalogName());
    } catch (RuntimeException e) {
      plugin = null;
    }
    ProtectingCatalog catalog = plugin == null ? null : ProtectingCatalog.unwrap(plugin);
    if (catalog == null) {
      throw new ProtectorException(
          String.format(
              "Cannot run %s: it was written against protecting catalog '%s', which the session"
                  + " that runs it does not have (%s); a call always runs with the keys of the"
                  + " session that runs it",
              call.describe(),
              call.catalogName(),
              plugin == null ? "not configured" : plugin.getClass().getName()));
    }
    ProtectorContext context = catalog.protectorContext();
    Policy policy = context.policy();
    Principal principal = catalog.principal(session);
    if (policy.tokenDomain(call.domain()).isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Cannot run %s: the policy %s of catalog '%s' no longer has token domain '%s'",
              call.describe(), policy.origin(), call.catalogName(), call.domain()));
    }
    authorize(name, call.forward(), call.domain(), principal, policy, catalog);
    ColumnPolicy column = policy.tokenDomain(call.domain()).orElseThrow();
    PrincipalBinding binding =
        context.callBinding(
            call.catalogName(), call.describe(), principal, session.sparkContext().sparkUser());
    return new TokenCall(call.catalogName(), column, call.forward(), type)
        .boundTo(context.keyScope(principal, policy), policy, binding);
  }

  /**
   * Refuses a call the principal may not make: {@code protect} needs a writer of an entry with a
   * column of the domain or a clear reader of one, {@code unprotect} a clear reader; in local token
   * mode {@code protect} needs the token key, which only clear readers get.
   */
  private static void authorize(
      String name,
      boolean forward,
      String domain,
      Principal principal,
      Policy policy,
      ProtectingCatalog catalog) {
    boolean allowed =
        forward ? policy.mayProtect(principal, domain) : policy.mayUnprotect(principal, domain);
    if (!allowed) {
      throw new ProtectorException(
          String.format(
              "Cannot %s values of token domain '%s': principal %s (roles %s) is %s",
              name,
              domain,
              principal,
              policy.rolesOf(principal),
              forward
                  ? "neither a writer of an entry with a column of that domain nor a clear reader of"
                      + " one"
                  : "not a clear reader of a column of that domain"));
    }
    KmsSettings kms = catalog.protectorContext().kms();
    String keyId = policy.tokenDomain(domain).orElseThrow().keyId();
    if (kms.tokenMode() == TokenMode.LOCAL
        && !policy.mayReleaseTokenKey(principal, keyId, domain)) {
      throw new ProtectorException(
          TokenKeyRule.refusal(
              "call " + name + " on token domain '" + domain + "'",
              principal,
              policy,
              "tokenize values",
              domain,
              kms));
    }
  }

  /**
   * The type a call returns for a value of {@code valueType}: strings and binaries for
   * deterministic domains (a binary's token is the bytes of its printable token, as a binary column
   * stores it), strings for string fpe domains, longs for integer fpe domains.
   */
  private static DataType resultType(
      String name, String domain, ProtectionMethod method, DataType valueType) {
    if (valueType instanceof NullType) {
      return method.numeric() ? DataTypes.LongType : DataTypes.StringType;
    }
    if (method.numeric()) {
      if (valueType.equals(DataTypes.LongType)
          || valueType.equals(DataTypes.IntegerType)
          || valueType.equals(DataTypes.ShortType)
          || valueType.equals(DataTypes.ByteType)) {
        return DataTypes.LongType;
      }
    } else if (valueType instanceof StringType) {
      return DataTypes.StringType;
    } else if (valueType instanceof BinaryType
        && method.kind() == ProtectionMethod.Kind.DETERMINISTIC) {
      return DataTypes.BinaryType;
    }
    throw new ProtectorException(
        String.format(
            "Cannot call %s on a value of type %s: token domain '%s' (method %s) takes %s",
            name,
            valueType.simpleString(),
            domain,
            method.spec(),
            method.numeric()
                ? "integers (tinyint, smallint, int, bigint)"
                : method.kind() == ProtectionMethod.Kind.DETERMINISTIC
                    ? "strings or binaries"
                    : "strings (CAST the value to string first)"));
  }

  /** The first protecting catalog (the current one first) whose policy has {@code domain}. */
  private static CatalogPlugin catalogFor(SparkSession session, String domain, String name) {
    CatalogManager catalogs = session.sessionState().catalogManager();
    Set<String> names = new LinkedHashSet<>();
    names.add(catalogs.currentCatalog().name());
    for (String key : ScalaCollections.asJava(session.conf().getAll()).keySet()) {
      String prefix = "spark.sql.catalog.";
      if (key.startsWith(prefix) && key.indexOf('.', prefix.length()) < 0) {
        names.add(key.substring(prefix.length()));
      }
    }
    List<String> protecting = new ArrayList<>();
    List<RuntimeException> failed = new ArrayList<>();
    for (String n : names) {
      CatalogPlugin plugin;
      try {
        plugin = catalogs.catalog(n);
      } catch (RuntimeException e) {
        failed.add(e); // a catalog that cannot start: say why below, it may be the one meant
        continue;
      }
      ProtectingCatalog c = ProtectingCatalog.unwrap(plugin);
      if (c != null) {
        protecting.add(n);
        if (c.protectorContext().policy().tokenDomain(domain).isPresent()) {
          return plugin;
        }
      }
    }
    StringBuilder why = new StringBuilder();
    for (RuntimeException e : failed) {
      why.append("; a catalog failed to start: ").append(e.getMessage());
    }
    ProtectorException error =
        new ProtectorException(
            String.format(
                "Cannot %s: no protecting catalog of this session has token domain '%s' in its"
                    + " policy (protecting catalogs: %s)%s",
                name, domain, protecting.isEmpty() ? "none" : String.join(", ", protecting), why));
    failed.forEach(error::addSuppressed);
    throw error;
  }
}
