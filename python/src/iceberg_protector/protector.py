# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The package's entry point: one principal's access to protected tables and paths."""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe

from .admission import FileAdmission, Verdict, binding_boundary
from .client import KeyServerClient
from .errors import PolicyError, ProtectorError
from .kms import connection_config, crypto_factory
from .policy import Entry, ServedPolicy
from .reader import FileRead, ProtectedFileReader, concat
from .views import decide, refuse_failing

if TYPE_CHECKING:
    from pyiceberg.table import Table as IcebergTable


class Protector:
    """One principal (the key server token's) reading and writing protected data.

    The decisions are the served policy's (``GET /v1/protector/policy``, the principal's own part)
    with the roles the key server names (``whoami``); the keys are the server's to release.
    """

    def __init__(self, client: KeyServerClient, *, max_workers: int | None = None) -> None:
        self.client = client
        #: data files read at once by a table read
        self.max_workers = max_workers or min(8, os.cpu_count() or 1)
        self._policy: ServedPolicy | None = None
        self._reader = ProtectedFileReader(client)

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        token: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        token_env: str | None = None,
        ca_cert: str | os.PathLike[str] | None = None,
    ) -> Protector:
        return cls(
            KeyServerClient(
                url, token=token, token_file=token_file, token_env=token_env, ca_cert=ca_cert
            )
        )

    @property
    def principal(self) -> str:
        return self.client.whoami().principal

    @property
    def policy(self) -> ServedPolicy:
        if self._policy is None:
            self._policy = ServedPolicy.parse(self.client.policy_text())
        return self._policy

    def refresh_policy(self) -> None:
        self._policy = None

    # ---- Iceberg tables -------------------------------------------------------------------------

    def read_table(
        self,
        table: IcebergTable,
        columns: Sequence[str] | None = None,
        row_filter: Any = None,
        *,
        policy_name: str | None = None,
        snapshot_id: int | None = None,
        accept_unverified_files: bool = False,
    ) -> pa.Table:
        """Reads a protected Iceberg table (a PyIceberg ``Table``) in this principal's view.

        ``columns`` selects top-level columns (all by default); ``row_filter`` is a PyIceberg
        expression or its string form, applied to the principal's view as Spark applies it (a
        filter on a column read as NULL keeps no row). ``policy_name`` is the table's name in the
        policy, ``<namespace>.<table>`` by default. ``snapshot_id`` reads an older snapshot.
        Row-level deletes (position delete files and deletion vectors) are applied.

        Every data file is admitted as Spark admits it (see :mod:`iceberg_protector.admission`):
        bound files must store this table's binding for their name; files without the marker
        committed after the table came under binding are refused unless
        ``accept_unverified_files`` is True.
        """
        from pyiceberg.expressions import AlwaysTrue
        from pyiceberg.expressions.parser import parse
        from pyiceberg.expressions.visitors import bind, extract_field_ids
        from pyiceberg.io.pyarrow import expression_to_pyarrow, schema_to_pyarrow

        name = policy_name or ".".join(table.name()[1:] if len(table.name()) > 2 else table.name())
        entry = self.policy.table(name)
        schema = table.schema()
        selected = list(columns) if columns else [f.name for f in schema.fields]
        for c in selected:
            if schema.find_field(c, case_sensitive=False) is None:
                raise PolicyError(f"Cannot read column {c} of {name}: the table has no such column")
        expression = AlwaysTrue() if row_filter is None else row_filter
        if isinstance(expression, str):
            expression = parse(expression)
        bound = bind(schema, expression, case_sensitive=False)
        filter_columns = sorted(schema.find_column_name(i) for i in extract_field_ids(bound))
        needed = selected + [c for c in filter_columns if c not in selected]
        projected = schema.select(*needed, case_sensitive=False)
        target = schema_to_pyarrow(projected)
        decisions = decide(entry, self.client.whoami().roles)
        refuse_failing(decisions, needed, self.principal, name)
        admission = FileAdmission(
            name, binding_boundary(table.properties, name), accept_unverified_files
        )
        scan = table.scan(row_filter=expression, snapshot_id=snapshot_id, case_sensitive=False)
        try:
            tasks = list(scan.plan_files())
        except (ValueError, NotImplementedError) as e:
            if "equality deletes" in str(e):
                raise ProtectorError(
                    f"Cannot read {name} without Spark: it has equality delete files, which"
                    " PyIceberg cannot apply; compact the table (rewrite_data_files) or read it"
                    " through Spark"
                ) from e
            raise
        snapshot = (
            table.current_snapshot() if snapshot_id is None else table.snapshot_by_id(snapshot_id)
        )
        sequence_numbers = _SequenceNumbers(table, snapshot)
        deletes = _Deletes(table)
        uuid_text = str(table.metadata.table_uuid)
        reads: list[tuple[Any, str | None, pa.Array | None]] = []
        for task in tasks:
            location = task.file.file_path
            verdict = admission.admit(
                location, task.file.key_metadata, lambda p=location: sequence_numbers.of(p)
            )
            reads.append(
                (
                    task.file,
                    uuid_text if verdict == Verdict.BOUND else None,
                    deletes.positions(task, name),
                )
            )

        def read(one: tuple[Any, str | None, pa.Array | None]) -> pa.Table:
            opened = self._open_data_file(table, *one)
            with opened.source:
                return self._reader.read(opened, target, decisions, name, unbound_ok=True)

        # files are read side by side: PyArrow decodes and decrypts without the GIL
        workers = min(len(reads), self.max_workers)
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="iceberg-protector") as pool:
                parts = list(pool.map(read, reads))
        else:
            parts = [read(one) for one in reads]
        admission.warn_about_legacy_files()
        result = concat(parts, target)
        if row_filter is not None:
            result = result.filter(expression_to_pyarrow(bound))
        return result.select(
            [next(f.name for f in target if f.name.lower() == c.lower()) for c in selected]
        )

    @staticmethod
    def _open_data_file(
        table: IcebergTable, data_file: Any, table_uuid: str | None, deleted: pa.Array | None
    ) -> FileRead:
        location = data_file.file_path
        input_file = table.io.new_input(location)
        return FileRead(
            location, input_file.open(seekable=True), len(input_file), table_uuid, deleted
        )

    # ---- plain Parquet paths --------------------------------------------------------------------

    def path_entry(self, location: str) -> Entry:
        entry = self.policy.path_entry(location)
        if entry is None:
            raise PolicyError(
                f"Cannot protect {location}: no path prefix of the served policy holds it"
                f" (prefixes: {sorted(self.policy.paths) or 'none'})"
            )
        return entry

    def read_parquet(
        self,
        path: str,
        columns: Sequence[str] | None = None,
        filter: pc.Expression | None = None,
        *,
        filesystem: pafs.FileSystem | None = None,
        accept_unencrypted: bool = False,
    ) -> pa.Table:
        """Reads the Parquet files at ``path`` (a file or a directory) under a protected prefix in
        this principal's view. ``filter`` is a PyArrow expression over the view."""
        entry = self.path_entry(path)
        fs, root = _filesystem(path, filesystem)
        files = _parquet_files(fs, root)
        if not files:
            raise ProtectorError(f"Cannot read {path}: it holds no Parquet file")
        decisions = decide(entry, self.client.whoami().roles)
        wanted = None if filter is not None or not columns else list(columns)
        if wanted is not None:
            refuse_failing(decisions, wanted, self.principal, entry.name)
        parts: list[pa.Table] = []
        for info in files:
            with fs.open_input_file(info.path) as source:
                read = FileRead(info.path, source, info.size, None, None)
                parts.append(
                    self._reader.read(
                        read,
                        None,
                        decisions,
                        entry.name,
                        columns=wanted,
                        accept_unencrypted=accept_unencrypted,
                    )
                )
        target = parts[0].schema
        result = concat(parts, target)  # type: ignore[arg-type]
        if filter is not None:
            result = result.filter(filter)
        return result.select(list(columns)) if columns else result

    def write_parquet(
        self, table: pa.Table, path: str, *, filesystem: pafs.FileSystem | None = None
    ) -> str:
        """Writes ``table`` as one Parquet file under a protected prefix, its policy columns
        encrypted with their master keys (footer key, footer mode and algorithm from the policy).
        ``path`` is the file, or a directory (ending in ``/``) to write a new part file into.
        Returns the file's location."""
        entry = self.path_entry(path)
        roles = self.client.whoami().roles
        if not roles.intersection(entry.writers):
            raise ProtectorError(
                f"Principal {self.principal} may not write {entry.name}: its writers are"
                f" {list(entry.writers)}, its roles {sorted(roles)}"
            )
        tokenized = [c.path for c in entry.columns if c.tokenized]
        if tokenized:
            raise PolicyError(
                f"Cannot write {entry.name} from Python: plain Parquet paths refuse tokenized"
                f" columns ({', '.join(tokenized)})"
            )
        if entry.algorithm == "AES_GCM_CTR_V1" and entry.footer_mode == "plaintext":
            _require_pyarrow_for_ctr_with_plaintext_footer(entry.name)
        leaves = set(_leaf_paths(table.schema))
        column_keys: dict[str, list[str]] = {}
        for c in entry.columns:
            matching = [leaf for leaf in leaves if leaf.lower() == c.path.lower()]
            matching += [leaf for leaf in leaves if leaf.lower().startswith(c.path.lower() + ".")]
            for leaf in matching:
                column_keys.setdefault(c.key, []).append(leaf)
        config = pe.EncryptionConfiguration(
            footer_key=entry.footer_key,
            column_keys=column_keys,
            encryption_algorithm=entry.algorithm,
            plaintext_footer=entry.footer_mode == "plaintext",
            double_wrapping=True,
            internal_key_material=True,
        )
        properties = crypto_factory(self.client).file_encryption_properties(
            connection_config(self.client), config
        )
        target = path + f"part-{uuid.uuid4()}.parquet" if path.endswith("/") else path
        fs, file_path = _filesystem(target, filesystem)
        parent = file_path.rsplit("/", 1)[0]
        if parent and fs.get_file_info(parent).type == pafs.FileType.NotFound:
            fs.create_dir(parent, recursive=True)
        with fs.open_output_stream(file_path) as out:
            pq.write_table(table, out, encryption_properties=properties)
        return target


