# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The package against the real stack (see conftest.py): tables Spark wrote, read with PyIceberg
and PyArrow's PME through the key server as a process, as each principal."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from iceberg_protector import (
    REASON_KEY,
    VIEW_KEY,
    AuthenticationError,
    ColumnAccessDenied,
    FileIntegrityError,
    KeyServerUnavailable,
    MaskedColumnWarning,
    PolicyError,
    Protector,
    ProtectorError,
    UnverifiedFileError,
    UnverifiedFileWarning,
)
from iceberg_protector.binding import read_footer_crypto

from .conftest import token_file


def rows(table: pa.Table) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: r["id"])


def test_a_clear_reader_sees_every_value(catalog, protector_for, stack) -> None:
    people = protector_for("alice").read_table(catalog.load_table("db.people"))
    assert rows(people) == [
        {
            "id": 1,
            "ssn": stack["IP_SSN"],
            "salary": 5100,
            "address": {"city": "Berlin", "zip": "10115"},
        },
        {"id": 2, "ssn": "ssn-0002", "salary": 6200, "address": {"city": "Paris", "zip": "75001"}},
        {"id": 3, "ssn": None, "salary": None, "address": None},
    ]


def test_a_denied_column_reads_as_null_and_its_key_is_never_requested(
    catalog, protector_for, audit
) -> None:
    people = protector_for("harry").read_table(catalog.load_table("db.people"))
    assert [(r["id"], r["ssn"], r["salary"], r["address"]) for r in rows(people)] == [
        (1, None, 5100, {"city": "Berlin", "zip": None}),
        (2, None, 6200, {"city": "Paris", "zip": None}),
        (3, None, None, None),
    ]
    assert people.schema.field("ssn").metadata[VIEW_KEY] == b"denied"
    released = {(e["principal"], e.get("key")) for e in audit.since_mark() if e["op"] == "unwrap"}
    assert ("harry", "fin") in released
    assert ("harry", "pii") not in released, "the denied column's key was requested"


def test_a_masked_column_reads_as_null_with_a_warning_saying_why(catalog, protector_for) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        people = protector_for("bob").read_table(catalog.load_table("db.people"), ["id", "ssn"])
    assert [r["ssn"] for r in rows(people)] == [None, None, None]
    assert people.schema.field("ssn").metadata[VIEW_KEY] == b"masked-null"
    assert b"partial(keep_last=4)" in people.schema.field("ssn").metadata[REASON_KEY]
    assert any(issubclass(w.category, MaskedColumnWarning) for w in caught)


def test_plaintext_footer_and_ctr_algorithm(catalog, protector_for) -> None:
    table = catalog.load_table("db.plainfooter")
    assert [r["ssn"] for r in rows(protector_for("alice").read_table(table))] == [
        "pf-ssn-1",
        "pf-ssn-2",
    ]
    assert [r["ssn"] for r in rows(protector_for("harry").read_table(table))] == [None, None]


def test_columns_and_row_filters_apply_to_the_principals_view(
    catalog, protector_for, stack
) -> None:
    table = catalog.load_table("db.people")
    alice = protector_for("alice")
    assert alice.read_table(table, ["id"], f"ssn = '{stack['IP_SSN']}'").to_pylist() == [{"id": 1}]
    assert alice.read_table(table, ["ssn"], "id = 2").to_pylist() == [{"ssn": "ssn-0002"}]
    # harry reads ssn as NULL: a filter on it keeps no row, as in Spark
    assert protector_for("harry").read_table(table, ["id"], "ssn = 'ssn-0002'").num_rows == 0


def test_on_denied_fail_refuses_the_read_naming_the_column(catalog, protector_for) -> None:
    with pytest.raises(ColumnAccessDenied, match="harry may not read column salary of db.strict"):
        protector_for("harry").read_table(catalog.load_table("db.strict"))
    assert protector_for("harry").read_table(catalog.load_table("db.strict"), ["id"]).num_rows == 1


def test_a_swapped_file_is_refused(catalog, protector_for) -> None:
    with pytest.raises(FileIntegrityError, match="swapped or replayed"):
        protector_for("alice").read_table(catalog.load_table("db.swapped"))


def test_pandas_and_duckdb_work_on_the_view(catalog, protector_for) -> None:
    people = protector_for("harry").read_table(catalog.load_table("db.people"), ["id", "salary"])
    frame = people.to_pandas()
    assert frame["salary"].sum() == 11300
    total = duckdb.sql("SELECT sum(salary) AS s FROM people WHERE id < 3").fetchall()
    assert total == [(11300,)]


