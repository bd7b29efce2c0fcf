/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import java.io.Serializable;
import java.util.function.Supplier;

/**
 * Where a {@code hash} mask's HMAC key comes from, as part of a Catalyst plan: serializable (the
 * key is derived where the plan runs, and never enters it), with {@code equals} for plan comparison
 * and a {@code toString} that names the key, never its bytes. {@link #get()} returns a copy that
 * the caller owns (and wipes).
 */
public interface HashKeySource extends Supplier<byte[]>, Serializable {}
