/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.launch;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Runs Iceberg's {@code org.apache.iceberg.rest.RESTCatalogServer} (iceberg-open-api test fixtures)
 * bound to 127.0.0.1 only. The fixture's Jetty listens on all interfaces; this launcher starts it,
 * then re-binds its connector to loopback on the same port.
 *
 * <p>Runs in the server's own JVM, whose classpath has Iceberg core and Jetty 12 but not Spark; so
 * this class uses reflection only and depends on nothing but the JDK. Configuration comes from the
 * {@code CATALOG_*} environment variables the fixture reads ({@code CATALOG_REST_PORT} is the
 * port).
 */
public final class LoopbackRestCatalogServer {
  private LoopbackRestCatalogServer() {}

  public static void main(String[] args) throws Exception {
    Class<?> serverClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer");
    Constructor<?> ctor = serverClass.getDeclaredConstructor();
    ctor.setAccessible(true);
    Object server = ctor.newInstance();
    serverClass.getMethod("start", boolean.class).invoke(server, false);

    Field field = serverClass.getDeclaredField("httpServer");
    field.setAccessible(true);
    Object jetty = field.get(server);
    for (Object connector : (Object[]) jetty.getClass().getMethod("getConnectors").invoke(jetty)) {
      call(connector, "stop");
      connector.getClass().getMethod("setHost", String.class).invoke(connector, "127.0.0.1");
      call(connector, "start");
      Object port = connector.getClass().getMethod("getLocalPort").invoke(connector);
      System.out.println("LoopbackRestCatalogServer: listening on 127.0.0.1:" + port);
    }
    System.out.flush();
    jetty.getClass().getMethod("join").invoke(jetty);
  }

  private static void call(Object target, String method) throws Exception {
    Method m = target.getClass().getMethod(method);
    m.invoke(target);
  }
}
