# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""File binding: the PME AAD prefix that ties each protected file to its table and file name, and
the manifest marker that says a file must carry one (Java: ``FileBinding``, ``FileMarker``)."""

from __future__ import annotations

import hmac
import struct
from dataclasses import dataclass
from typing import BinaryIO

from thrift.protocol.TCompactProtocol import TCompactProtocol
from thrift.Thrift import TType
from thrift.transport.TTransport import TMemoryBuffer

from .errors import FileIntegrityError

SCHEME = "iceberg-protector/file-binding/v1:"
#: The manifest entry's key metadata of a file the protector wrote and bound.
MARKER = b"IPFB\x01\x01"
_MAGIC = b"IPFB"


def file_name(location: str) -> str:
    name = location.rstrip("/").rsplit("/", 1)[-1] if "/" in location else location
    if not name:
        raise ValueError(f"Cannot bind a file location without a file name: {location}")
    return name


def aad_prefix(table_uuid: str, location: str) -> bytes:
    """The AAD prefix of the file at ``location`` of the table with this UUID."""
    return (SCHEME + str(table_uuid) + ":" + file_name(location)).encode("utf-8")


def marker_kind(key_metadata: bytes | None) -> str:
    """``none``, ``bound``, ``foreign`` or ``unsupported``, as ``FileMarker.kindOf``."""
    if not key_metadata:
        return "none"
    if len(key_metadata) < len(_MAGIC) + 2 or not key_metadata.startswith(_MAGIC):
        return "foreign"
    return "bound" if bytes(key_metadata) == MARKER else "unsupported"


@dataclass(frozen=True)
class FooterCrypto:
    """What a Parquet file's tail says about its encryption."""

    encrypted: bool
    encrypted_footer: bool
    algorithm: str | None  # AES_GCM_V1 or AES_GCM_CTR_V1
    aad_prefix: bytes | None  # stored AAD prefix
    supply_aad_prefix: bool


def read_footer_crypto(f: BinaryIO, size: int, location: str) -> FooterCrypto:
    """Reads the tail of a Parquet file: its magic and, for an encrypted file, the algorithm and the
    stored AAD prefix. Only the plaintext parts are read; nothing is decrypted."""
    if size < 12:
        raise FileIntegrityError(f"Cannot read {location}: {size} bytes is not a Parquet file")
    f.seek(size - 8)
    tail = f.read(8)
    (length,) = struct.unpack("<I", tail[:4])
    magic = tail[4:]
    if magic not in (b"PAR1", b"PARE") or length <= 0 or length > size - 12:
        raise FileIntegrityError(f"Cannot read {location}: it does not end as a Parquet file")
    f.seek(size - 8 - length)
    footer = f.read(length)
    try:
        if magic == b"PARE":
            algorithm = _field_struct(footer, 1)  # FileCryptoMetaData.encryption_algorithm
            if algorithm is None:
                raise FileIntegrityError(
                    f"Cannot read {location}: its encrypted footer names no algorithm"
                )
            return _crypto(algorithm, encrypted_footer=True)
        algorithm = _field_struct(footer, 8)  # FileMetaData.encryption_algorithm
    except FileIntegrityError:
        raise
    except Exception as e:  # a corrupt footer: thrift raises several kinds
        raise FileIntegrityError(f"Cannot read the footer of {location}: {e}") from e
    if algorithm is None:
        return FooterCrypto(False, False, None, None, False)
    return _crypto(algorithm, encrypted_footer=False)


def _crypto(algorithm: tuple[int, dict[int, object]], encrypted_footer: bool) -> FooterCrypto:
    member, fields = algorithm
    prefix = fields.get(1)
    return FooterCrypto(
        encrypted=True,
        encrypted_footer=encrypted_footer,
        algorithm={1: "AES_GCM_V1", 2: "AES_GCM_CTR_V1"}.get(member),
        aad_prefix=bytes(prefix) if isinstance(prefix, bytes | bytearray) else None,
        supply_aad_prefix=bool(fields.get(3, False)),
    )


