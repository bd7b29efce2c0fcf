/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

/**
 * The key server's answer to a policy read.
 *
 * @param text the policy text served to the caller; null when the server answered "not modified"
 * @param etag the ETag of the text served, for the next conditional read
 * @param digest the content digest of the server's whole policy ({@code Policy.contentDigest()});
 *     null from a server that does not send it
 */
public record PolicyResponse(String text, String etag, String digest) {
  /** Whether the server sent a policy text (false: the one named by the ETag asked with). */
  public boolean modified() {
    return text != null;
  }
}
