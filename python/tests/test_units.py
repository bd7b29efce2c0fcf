# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""Unit tests that need no server: footer parsing, markers, policy errors and client settings."""

from __future__ import annotations

import base64
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

from iceberg_protector import FileIntegrityError, KeyServerClient, PolicyError, ServedPolicy
from iceberg_protector.binding import (
    aad_prefix,
    check_binding,
    marker_kind,
    read_footer_crypto,
)


class _InMemoryKms(pe.KmsClient):
    """Wraps keys as base64: enough to make PyArrow write an encrypted file whose tail we parse."""

    def __init__(self, _config: pe.KmsConnectionConfig) -> None:
        super().__init__()

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        return base64.b64encode(key_bytes).decode()

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        return base64.b64decode(wrapped_key)


def _encrypted(plaintext_footer: bool, algorithm: str) -> bytes:
    table = pa.table({"id": [1, 2], "ssn": ["a\x8d", "b"], "s": [{"zip": "z"}, None]})
    config = pe.EncryptionConfiguration(
        footer_key="footer",
        column_keys={"pii": ["ssn", "s.zip"]},
        plaintext_footer=plaintext_footer,
        encryption_algorithm=algorithm,
    )
    properties = pe.CryptoFactory(_InMemoryKms).file_encryption_properties(
        pe.KmsConnectionConfig(), config
    )
    out = io.BytesIO()
    pq.write_table(table, out, encryption_properties=properties)
    return out.getvalue()


@pytest.mark.parametrize("plaintext_footer", [False, True])
@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
def test_the_footer_tells_mode_and_algorithm(plaintext_footer: bool, algorithm: str) -> None:
    data = _encrypted(plaintext_footer, algorithm)
    crypto = read_footer_crypto(io.BytesIO(data), len(data), "f.parquet")
    assert crypto.encrypted
    assert crypto.encrypted_footer is not plaintext_footer
    if plaintext_footer and algorithm == "AES_GCM_CTR_V1":
        # PyArrow 22 was seen to record AES_GCM_V1 in a plaintext footer of CTR columns
        assert crypto.algorithm in ("AES_GCM_V1", "AES_GCM_CTR_V1")
    else:
        assert crypto.algorithm == algorithm
    assert crypto.aad_prefix is None  # PyArrow's key tools store none


def test_a_plain_file_is_not_encrypted() -> None:
    out = io.BytesIO()
    pq.write_table(pa.table({"a": [1]}), out)
    data = out.getvalue()
    assert not read_footer_crypto(io.BytesIO(data), len(data), "p.parquet").encrypted


def test_a_file_that_is_not_parquet_names_the_file() -> None:
    with pytest.raises(FileIntegrityError, match="Cannot read x.parquet: it does not end as"):
        read_footer_crypto(io.BytesIO(b"0" * 64), 64, "x.parquet")
    with pytest.raises(FileIntegrityError, match="is not a Parquet file"):
        read_footer_crypto(io.BytesIO(b"PAR1"), 4, "tiny.parquet")


def test_binding_checks_name_the_file_and_what_it_is_bound_to() -> None:
    data = _encrypted(False, "AES_GCM_V1")
    crypto = read_footer_crypto(io.BytesIO(data), len(data), "f.parquet")
    with pytest.raises(FileIntegrityError, match="bound before files stored their binding"):
        check_binding(crypto, "u-1", "s3://b/t/data/f.parquet", "db.t")
    stored = type(crypto)(True, True, "AES_GCM_V1", aad_prefix("u-2", "g.parquet"), False)
    with pytest.raises(FileIntegrityError, match="bound to table UUID u-2, file g.parquet"):
        check_binding(stored, "u-1", "s3://b/t/data/f.parquet", "db.t")
    check_binding(
        type(crypto)(True, True, "AES_GCM_V1", aad_prefix("u-1", "f.parquet"), False),
        "u-1",
        "s3://b/t/data/f.parquet",
        "db.t",
    )


def test_markers() -> None:
    assert marker_kind(None) == "none"
    assert marker_kind(b"IPFB\x01\x01") == "bound"
    assert marker_kind(b"IPFB\x02\x01") == "unsupported"
    assert marker_kind(b"\x01avro") == "foreign"


def test_policy_errors_name_the_cause() -> None:
    with pytest.raises(PolicyError, match="Cannot parse the served policy"):
        ServedPolicy.parse("protector { tables { ")
    with pytest.raises(PolicyError, match="has no 'protector' block"):
        ServedPolicy.parse("other {}")
    with pytest.raises(PolicyError, match=r"tables.db.t, column ssn: it has no key"):
        ServedPolicy.parse('protector { tables { "db.t" { footer-key = f, columns { ssn {} } } } }')


def test_path_prefixes_take_the_longest_match() -> None:
    policy = ServedPolicy.parse(
        'protector { paths { "file:/d/pii/" { footer-key = f },'
        ' "file:/d/pii/deep/" { footer-key = g } } }'
    )
    assert policy.path_entry("file:/d/pii/deep/x.parquet").footer_key == "g"
    assert policy.path_entry("file:///d/pii/a/").footer_key == "f"
    assert policy.path_entry("file:/d/piix/a") is None


def test_client_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="only https:// URLs"):
        KeyServerClient("http://127.0.0.1:1", token="t")
    with pytest.raises(ValueError, match="exactly one of token, token_file and token_env"):
        KeyServerClient("https://127.0.0.1:1")
    client = KeyServerClient("https://a:1, https://b:2/", token_env="IP_NO_SUCH_VARIABLE")
    assert client.urls == ["https://a:1", "https://b:2"]
    with pytest.raises(Exception, match="IP_NO_SUCH_VARIABLE is not set"):
        client.token()
