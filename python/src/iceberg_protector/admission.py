# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""Which data files of a protected table a read admits, decided from table metadata alone, as the
Java side decides it (``FileAdmission``, ``BindingBoundary``):

- ``BOUND``: the manifest entry carries the protector's marker; the file must store exactly the
  binding of this table and file name.
- ``LEGACY``: no marker, committed before the table came under file binding (the table property
  :data:`BOUNDARY_PROPERTY`): written before the protector bound files, or before the table was
  protected. Read unverified, with an :class:`UnverifiedFileWarning`; ``rewrite_protected``
  binds it.
- ``UNVERIFIED``: no marker, committed at or after the boundary: the protector did not write it.
  Refused with :class:`UnverifiedFileError`, unless the caller accepts unverified files
  explicitly (``accept_unverified_files=True``), which warns per file.

A marker of a version this package does not know is refused.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from enum import Enum

from .binding import marker_kind
from .errors import FileIntegrityError, ProtectorError

#: The table property holding the first sequence number under file binding.
BOUNDARY_PROPERTY = "protector.binding-from-sequence-number"


class Verdict(Enum):
    BOUND = "bound"
    LEGACY = "legacy"
    UNVERIFIED = "unverified"


class UnverifiedFileError(FileIntegrityError):
    """A data file without the protector's marker, committed after the table came under binding."""


class UnverifiedFileWarning(UserWarning):
    """A data file is read without a binding check (a legacy or an accepted unverified file)."""


def binding_boundary(properties: Mapping[str, str], table: str) -> int | None:
    """The table's first sequence number under binding, or None when it has none recorded."""
    value = properties.get(BOUNDARY_PROPERTY)
    if value is None:
        return None
    try:
        boundary = int(value.strip())
    except ValueError:
        boundary = -1
    if boundary < 0:
        raise ProtectorError(
            f"Table {table} has a malformed {BOUNDARY_PROPERTY} property {value!r} (expected a"
            " sequence number >= 0): it was not set by the protector, which refuses to guess which"
            " files must be bound. Restore it from the table's metadata history."
        )
    return boundary


class FileAdmission:
    """Admission of the data files of one read of ``table``."""

    def __init__(self, table: str, boundary: int | None, accept_unverified: bool) -> None:
        self.table = table
        self.boundary = boundary
        self.accept_unverified = accept_unverified
        self.legacy: list[str] = []
        self.unverified: list[str] = []

    def admit(
        self, location: str, key_metadata: bytes | None, sequence_number: Callable[[], int]
    ) -> Verdict:
        """How the file at ``location`` is read. ``sequence_number`` gives its file sequence
        number; it is only asked for files without the marker."""
        kind = marker_kind(key_metadata)
        if kind == "bound":
            return Verdict.BOUND
        if kind == "unsupported":
            raise ProtectorError(
                f"Cannot read {location} of protected table {self.table}: its manifest entry has"
                f" {describe_marker(key_metadata)}. It was written by a newer protector version;"
                " read the table with that version."
            )
        number = sequence_number()
        if self.boundary is None or number < self.boundary:
            self.legacy.append(location)
            return Verdict.LEGACY
        if self.accept_unverified:
            self.unverified.append(location)
            warnings.warn(
                f"Reading data file {location} of protected table {self.table} unverified"
                f" (accept_unverified_files=True): it carries {describe_marker(key_metadata)} and"
                f" was committed at sequence number {number}, after the table came under file"
                f" binding ({self.boundary})",
                UnverifiedFileWarning,
                stacklevel=3,
            )
            return Verdict.UNVERIFIED
        raise UnverifiedFileError(
            f"Refusing data file {location} of protected table {self.table}: the protector did not"
            f" write it ({describe_marker(key_metadata)}), and it was committed at sequence number"
            f" {number}, after the table came under file binding at sequence number"
            f" {self.boundary} (table property {BOUNDARY_PROPERTY}). It was probably added"
            " through a catalog without the protector. Remove it from the table, or, if you trust"
            " its contents, pass accept_unverified_files=True (and bind it with"
            " rewrite_protected in Spark)."
        )

    def warn_about_legacy_files(self) -> None:
        if not self.legacy:
            return
        why = (
            f"they were committed before the table came under file binding (sequence number"
            f" {self.boundary})"
            if self.boundary is not None
            else f"the table has no file-binding boundary yet ({BOUNDARY_PROPERTY})"
        )
        shown = ", ".join(self.legacy[:5]) + (" ..." if len(self.legacy) > 5 else "")
        warnings.warn(
            f"Protected table {self.table}: {len(self.legacy)} data file(s) carry no file binding"
            f" and are read unverified, because {why}: {shown}. Bind them with"
            f" CALL <catalog>.system.rewrite_protected(table => '{self.table}') in Spark",
            UnverifiedFileWarning,
            stacklevel=3,
        )


def describe_marker(key_metadata: bytes | None) -> str:
    """The marker's version and scheme, or what the key metadata is instead (``describe``)."""
    kind = marker_kind(key_metadata)
    if kind == "none":
        return "no file-binding marker in its manifest entry"
    assert key_metadata is not None
    if kind == "bound":
        return "file-binding marker version 1, scheme 1"
    if kind == "foreign":
        return (
            f"key metadata of {len(key_metadata)} bytes in its manifest entry that is not the"
            " protector's file-binding marker"
        )
    return (
        f"file-binding marker version {key_metadata[4]}, scheme {key_metadata[5]}, which this"
        " protector version does not know"
    )
