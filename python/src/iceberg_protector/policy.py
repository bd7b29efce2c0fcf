# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The policy as the key server serves it, and the decisions it makes, as the Java side makes them
(``ColumnPolicy.accessFor``: a clear role first, then a masked role, then a token role, else
denied)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pyhocon import ConfigFactory, ConfigTree
from pyhocon.exceptions import ConfigException

from .errors import PolicyError


class AccessLevel(Enum):
    CLEAR = "clear"
    MASKED = "masked"
    TOKEN = "token"
    DENIED = "denied"


@dataclass(frozen=True)
class Access:
    level: AccessLevel
    mask: str | None = None
    on_denied: str = "null"


@dataclass(frozen=True)
class ColumnRule:
    """One protected column (``path`` is dotted for a struct field, ``address.zip``)."""

    path: str
    key: str
    clear: tuple[str, ...]
    masked: Mapping[str, str]
    token: tuple[str, ...]
    on_denied: str
    method: str
    domain: str | None

    @property
    def tokenized(self) -> bool:
        return self.method != "pme"

    def access_for(self, roles: Iterable[str]) -> Access:
        held = set(roles)
        if any(r in held for r in self.clear):
            return Access(AccessLevel.CLEAR)
        for role, mask in self.masked.items():
            if role in held:
                return Access(AccessLevel.MASKED, mask=mask)
        if any(r in held for r in self.token):
            return Access(AccessLevel.TOKEN)
        return Access(AccessLevel.DENIED, on_denied=self.on_denied)


@dataclass(frozen=True)
class Entry:
    """A table or path prefix of the policy."""

    name: str
    footer_key: str
    footer_mode: str
    algorithm: str
    writers: tuple[str, ...]
    columns: tuple[ColumnRule, ...] = field(default_factory=tuple)

    def column(self, path: str) -> ColumnRule | None:
        for c in self.columns:
            if c.path.lower() == path.lower():
                return c
        return None


@dataclass(frozen=True)
class ServedPolicy:
    tables: Mapping[str, Entry]
    paths: Mapping[str, Entry]

    @staticmethod
    def parse(text: str, origin: str = "served policy") -> ServedPolicy:
        try:
            root = ConfigFactory.parse_string(text)
        except (ConfigException, Exception) as e:  # pyhocon raises pyparsing errors too
            raise PolicyError(f"Cannot parse the {origin}: {e}") from e
        protector = root.get("protector", None)
        if not isinstance(protector, ConfigTree):
            raise PolicyError(f"Cannot read the {origin}: it has no 'protector' block")
        return ServedPolicy(
            tables=_entries(protector.get("tables", ConfigTree()), origin, "tables"),
            paths=_entries(protector.get("paths", ConfigTree()), origin, "paths"),
        )

    def table(self, name: str) -> Entry:
        for key, entry in self.tables.items():
            if key.lower() == name.lower():
                return entry
        raise PolicyError(
            f"Cannot find table {name} in the served policy: it lists"
            f" {sorted(self.tables) or 'no tables'} for this principal"
        )

    def path_entry(self, location: str) -> Entry | None:
        """The entry of the longest prefix that holds ``location``, or None."""
        best: Entry | None = None
        for prefix, entry in self.paths.items():
            base = prefix if prefix.endswith("/") else prefix + "/"
            if (_norm(location) + "/").startswith(_norm(base)) and (
                best is None or len(prefix) > len(best.name)
            ):
                best = entry
        return best


def _norm(location: str) -> str:
    for scheme in ("file://", "file:"):
        if location.startswith(scheme):
            location = location[len(scheme) :]
            break
    while "//" in location and not location.startswith(("s3://", "s3a://", "gs://", "abfs://")):
        location = location.replace("//", "/")
    return location


def _entries(tree: Any, origin: str, section: str) -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    if not isinstance(tree, ConfigTree):
        return out
    for raw_name in tree:
        name = raw_name.strip('"')
        body = tree[raw_name]
        where = f"{origin}, {section}.{name}"
        columns = []
        cols = body.get("columns", ConfigTree())
        for raw_col in cols:
            columns.append(_column(raw_col.strip('"'), cols[raw_col], where))
        out[name] = Entry(
            name=name,
            footer_key=_required(body, "footer-key", where),
            footer_mode=str(body.get("footer-mode", "encrypted")),
            algorithm=str(body.get("algorithm", "AES_GCM_V1")),
            writers=tuple(body.get("writers", [])),
            columns=tuple(columns),
        )
    return out


def _column(path: str, body: ConfigTree, where: str) -> ColumnRule:
    masked = body.get("masked", ConfigTree())
    method = str(body.get("method", "pme"))
    return ColumnRule(
        path=path,
        key=_required(body, "key", f"{where}, column {path}"),
        clear=tuple(body.get("clear", [])),
        masked={str(k).strip('"'): str(v) for k, v in masked.items()},
        token=tuple(body.get("token", [])),
        # HOCON reads an unquoted null as no value
        on_denied=str(body.get("on-denied", None) or "null"),
        method=method,
        domain=body.get("domain", None),
    )


def _required(body: ConfigTree, name: str, where: str) -> str:
    value = body.get(name, None)
    if value is None:
        raise PolicyError(f"Cannot read {where}: it has no {name}")
    return str(value)
