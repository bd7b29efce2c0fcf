/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The key server's wire format, shared by its client ({@code RemoteKeyService}) and its routes:
 * paths and headers, the field names of every request and answer, the Vault envelope, key metadata,
 * and the strict JSON codec. Both sides spell a field from here, so they cannot spell it
 * differently.
 */
package io.icebergprotector.kms.wire;
