# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
