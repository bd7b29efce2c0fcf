package io.icebergprotector.server.http;

import java.util.Map;

/** The answer to one request, for the transport to send. */
record Reply(int status, Map<String, String> headers, byte[] body) {}