class _SequenceNumbers:
    """File sequence numbers of a snapshot's data files, read from its manifests on first use:
    only files without the marker need one, and a bound table has none."""

    def __init__(self, table: IcebergTable, snapshot: Any) -> None:
        self._table = table
        self._snapshot = snapshot
        self._numbers: dict[str, int] | None = None

    def of(self, location: str) -> int:
        if self._numbers is None:
            from pyiceberg.manifest import ManifestContent

            numbers: dict[str, int] = {}
            if self._snapshot is not None:
                for manifest in self._snapshot.manifests(self._table.io):
                    if manifest.content != ManifestContent.DATA:
                        continue
                    for entry in manifest.fetch_manifest_entry(self._table.io):
                        numbers[entry.data_file.file_path] = entry.file_sequence_number or 0
            self._numbers = numbers
        if location not in self._numbers:
            raise ProtectorError(f"Cannot find data file {location} in the snapshot's manifests")
        return self._numbers[location]


class _Deletes:
    """Row positions that position delete files and deletion vectors remove from each data file.
    The protector writes them unencrypted (they hold file names and positions only); a delete
    file that covers several data files is read once."""

    def __init__(self, table: IcebergTable) -> None:
        self._table = table
        self._loaded: dict[str, dict[str, pa.ChunkedArray]] = {}

    def positions(self, task: Any, name: str) -> pa.Array | None:
        if not task.delete_files:
            return None
        from pyiceberg.io.pyarrow import _read_deletes
        from pyiceberg.manifest import DataFileContent

        found: list[pa.Array] = []
        for delete_file in task.delete_files:
            if delete_file.content == DataFileContent.EQUALITY_DELETES:
                raise ProtectorError(
                    f"Cannot read {name} without Spark: data file {task.file.file_path} has"
                    f" equality delete file {delete_file.file_path}, which PyIceberg cannot"
                    " apply; compact the table (rewrite_data_files) or read it through Spark"
                )
            path = delete_file.file_path
            if path not in self._loaded:
                try:
                    self._loaded[path] = _read_deletes(self._table.io, delete_file)
                except OSError as e:
                    raise ProtectorError(f"Cannot read delete file {path} of {name}: {e}") from e
            chunked = self._loaded[path].get(task.file.file_path)
            if chunked is not None:
                found.extend(chunked.chunks)
        if not found:
            return None
        return pa.concat_arrays([c.cast(pa.int64()) for c in found])


