# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The errors of the package: each names its cause (principal, key, table, column or file)."""

from __future__ import annotations


class ProtectorError(Exception):
    """Base of every error this package raises."""


class KeyServerError(ProtectorError):
    """The key server answered with an error (the message is the server's)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class AuthenticationError(KeyServerError):
    """The key server did not accept the token (401): missing, expired or forged."""


class KeyAccessDenied(KeyServerError):
    """The key server refused a key to the principal (403)."""

    def __init__(self, message: str, principal: str | None, key: str | None) -> None:
        super().__init__(message, 403)
        self.principal = principal
        self.key = key


class KeyServerUnavailable(ProtectorError):
    """No key server URL answered (every URL of the comma list was tried)."""


class PolicyError(ProtectorError):
    """The served policy does not cover what was asked, or cannot be read."""


class ColumnAccessDenied(ProtectorError):
    """A column with ``on-denied = fail`` was read by a principal who may not see it."""


class FileIntegrityError(ProtectorError):
    """A file is not the one its table expects: swapped, replayed, unbound or not protected."""
