# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""Reading protected files into Arrow tables in the principal's view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe

from .binding import FooterCrypto, check_binding, read_footer_crypto, refuse_stored_binding
from .client import KeyServerClient
from .errors import FileIntegrityError, KeyAccessDenied, PolicyError, ProtectorError
from .kms import connection_config, crypto_factory
from .policy import AccessLevel
from .views import ColumnDecision, apply_tokens, null_field, refuse_failing

FIELD_ID = b"PARQUET:field_id"


@dataclass(frozen=True)
class FileRead:
    """One file to read: where it is, how to open it, the table UUID it must be bound to (None:
    read unbound), and the row positions its table's deletes remove (None: none)."""

    location: str
    source: BinaryIO
    size: int
    table_uuid: str | None
    deleted: pa.Array | None = None


class ProtectedFileReader:
    """Reads protected Parquet files for one principal with PyArrow's PME and the key server.

    Only the keys of columns the principal reads are requested: a denied or locally unmaskable
    column is never selected, so its key never leaves the server.
    """

    def __init__(self, client: KeyServerClient) -> None:
        self._client = client
        self._factory = crypto_factory(client)
        self._kms = connection_config(client)

    def read(
        self,
        file: FileRead,
        target: pa.Schema | None,
        decisions: dict[str, ColumnDecision],
        table: str,
        *,
        columns: Sequence[str] | None = None,
        accept_unencrypted: bool = False,
        unbound_ok: bool = False,
    ) -> pa.Table:
        """Reads ``file`` as ``target`` (an Iceberg projection), or with the file's own schema
        (restricted to ``columns``) when ``target`` is None.

        A file read unbound (``file.table_uuid`` None) must not store a binding of this project:
        that is a bound file in the wrong place. A plaintext file is refused where the policy
        protects columns, unless ``accept_unencrypted`` (a caller's choice) or ``unbound_ok`` (a
        table file that admission let through as legacy or accepted) says otherwise."""
        crypto = read_footer_crypto(file.source, file.size, file.location)
        if file.table_uuid is not None:
            check_binding(crypto, file.table_uuid, file.location, table)
        else:
            refuse_stored_binding(crypto, file.location, table)
            if not crypto.encrypted and decisions and not (accept_unencrypted or unbound_ok):
                raise FileIntegrityError(
                    f"Refusing {file.location} of {table}: the file is not encrypted, but the"
                    " policy protects columns of it; pass accept_unencrypted=True to read such"
                    " files"
                )
        file.source.seek(0)
        properties = self._decryption(crypto)
        try:
            parquet = pq.ParquetFile(file.source, decryption_properties=properties)
            if target is None:
                target = _restricted(parquet.schema_arrow, columns, file.location, table)
                refuse_failing(decisions, target.names, self._client.whoami().principal, table)
            result = self._assemble(parquet, target, decisions, table, file.location)
        except KeyAccessDenied:
            raise
        except OSError as e:
            raise _read_error(e, file.location, table, self._client) from e
        if file.deleted is not None and len(file.deleted):
            result = result.filter(_kept(file.deleted, result.num_rows, file.location, table))
        return result

    def _decryption(self, crypto: FooterCrypto) -> Any:
        if not crypto.encrypted:
            return None
        return self._factory.file_decryption_properties(
            self._kms, pe.DecryptionConfiguration(cache_lifetime=300)
        )

    def _assemble(
        self,
        parquet: pq.ParquetFile,
        target: pa.Schema,
        decisions: dict[str, ColumnDecision],
        table: str,
        location: str,
    ) -> pa.Table:
        file_schema = parquet.schema_arrow
        names = _file_names(file_schema, target)
        paths: list[str] = []
        plan: list[tuple[pa.Field, str | None, list[tuple[pa.Field, str | None]] | None]] = []
        principal = self._client.whoami().principal
        for field in target:
            physical = names.get(field.name)
            whole = decisions.get(field.name.lower())
            inner = [p for p in decisions if p.startswith(field.name.lower() + ".")]
            if physical is None or (whole is not None and not whole.readable):
                plan.append((field, None, None))
            elif inner and pa.types.is_struct(field.type):
                file_struct = file_schema.field(physical).type
                children: list[tuple[pa.Field, str | None]] = []
                for child in field.type:
                    d = decisions.get(f"{field.name}.{child.name}".lower())
                    child_physical = _child_name(file_struct, child)
                    if child_physical is None or (d is not None and not d.readable):
                        children.append((child, None))
                    else:
                        children.append((child, child_physical))
                        paths.append(f"{physical}.{child_physical}")
                plan.append((field, physical, children))
            else:
                plan.append((field, physical, None))
                paths.append(physical)
        data = parquet.read(columns=paths, use_threads=True) if paths else None
        rows = parquet.metadata.num_rows
        arrays: list[pa.Array | pa.ChunkedArray] = []
        fields: list[pa.Field] = []
        for field, physical, children in plan:
            d = decisions.get(field.name.lower())
            if physical is None:
                if d is not None:
                    out_field, _ = null_field(field, d, principal)
                else:
                    out_field = field
                fields.append(out_field)
                arrays.append(pa.nulls(rows, type=out_field.type))
                continue
            # chunked as read: no copy of the values
            column: pa.ChunkedArray = data.column(physical)  # type: ignore[union-attr]
            if children is not None:
                chunks = [
                    _struct(chunk, field, children, decisions, principal) for chunk in column.chunks
                ]
                if not chunks:
                    chunks = [
                        _struct(_empty_struct(children), field, children, decisions, principal)
                    ]
                field = field.with_type(chunks[0].type)
                column = pa.chunked_array(chunks, type=field.type)
            elif d is not None and d.rule.tokenized:
                column = pa.chunked_array([apply_tokens(column, d, self._client, table)])
                if d.access.level == AccessLevel.MASKED:
                    field = field.with_type(pa.string())
            out_type = _conformed(column.type, field.type)
            fields.append(field.with_type(out_type))
            arrays.append(column.cast(out_type) if column.type != out_type else column)
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _struct(
    column: pa.StructArray,
    field: pa.Field,
    children: list[tuple[pa.Field, str | None]],
    decisions: dict[str, ColumnDecision],
    principal: str,
) -> pa.StructArray:
    """One chunk of a struct column in the principal's view: the children it reads, and NULL for
    those it may not read."""
    rows = len(column)
    out_children: list[pa.Array] = []
    out_fields: list[pa.Field] = []
    for child, physical in children:
        if physical is None:
            d = decisions.get(f"{field.name}.{child.name}".lower())
            child_field = null_field(child, d, principal)[0] if d is not None else child
            out_children.append(pa.nulls(rows, type=child_field.type))
            out_fields.append(child_field)
        else:
            values = column.field(physical)
            out_type = _conformed(values.type, child.type)
            out_children.append(values.cast(out_type) if values.type != out_type else values)
            out_fields.append(child.with_type(out_type))
    return pa.StructArray.from_arrays(
        out_children, fields=out_fields, mask=column.is_null() if column.null_count else None
    )