#: The first PyArrow whose AES_GCM_CTR_V1 files with a plaintext footer can be read back: before
#: it, the footer names AES_GCM_V1 for data pages written with CTR, and every reader (PyArrow's
#: own included) fails with "Ciphertext length ... is invalid" (seen with 22.0.0 to 25.0.x).
CTR_PLAINTEXT_FOOTER_PYARROW = (26, 0)


def _require_pyarrow_for_ctr_with_plaintext_footer(name: str) -> None:
    version = tuple(int(p) for p in pa.__version__.split(".")[:2] if p.isdigit())
    if version < CTR_PLAINTEXT_FOOTER_PYARROW:
        raise ProtectorError(
            f"Cannot write {name} with PyArrow {pa.__version__}: its policy asks for"
            " AES_GCM_CTR_V1 with a plaintext footer, and PyArrow before 26.0 records the wrong"
            " algorithm in such footers, so no reader could open the file; upgrade PyArrow"
            " (pip install 'pyarrow>=26')"
        )


def _filesystem(path: str, filesystem: pafs.FileSystem | None) -> tuple[pafs.FileSystem, str]:
    if filesystem is not None:
        return filesystem, path
    if path.startswith("file:") and not path.startswith("file://"):
        path = "file://" + path[len("file:") :]
    return pafs.FileSystem.from_uri(path)


def _parquet_files(fs: pafs.FileSystem, root: str) -> list[pafs.FileInfo]:
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.File:
        return [info]
    if info.type != pafs.FileType.Directory:
        raise ProtectorError(f"Cannot read {root}: no such file or directory")
    selector = pafs.FileSelector(root, recursive=True)
    return sorted(
        (
            i
            for i in fs.get_file_info(selector)
            if i.type == pafs.FileType.File
            and i.base_name.endswith(".parquet")
            and not i.base_name.startswith(("_", "."))
        ),
        key=lambda i: i.path,
    )


def _leaf_paths(schema: pa.Schema) -> list[str]:
    out: list[str] = []

    def walk(prefix: str, t: pa.DataType) -> None:
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(f"{prefix}.{t.field(i).name}", t.field(i).type)
        else:
            out.append(prefix)

    for f in schema:
        walk(f.name, f.type)
    return out
