/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The value kernels of the masks ({@link io.icebergprotector.policy.Mask}), in pure Java on plain
 * Java values, so that every engine masks a value alike: the Spark readers call them from their
 * value, vector and Catalyst kernels, and the key server from server token mode. One class per
 * mask: {@link io.icebergprotector.policy.masks.RedactKernel}, {@link
 * io.icebergprotector.policy.masks.PartialKernel}, {@link
 * io.icebergprotector.policy.masks.HashKernel} and {@link
 * io.icebergprotector.policy.masks.YearKernel}; the {@code null} mask has no kernel (every value
 * becomes null). Which mask fits which column type is {@link
 * io.icebergprotector.policy.Mask#appliesTo}; the kernels assume a fitting type. Values use the
 * representations engines hold: UTF-8 bytes or strings, primitives, unscaled decimals, days and
 * microseconds since 1970-01-01 (UTC). {@code testdata/protection-vectors.json} pins the results.
 */
package io.icebergprotector.policy.masks;