def _field_struct(data: bytes, wanted: int) -> tuple[int, dict[int, object]] | None:
    """Struct field ``wanted`` of ``data``, an ``EncryptionAlgorithm`` union: the id of the member
    it holds and that member's fields (1 ``aad_prefix``, 2 ``aad_file_unique``, 3
    ``supply_aad_prefix``)."""
    proto = TCompactProtocol(TMemoryBuffer(data))
    proto.readStructBegin()
    while True:
        _, ftype, fid = proto.readFieldBegin()
        if ftype == TType.STOP:
            return None
        if fid == wanted and ftype == TType.STRUCT:
            proto.readStructBegin()
            _, mtype, member = proto.readFieldBegin()
            if mtype != TType.STRUCT:
                return None
            return member, _algorithm_fields(proto)
        _skip(proto, ftype)
        proto.readFieldEnd()


def _skip(proto: TCompactProtocol, ttype: int, depth: int = 0) -> None:
    """Skips a value of ``ttype``. Thrift's own ``skip`` decodes binaries as UTF-8, which a
    footer's statistics are not."""
    if depth > 64:
        raise ValueError("thrift structures nested more than 64 deep")
    if ttype == TType.STRING:
        proto.readBinary()
    elif ttype == TType.STRUCT:
        proto.readStructBegin()
        while True:
            _, ftype, _ = proto.readFieldBegin()
            if ftype == TType.STOP:
                break
            _skip(proto, ftype, depth + 1)
            proto.readFieldEnd()
        proto.readStructEnd()
    elif ttype in (TType.LIST, TType.SET):
        etype, size = proto.readListBegin() if ttype == TType.LIST else proto.readSetBegin()
        for _ in range(size):
            _skip(proto, etype, depth + 1)
        if ttype == TType.LIST:
            proto.readListEnd()
        else:
            proto.readSetEnd()
    elif ttype == TType.MAP:
        ktype, vtype, size = proto.readMapBegin()
        for _ in range(size):
            _skip(proto, ktype, depth + 1)
            _skip(proto, vtype, depth + 1)
        proto.readMapEnd()
    else:
        proto.skip(ttype)


def _algorithm_fields(proto: TCompactProtocol) -> dict[int, object]:
    fields: dict[int, object] = {}
    proto.readStructBegin()
    while True:
        _, ftype, fid = proto.readFieldBegin()
        if ftype == TType.STOP:
            return fields
        if ftype == TType.STRING:
            fields[fid] = proto.readBinary()
        elif ftype in (TType.BOOL,):
            fields[fid] = proto.readBool()
        else:
            _skip(proto, ftype)
        proto.readFieldEnd()


def _bound_to(stored: bytes) -> str:
    text = stored.decode("utf-8", "replace")
    bound = text[len(SCHEME) :] if text.startswith(SCHEME) else None
    if bound and ":" in bound:
        return f"table UUID {bound.split(':', 1)[0]}, file {bound.split(':', 1)[-1]}"
    return "no binding of this project"


def refuse_stored_binding(crypto: FooterCrypto, location: str, table: str) -> None:
    """Refuses a file read unbound that stores a binding of this project: it was written for
    some table and file name, and copied where an unbound file was expected."""
    if crypto.aad_prefix is not None and crypto.aad_prefix.startswith(SCHEME.encode("utf-8")):
        raise FileIntegrityError(
            f"Refusing {location} of {table}: it is read without a binding, but the file is bound"
            f" to {_bound_to(crypto.aad_prefix)} (a bound file copied where an unbound one was"
            " expected)"
        )


def check_binding(crypto: FooterCrypto, table_uuid: str, location: str, table: str) -> None:
    """Refuses a file whose stored binding is not the one its table expects for it."""
    expected = aad_prefix(table_uuid, location)
    if not crypto.encrypted:
        raise FileIntegrityError(
            f"Refusing {location} of table {table}: the table marks it as bound, but the file is"
            " not encrypted (a plaintext file put in its place)"
        )
    if crypto.aad_prefix is None:
        raise FileIntegrityError(
            f"Cannot read {location} of table {table} without Spark: it was bound before files"
            " stored their binding; run CALL <catalog>.system.rewrite_protected on the table"
            " (reason binding-not-stored)"
        )
    if not hmac.compare_digest(crypto.aad_prefix, expected):
        raise FileIntegrityError(
            f"Refusing {location} of table {table}: the file is bound to"
            f" {_bound_to(crypto.aad_prefix)}, not to this table (UUID {table_uuid}) and file"
            " name (a swapped or replayed file)"
        )
