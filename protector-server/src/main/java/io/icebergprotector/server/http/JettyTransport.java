/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Hands Jetty's requests to the {@link Router} and sends its replies. Jetty reads requests without
 * a thread until their headers are complete, so a slow or idle client holds a connection (closed by
 * the idle timeout), never a worker.
 */
public final class JettyTransport extends Handler.Abstract {
  private final Router router;

  public JettyTransport(Router router) {
    super(InvocationType.BLOCKING); // the API reads bodies and writes the audit log blocking
    this.router = router;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Reply reply = router.handle(new JettyCall(request));
    response.setStatus(reply.status());
    HttpFields.Mutable headers = response.getHeaders();
    for (Map.Entry<String, String> h : reply.headers().entrySet()) {
      headers.put(h.getKey(), h.getValue());
    }
    byte[] body = reply.body();
    if (reply.status() != HttpStatus.NO_CONTENT_204) {
      headers.put(HttpHeader.CONTENT_LENGTH, body.length);
    }
    response.write(true, body.length == 0 ? null : ByteBuffer.wrap(body), callback);
    return true;
  }

  private static final class JettyCall implements HttpCall {
    private final Request request;

    JettyCall(Request request) {
      this.request = request;
    }

    @Override
    public String method() {
      return request.getMethod();
    }

    @Override
    public String rawPath() {
      return request.getHttpURI().getPath();
    }

    @Override
    public String rawQuery() {
      return request.getHttpURI().getQuery();
    }

    @Override
    public String header(String name) {
      return request.getHeaders().get(name);
    }

    @Override
    public String clientAddress() {
      SocketAddress remote = request.getConnectionMetaData().getRemoteSocketAddress();
      if (remote instanceof InetSocketAddress
          && ((InetSocketAddress) remote).getAddress() != null) {
        return ((InetSocketAddress) remote).getAddress().getHostAddress();
      }
      return null;
    }

    @Override
    public InputStream body() {
      return Content.Source.asInputStream(request);
    }
  }

  /**
   * Errors Jetty answers itself (a malformed request line, headers over the size limit, a URI it
   * cannot parse) in the API's Vault shape: {@code {"errors":["..."]}}.
   */
  public static final class VaultErrors extends ErrorHandler {
    @Override
    protected void generateResponse(
        Request request,
        Response response,
        int code,
        String message,
        Throwable cause,
        Callback callback)
        throws IOException {
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
      response.write(true, ByteBuffer.wrap(body(code, message)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
      fields.put(HttpHeader.CONTENT_TYPE, "application/json");
      return ByteBuffer.wrap(body(status, reason));
    }

    private static byte[] body(int code, String message) {
      String text = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
      return JsonCodec.write(Envelope.error(text)).getBytes(StandardCharsets.UTF_8);
    }
  }
}
