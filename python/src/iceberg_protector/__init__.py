# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""Iceberg Protector for Python: protected Parquet files and Iceberg tables read and written
without Spark, through the key server, in each principal's view."""

from .admission import UnverifiedFileError, UnverifiedFileWarning
from .binding import aad_prefix
from .client import Identity, KeyServerClient
from .errors import (
    AuthenticationError,
    ColumnAccessDenied,
    FileIntegrityError,
    KeyAccessDenied,
    KeyServerError,
    KeyServerUnavailable,
    PolicyError,
    ProtectorError,
)
from .kms import KeyServerKmsClient, crypto_factory
from .policy import Access, AccessLevel, ServedPolicy
from .protector import Protector
from .views import REASON_KEY, VIEW_KEY, MaskedColumnWarning

__all__ = [
    "Access",
    "AccessLevel",
    "AuthenticationError",
    "ColumnAccessDenied",
    "FileIntegrityError",
    "Identity",
    "KeyAccessDenied",
    "KeyServerClient",
    "KeyServerError",
    "KeyServerKmsClient",
    "KeyServerUnavailable",
    "MaskedColumnWarning",
    "PolicyError",
    "Protector",
    "ProtectorError",
    "REASON_KEY",
    "ServedPolicy",
    "UnverifiedFileError",
    "UnverifiedFileWarning",
    "VIEW_KEY",
    "aad_prefix",
    "crypto_factory",
]