def _empty_struct(children: list[tuple[pa.Field, str | None]]) -> pa.StructArray:
    """A struct chunk without rows whose children are named as in the file."""
    return pa.StructArray.from_arrays(
        [pa.array([], type=c.type) for c, _ in children],
        names=[physical or c.name for c, physical in children],
    )


def _conformed(file_type: pa.DataType, target: pa.DataType) -> pa.DataType:
    """The type a column is returned as: the target's, except that a file's ``string``,
    ``binary`` or ``list`` stays as read where the target names its large form, as PyIceberg's own
    reads return them (no copy of the offsets)."""
    pairs = (
        (pa.types.is_string, pa.types.is_large_string),
        (pa.types.is_binary, pa.types.is_large_binary),
    )
    for small, large in pairs:
        if small(file_type) and large(target):
            return file_type
    if pa.types.is_list(file_type) and pa.types.is_large_list(target):
        value = _conformed(file_type.value_type, target.value_type)
        return pa.list_(target.value_field.with_type(value))
    return target


def _kept(deleted: pa.Array, rows: int, location: str, table: str) -> pa.Array:
    """A mask of the rows that ``deleted`` (row positions) leaves in a file of ``rows`` rows."""
    positions = deleted.to_numpy(zero_copy_only=False)
    if positions.size and (positions.min() < 0 or positions.max() >= rows):
        raise FileIntegrityError(
            f"Cannot apply the deletes of {location} of {table}: they name row position"
            f" {int(positions.max())}, but the file has {rows} rows"
        )
    keep = np.ones(rows, dtype=bool)
    keep[positions] = False
    return pa.array(keep)


def _file_names(file_schema: pa.Schema, target: pa.Schema) -> dict[str, str]:
    """Each target field's column in the file: by Iceberg field id where both have one (renamed
    columns), else by name."""
    by_id = {
        f.metadata[FIELD_ID]: f.name for f in file_schema if f.metadata and FIELD_ID in f.metadata
    }
    names = {f.name.lower(): f.name for f in file_schema}
    out: dict[str, str] = {}
    for f in target:
        field_id = f.metadata.get(FIELD_ID) if f.metadata else None
        if field_id is not None and by_id:
            if field_id in by_id:
                out[f.name] = by_id[field_id]
        elif f.name.lower() in names:
            out[f.name] = names[f.name.lower()]
    return out


def _child_name(file_struct: pa.StructType, child: pa.Field) -> str | None:
    field_id = child.metadata.get(FIELD_ID) if child.metadata else None
    for i in range(file_struct.num_fields):
        candidate = file_struct.field(i)
        candidate_id = candidate.metadata.get(FIELD_ID) if candidate.metadata else None
        if field_id is not None and candidate_id is not None:
            if candidate_id == field_id:
                return candidate.name
        elif candidate.name.lower() == child.name.lower():
            return candidate.name
    return None


def _read_error(e: OSError, location: str, table: str, client: KeyServerClient) -> ProtectorError:
    text = str(e)
    if "AAD" in text or "tag" in text.lower() or "decrypt" in text.lower():
        return FileIntegrityError(f"Cannot decrypt {location} of {table}: {text}")
    principal = client.whoami().principal
    return ProtectorError(f"Cannot read {location} of {table} as {principal}: {text}")


def _restricted(
    schema: pa.Schema, columns: Sequence[str] | None, location: str, table: str
) -> pa.Schema:
    if not columns:
        return schema
    by_name = {f.name.lower(): f for f in schema}
    missing = [c for c in columns if c.lower() not in by_name]
    if missing:
        raise PolicyError(f"Cannot read column(s) {missing} of {table}: {location} has none")
    return pa.schema([by_name[c.lower()] for c in columns])


def concat(tables: Sequence[pa.Table], schema: pa.Schema) -> pa.Table:
    if not tables:
        return schema.empty_table()
    return pa.concat_tables(tables, promote_options="permissive")
