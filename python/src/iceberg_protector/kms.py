# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""PyArrow's Parquet Modular Encryption through the key server."""

from __future__ import annotations

import pyarrow.parquet.encryption as pe

from .client import KeyServerClient


class KeyServerKmsClient(pe.KmsClient):
    """A PyArrow ``KmsClient`` whose master keys live in the key server.

    Key-encryption keys are wrapped and unwrapped with ``POST /v1/transit/encrypt|decrypt/<key>``
    as the token's principal; the server releases a key only to principals its policy entitles,
    and audits each release. A refusal is raised as :class:`~iceberg_protector.KeyAccessDenied`
    naming the principal and the key.
    """

    def __init__(self, client: KeyServerClient) -> None:
        super().__init__()
        self._client = client

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        return self._client.wrap(master_key_identifier, bytes(key_bytes))

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        return self._client.unwrap(master_key_identifier, wrapped_key)


def crypto_factory(client: KeyServerClient) -> pe.CryptoFactory:
    """A PyArrow ``CryptoFactory`` whose KMS client is the key server, as ``client``'s principal."""

    def factory(_config: pe.KmsConnectionConfig) -> pe.KmsClient:
        return KeyServerKmsClient(client)

    return pe.CryptoFactory(factory)


def connection_config(client: KeyServerClient) -> pe.KmsConnectionConfig:
    """The connection PyArrow records in key material: the server's first URL."""
    return pe.KmsConnectionConfig(kms_instance_url=client.urls[0])