def test_bad_inputs_each_get_one_clear_error(catalog, protector_for, stack, tmp_path) -> None:
    alice = protector_for("alice")
    with pytest.raises(PolicyError, match="Cannot find table db.nope in the served policy"):
        alice.read_table(catalog.load_table("db.people"), policy_name="db.nope")
    forged = tmp_path / "forged.token"
    forged.write_text("ipt_not-a-real-token\n")
    bad = Protector.connect(
        stack["IP_KEY_SERVER_URL"], token_file=forged, ca_cert=stack["IP_CA_CERT"]
    )
    with pytest.raises(AuthenticationError, match="refused the token"):
        bad.read_table(catalog.load_table("db.people"))
    down = Protector.connect(
        "https://127.0.0.1:9", token_file=token_file(stack, "alice"), ca_cert=stack["IP_CA_CERT"]
    )
    with pytest.raises(KeyServerUnavailable, match="every URL failed"):
        down.read_table(catalog.load_table("db.people"))
    with pytest.raises(PolicyError, match="no path prefix of the served policy holds it"):
        alice.read_parquet(str(tmp_path))


def test_a_dead_replica_fails_over_to_the_next(catalog, stack) -> None:
    replicas = "https://127.0.0.1:9," + stack["IP_KEY_SERVER_URL"]
    alice = Protector.connect(
        replicas, token_file=token_file(stack, "alice"), ca_cert=stack["IP_CA_CERT"]
    )
    assert alice.read_table(catalog.load_table("db.people"), ["id", "ssn"]).num_rows == 3


@pytest.mark.parametrize("prefix", ["pii", "pii-ctr", "pii-pf", "pii-pf-ctr"])
def test_python_writes_a_protected_path_that_python_and_spark_read(
    protector_for, stack, prefix
) -> None:
    target = "file:" + str(Path(stack["IP_PATHS"]) / prefix / "people") + "/"
    entry = protector_for("etl").path_entry(target)
    data = pa.table({"id": [1, 2], "ssn": ["py-ssn-1", "py-ssn-2"], "salary": [7000, 8000]})
    written = protector_for("etl").write_parquet(data, target)
    raw = Path(written.removeprefix("file:")).read_bytes()
    assert b"py-ssn-1" not in raw, "a protected value is in the file in clear"
    crypto = read_footer_crypto(io.BytesIO(raw), len(raw), written)
    assert crypto.encrypted_footer is (entry.footer_mode == "encrypted")
    assert crypto.algorithm == entry.algorithm
    assert rows(protector_for("alice").read_parquet(target)) == data.to_pylist()
    harry = protector_for("harry").read_parquet(target, ["id", "ssn", "salary"])
    assert [(r["ssn"], r["salary"]) for r in rows(harry)] == [(None, 7000), (None, 8000)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MaskedColumnWarning)
        bob = protector_for("bob").read_parquet(target)
    assert [(r["ssn"], r["salary"]) for r in rows(bob)] == [(None, None), (None, None)]
    with pytest.raises(ProtectorError, match="Principal alice may not write"):
        protector_for("alice").write_parquet(data, target)
    # the Java test then reads this directory with Spark as alice, harry and bob


