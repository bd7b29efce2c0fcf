# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The principal's view of protected columns, built on the Arrow side: what each column reads as
for this principal, exactly as the Spark readers decide (clear, token as stored, masked, denied)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from .client import KeyServerClient
from .errors import ColumnAccessDenied
from .policy import Access, AccessLevel, ColumnRule, Entry

#: Field metadata keys this package sets on columns it did not return as read.
VIEW_KEY = b"iceberg_protector.view"
REASON_KEY = b"iceberg_protector.reason"


class MaskedColumnWarning(UserWarning):
    """A masked column came back NULL: a Python process is not a runtime trusted to mask."""


@dataclass(frozen=True)
class ColumnDecision:
    rule: ColumnRule
    access: Access

    @property
    def readable(self) -> bool:
        """True when the file's values (clear or tokens) are read: their key is requested."""
        level = self.access.level
        if level in (AccessLevel.CLEAR, AccessLevel.TOKEN):
            return True
        # a masked tokenized column: the stored tokens go to the key server, which masks them
        return level == AccessLevel.MASKED and self.rule.tokenized


def decide(entry: Entry, roles: frozenset[str]) -> dict[str, ColumnDecision]:
    """Each protected column's decision for ``roles``, by lower-case policy path."""
    return {c.path.lower(): ColumnDecision(c, c.access_for(roles)) for c in entry.columns}


def refuse_failing(
    decisions: dict[str, ColumnDecision], requested: Sequence[str], principal: str, table: str
) -> None:
    """``on-denied = fail`` columns among ``requested`` (top-level names) fail the read."""
    for name in requested:
        for path, d in decisions.items():
            inside = path == name.lower() or path.startswith(name.lower() + ".")
            if inside and d.access.level == AccessLevel.DENIED and d.access.on_denied == "fail":
                raise ColumnAccessDenied(
                    f"Principal {principal} may not read column {d.rule.path} of {table}"
                    " (on-denied = fail): leave it out of the selection"
                )


def apply_tokens(
    column: pa.ChunkedArray | pa.Array,
    d: ColumnDecision,
    client: KeyServerClient,
    table: str,
) -> pa.Array:
    """Stored tokens of a tokenized column as this principal reads them: decoded through the key
    server for clear readers, masked by it for masked readers, as stored for ``token`` roles."""
    if d.access.level == AccessLevel.TOKEN:
        return column
    values = column.to_pylist()
    value_type = "int" if pa.types.is_integer(column.type) else None
    present = [v for v in values if v is not None]
    masked = d.access.level == AccessLevel.MASKED
    decoded, _ = client.decode(
        d.rule.key,
        domain=d.rule.domain or "",
        method=d.rule.method,
        values=present,
        table=table if masked else None,
        column=d.rule.path if masked else None,
        value_type=value_type,
    )
    it = iter(decoded)
    out = [None if v is None else next(it) for v in values]
    target = column.type if not masked else pa.string()
    return pa.array(out, type=target)


def null_field(field: pa.Field, d: ColumnDecision, principal: str) -> tuple[pa.Field, str]:
    """The field of a column that reads as NULL, with metadata saying why."""
    if d.access.level == AccessLevel.MASKED:
        reason = (
            f"masked for {principal} ({d.access.mask}): a Python process does not mask locally,"
            " so the column reads as NULL (only tokenized columns are masked, by the key server)"
        )
        warnings.warn(
            f"Column {d.rule.path} reads as NULL: {reason}", MaskedColumnWarning, stacklevel=4
        )
        view = b"masked-null"
    else:
        reason = f"denied to {principal}: reads as NULL"
        view = b"denied"
    meta = dict(field.metadata or {})
    meta[VIEW_KEY] = view
    meta[REASON_KEY] = reason.encode()
    return field.with_nullable(True).with_metadata(meta), reason
