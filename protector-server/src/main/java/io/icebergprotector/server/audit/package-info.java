/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * What the key server records of its work: the audit log, one line per decision (a request is
 * refused when its line cannot be written), and the Prometheus metrics.
 */
package io.icebergprotector.server.audit;
