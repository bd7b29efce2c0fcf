/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.remote.WhoAmI;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code protector whoami}: who the key server (or a local policy) takes you for, and what you may
 * use.
 */
@Command(
    name = "whoami",
    header = "Show your principal, groups, roles and usable keys (key server or local policy).",
    mixinStandardHelpOptions = true,
    description =
        "With --url, asks the key server (GET /v1/protector/whoami) who its token belongs to. "
            + "Without, reads the local policy as --user (default: the OS user).")
public final class WhoamiCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin KeyBackendOptions.Server server;
  @Mixin OutputFormat format;

  @Option(
      names = "--policy",
      paramLabel = "<file>",
      description = "Local: the policy (default: " + Workspace.DEFAULT_POLICY + ").")
  Path policy;

  @Option(
      names = {"-u", "--user"},
      paramLabel = "<user>",
      description = "Local: the principal (default: the OS user).")
  String user;

  @Option(
      names = {"-g", "--groups"},
      paramLabel = "<g1,g2>",
      description = "Local: the principal's groups, comma separated.")
  String groups;

  @Override
  public Integer call() {
    Map<String, Object> doc;
    if (server.given()) {
      if (policy != null || user != null || groups != null) {
        throw new ParameterException(
            spec.commandLine(),
            "--policy, --user and --groups are for the local"
                + " policy; with --url the key server decides who the token belongs to");
      }
      doc = remote();
    } else {
      if (server.anyServerOption()) {
        throw new ParameterException(
            spec.commandLine(),
            "--token-env, --token-file, --trust-cert and"
                + " --allow-insecure-http need --url (they configure the key server)");
      }
      doc = local();
    }
    PrintWriter out = spec.commandLine().getOut();
    if (format.json()) {
      OutputFormat.print(out, doc);
      return ProtectorCli.OK;
    }
    out.println("principal: " + doc.get("principal") + " (" + doc.get("source") + ")");
    out.println("groups:    " + joined(doc.get("groups")));
    out.println("roles:     " + joined(doc.get("roles")));
    if (doc.get("admin") != null) {
      out.println(
          "admin:     " + ((Boolean) doc.get("admin") ? "yes (may administer keys)" : "no"));
    }
    out.println(
        "wraps:     " + joined(doc.get("wrappable_keys")) + " (keys of the tables it writes)");
    out.println(
        "unwraps:   "
            + joined(doc.get("unwrappable_keys"))
            + " (keys of the columns it reads, footer keys)");
    out.println("policy:    " + doc.get("policy_digest") + " (content digest)");
    out.flush();
    return ProtectorCli.OK;
  }

  private Map<String, Object> remote() {
    Map<String, String> options = new LinkedHashMap<>();
    server.addTo(options);
    KmsSettings settings;
    try {
      settings = KmsSettings.fromOptions(options, null);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), e.getMessage().replace(KmsOptions.PREFIX, "--"));
    }
    WhoAmI me;
    try (RemoteKeyService keys = KeyServices.openRemote(settings)) {
      me = keys.whoami();
    }
    return JsonCodec.object(
        "source", server.describe(),
        "principal", me.principal(),
        "groups", me.groups(),
        "roles", me.roles(),
        "admin", me.admin(),
        "wrappable_keys", me.wrappableKeys(),
        "unwrappable_keys", me.unwrappableKeys(),
        "policy_digest", me.policyDigest() == null ? "not sent by the server" : me.policyDigest());
  }

  private Map<String, Object> local() {
    Path file = policy != null ? policy : Workspace.defaultPolicy();
    Policy p = Policy.load(file.toString());
    Principal who =
        PolicyCommand.principal(user != null ? user : System.getProperty("user.name"), groups);
    return JsonCodec.object(
        "source",
        "policy " + file,
        "principal",
        who.user(),
        "groups",
        new ArrayList<>(who.groups()),
        "roles",
        new ArrayList<>(p.rolesOf(who)),
        "admin",
        null,
        "wrappable_keys",
        new ArrayList<>(p.wrappableKeys(who)),
        "unwrappable_keys",
        new ArrayList<>(p.unwrappableKeys(who)),
        "policy_digest",
        p.contentDigest());
  }

  private static String joined(Object list) {
    List<?> l = (List<?>) list;
    return l.isEmpty() ? "none" : String.join(", ", l.stream().map(String::valueOf).toList());
  }
}
