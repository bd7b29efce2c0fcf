package io.icebergprotector.spark;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.compat.SparkCompat;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.Option;
import scala.Tuple3;

/**
 * The SQL functions {@code protect(value, domain)} and {@code unprotect(token, domain)}: tokens of
 * a policy's token domain outside protected tables (a CSV, a Kafka stream), equal to the tokens the
 * table's columns of that domain hold. They use the policy, principal and key service of the
 * session's protecting catalog whose policy has the domain. The domain must be a string literal;
 * the call is authorized when the query is analyzed ({@code protect}: a writer of an entry with a
 * column of the domain, or a clear reader of one; {@code unprotect}: a clear reader), and each
 * task's key request is checked again by the key service. Tokens use the latest key version.
 * Catalog option {@code protector.kms.token-mode} decides where they are computed: {@code local}
 * (the task derives the token key) or {@code server} (the key server tokenizes; the key never
 * reaches the executor, and every value is one request, so server mode suits small volumes here).
 */
final class TokenFunctions {
  private TokenFunctions() {}

  // Raw: the builder's Seq is scala.collection.Seq on Scala 2.12 and immutable.Seq on 2.13; a
  // builder over scala.collection.Seq accepts both.
  @SuppressWarnings({"unchecked", "rawtypes"})
  static void register(SparkSessionExtensions extensions) {
    extensions.injectFunction((Tuple3) function("protect", true));
    extensions.injectFunction((Tuple3) function("unprotect", false));
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
    ProtectingCatalog catalog = catalogFor(session, domain, name);
    Policy policy = catalog.protectorContext().policy();
    Principal principal = catalog.principal(session);
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
    ColumnPolicy column = policy.tokenDomain(domain).orElseThrow();
    KeyScope scope = catalog.protectorContext().keyScope(principal, policy);
    Call call = new Call(scope, policy, column, forward);
    boolean numeric = column.method().numeric();
    DataType type = numeric ? DataTypes.LongType : DataTypes.StringType;
    UserDefinedFunction udf =
        numeric
            ? functions.udf((UDF1<Long, Long>) call::applyLong, type)
            : functions.udf((UDF1<String, String>) call::applyString, type);
    return SparkCompat.expression(udf.apply(SparkCompat.column(args.get(0))));
  }

  /** The first protecting catalog (the current one first) whose policy has {@code domain}. */
  private static ProtectingCatalog catalogFor(SparkSession session, String domain, String name) {
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
          return c;
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

  /** One call site's tokenizer; each task opens its own and wipes it when the task ends. */
  private static final class Call implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final KeyScope scope;
    private final Policy policy;
    private final String keyId;
    private final String domain;
    // the method as its spec: the policy model travels as text
    private final String method;
    private final boolean forward;
    private transient Tokenizer tokenizer;

    Call(KeyScope scope, Policy policy, ColumnPolicy column, boolean forward) {
      this.scope = scope;
      this.policy = policy;
      this.keyId = column.keyId();
      this.domain = column.domain();
      this.method = column.method().spec();
      this.forward = forward;
    }

    String applyString(String value) {
      return forward ? tokenizer().protect(value) : tokenizer().unprotect(value);
    }

    Long applyLong(Long value) {
      if (value == null) {
        return null;
      }
      return forward ? tokenizer().protect(value) : tokenizer().unprotect(value);
    }

    private Tokenizer tokenizer() {
      if (tokenizer == null) {
        KeyService keys = KeyServiceRegistry.obtain(scope, policy);
        ProtectionMethod m = ProtectionMethod.parse(method);
        // local: the task derives the token key; server: each value goes to the key server
        tokenizer =
            keys.tokenizer(keyId, KeyService.LATEST_VERSION, domain, m, scope.kms().tokenMode());
        Tokenizer opened = tokenizer;
        TaskContext task = TaskContext.get();
        if (task != null) {
          task.addTaskCompletionListener(
              (org.apache.spark.util.TaskCompletionListener) ctx -> opened.close());
        }
      }
      return tokenizer;
    }
  }
}