def spark_view(stack, principal: str, table: str) -> list[dict]:
    lines = (Path(stack["IP_SPARK_VIEWS"]) / principal / f"{table}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def without_nulls(value):
    """Spark's JSON leaves NULL fields out: compare with them left out on our side too."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    return value


@pytest.mark.parametrize("principal", ["alice", "harry", "bob"])
@pytest.mark.parametrize(
    "table", ["db.people", "db.plainfooter", "db.cards", "db.mor", "db.dv", "db.legacy"]
)
def test_each_principal_sees_what_spark_shows_it(catalog, protector_for, stack, principal, table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MaskedColumnWarning)
        warnings.simplefilter("ignore", UnverifiedFileWarning)
        # Spark's view of db.legacy was read with protector.accept-unverified-files=true
        ours = protector_for(principal).read_table(
            catalog.load_table(table), accept_unverified_files=table == "db.legacy"
        )
    assert_same_view(ours, spark_view(stack, principal, table))


@pytest.mark.parametrize("principal", ["alice", "harry", "bob"])
def test_a_sql_catalog_table_reads_as_spark_shows_it(sql_catalog, protector_for, stack, principal):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MaskedColumnWarning)
        ours = protector_for(principal).read_table(sql_catalog.load_table("db.people"))
    assert_same_view(ours, spark_view(stack, principal, "sql.db.people"))


def assert_same_view(ours: pa.Table, spark_rows: list[dict]) -> None:
    masked_null = {
        f.name for f in ours.schema if f.metadata and f.metadata.get(VIEW_KEY) == b"masked-null"
    }
    expected = []
    for row in spark_rows:
        # Spark masks PME columns with the column key; Python reads them as NULL
        # (docs/python/package.md)
        expected.append(without_nulls({k: v for k, v in row.items() if k not in masked_null}))
    assert [without_nulls(r) for r in rows(ours)] == expected


def test_tokens_are_decoded_and_masked_by_the_key_server_in_batches(
    catalog, protector_for, audit
) -> None:
    cards = catalog.load_table("db.cards")
    clear = [r["card"] for r in rows(protector_for("alice").read_table(cards))]
    assert clear == ["4111-1111-1111-1111", "5500-0000-0000-0004", None]
    tokens = [r["card"] for r in rows(protector_for("harry").read_table(cards))]
    assert tokens[0] != clear[0] and len(tokens[0]) == len(clear[0]) and tokens[2] is None
    masked = [r["card"] for r in rows(protector_for("bob").read_table(cards))]
    assert masked[0] != clear[0] and masked[0].endswith("1111")
    decodes = [e for e in audit.since_mark() if e["op"] == "decode"]
    files = len(list(cards.scan().plan_files()))
    # at most one request per file and principal, whatever the number of values in it
    assert {e["principal"] for e in decodes} == {"alice", "bob"}
    assert len([e for e in decodes if e["principal"] == "alice"]) <= files


@pytest.mark.parametrize("table", ["db.mor", "db.dv"])
def test_merge_on_read_deletes_are_applied(catalog, protector_for, table) -> None:
    name = table.split(".")[1]
    iceberg = catalog.load_table(table)
    alice = protector_for("alice")
    assert rows(alice.read_table(iceberg)) == [
        {"id": 1, "ssn": f"{name}-1"},
        {"id": 3, "ssn": f"{name}-3"},
    ]
    # the snapshot before the DELETE still has the row
    before = min(iceberg.snapshots(), key=lambda s: s.sequence_number).snapshot_id
    assert [r["id"] for r in rows(alice.read_table(iceberg, snapshot_id=before))] == [1, 2, 3]
    # a filter and a projection over the remaining rows
    assert alice.read_table(iceberg, ["ssn"], "id >= 2").to_pylist() == [{"ssn": f"{name}-3"}]


def test_a_file_the_protector_did_not_write_is_refused_unless_accepted(
    catalog, protector_for
) -> None:
    table = catalog.load_table("db.legacy")
    alice = protector_for("alice")
    with pytest.raises(
        UnverifiedFileError,
        match=r"Refusing data file .*\.parquet of protected table db.legacy: the protector did not"
        r" write it \(no file-binding marker in its manifest entry\), and it was committed at"
        r" sequence number 3, after the table came under file binding at sequence number 2",
    ):
        alice.read_table(table)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        accepted = alice.read_table(table, accept_unverified_files=True)
    assert rows(accepted) == [
        {"id": 1, "ssn": "legacy-1"},
        {"id": 2, "ssn": "bound-2"},
        {"id": 3, "ssn": "unverified-3"},
    ]
    said = [str(w.message) for w in caught if issubclass(w.category, UnverifiedFileWarning)]
    assert any("unverified (accept_unverified_files=True)" in m for m in said), said
    assert any("1 data file(s) carry no file binding" in m for m in said), said


def test_an_expired_token_gets_one_clear_error(catalog, stack) -> None:
    expired = Protector.connect(
        stack["IP_KEY_SERVER_URL"],
        token_file=stack["IP_EXPIRED_TOKEN_FILE"],
        ca_cert=stack["IP_CA_CERT"],
    )
    with pytest.raises(AuthenticationError, match="refused the token .*: token expired"):
        expired.read_table(catalog.load_table("db.people"))


def test_a_jwt_reads_as_its_subject(catalog, protector_for, stack) -> None:
    harry = Protector.connect(
        stack["IP_KEY_SERVER_URL"],
        token_file=stack["IP_JWT_TOKEN_FILE"],
        ca_cert=stack["IP_CA_CERT"],
    )
    assert harry.principal == "harry"
    table = catalog.load_table("db.people")
    assert rows(harry.read_table(table)) == rows(protector_for("harry").read_table(table))


#: The columns of db.maskvectors (PythonPackageTest's policy) and the mask each has for analysts.
MASK_VECTOR_COLUMNS = {
    "partial(keep_last=4)": "p4",
    "partial(keep_last=3)": "p3",
    "partial(keep_last=2)": "p2",
    "partial(keep_last=0)": "p0",
    "redact": "redacted",
    "null": "nulled",
}


def test_the_key_server_masks_as_the_shared_vectors_say(protector_for) -> None:
    """The package masks nothing itself: masked tokenized columns come back masked by the key
    server, which must mask as the Spark readers do (the vectors both Java sides check)."""
    vectors = json.loads(
        (Path(__file__).resolve().parents[2] / "testdata" / "protection-vectors.json").read_text()
    )
    cases = [c for c in vectors["masks"] if c["type"] == "string" and c["mask"] != "hash"]
    assert len(cases) >= 6
    for case in cases:
        column = MASK_VECTOR_COLUMNS[case["mask"]]
        (token,) = protector_for("etl").client.encode(
            "pii", domain="mv", method="deterministic", values=[case["value"]]
        )
        masked, mask = protector_for("bob").client.decode(
            "pii",
            domain="mv",
            method="deterministic",
            values=[token],
            table="db.maskvectors",
            column=column,
        )
        assert (masked, mask) == ([case["masked"]], case["mask"]), case
