# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""PySpark against the key server as a process: per-user tokens decide each session's principal,
the server releases keys per the policy it serves and audits them, and the protector's failures
inside tasks reach Python as exceptions whose first line is the protector's message."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from iceberg_protector import ProtectorError
from iceberg_protector.spark import ProtectorSparkError
from tests.keyserver import KeyServerProcess

R = "spark.sql.catalog.remote"
USERS = ["alice", "bob", "carol", "etl"]
# the sample policy names no key administrator: the server's admin role, for creating its keys
KEY_ADMIN = '\nprotector.roles.keyadmin { users = ["ops"] }\n'


@pytest.fixture(scope="module")
def key_server(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    policy = (repo_root / "conf" / "policy.conf").read_text() + KEY_ADMIN
    server = KeyServerProcess(
        tmp_path_factory.mktemp("key-server"),
        policy,
        {u: u for u in USERS},
        server_jar=repo_root / "protector-server" / "target" / "iceberg-protector-server.jar",
    ).start()
    server.create_keys(["pii", "fin", "footer", "hr-footer"])
    yield server
    server.stop()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("remote-warehouse")


def session_of(spark: Any, key_server: Any, warehouse: Path, user: str) -> Any:
    """A new session whose catalog ``remote`` authenticates with ``user``'s own token file."""
    session = spark.newSession()
    for key, value in {
        "": "io.icebergprotector.spark.ProtectingSparkCatalog",
        ".type": "hadoop",
        ".warehouse": warehouse.as_uri(),
        ".protector.kms.type": "remote",
        ".protector.kms.url": key_server.url,
        ".protector.kms.trust-store": str(key_server.certificate),
        ".protector.token-file": str(key_server.token_file(user)),
    }.items():
        session.conf.set(R + key, value)
    return session


@pytest.fixture(scope="module")
def customers(spark: Any, key_server: Any, warehouse: Path) -> str:
    etl = session_of(spark, key_server, warehouse, "etl")
    etl.sql("CREATE NAMESPACE IF NOT EXISTS remote.db")
    etl.sql(
        "CREATE TABLE remote.db.customers (id BIGINT, ssn STRING, email STRING,"
        " salary DECIMAL(12,2), address STRUCT<zip: STRING>) USING iceberg"
    )
    etl.sql(
        "INSERT INTO remote.db.customers VALUES"
        " (1, '123-45-6789', 'ada@example.com', 185000.00, named_struct('zip', '94105')),"
        " (2, '987-65-4321', 'alan@example.com', 172000.00, named_struct('zip', '10001'))"
    )
    return "remote.db.customers"


def view(spark: Any, key_server: Any, warehouse: Path, user: str, table: str) -> list[tuple]:
    session = session_of(spark, key_server, warehouse, user)
    return [
        tuple(r) for r in session.sql(f"SELECT id, ssn, salary FROM {table} ORDER BY id").collect()
    ]


def test_each_token_reads_its_principals_view(
    spark: Any, key_server: Any, warehouse: Path, customers: str
) -> None:
    start = len(key_server.audit())
    assert [r[1] for r in view(spark, key_server, warehouse, "alice", customers)] == [
        "123-45-6789",
        "987-65-4321",
    ]
    assert view(spark, key_server, warehouse, "bob", customers) == [
        (1, "*******6789", None),
        (2, "*******4321", None),
    ]
    assert view(spark, key_server, warehouse, "carol", customers) == [
        (1, None, None),
        (2, None, None),
    ]
    released = {
        (e.get("principal"), e.get("key"))
        for e in key_server.audit()[start:]
        if e.get("op") == "unwrap" and e.get("decision", "allow") == "allow"
    }
    assert ("alice", "pii") in released and ("bob", "pii") in released
    assert not {k for p, k in released if p == "carol"} & {"pii", "fin"}, released


def test_a_session_cannot_claim_another_user(
    spark: Any, key_server: Any, warehouse: Path, customers: str
) -> None:
    # with a key server the token names the principal: a claimed protector.user changes nothing
    carol = session_of(spark, key_server, warehouse, "carol")
    carol.conf.set(R + ".protector.user", "alice")
    assert [
        tuple(r) for r in carol.sql(f"SELECT id, ssn FROM {customers} ORDER BY id").collect()
    ] == [
        (1, None),
        (2, None),
    ]


def test_a_failure_inside_a_task_is_raised_with_the_protectors_message_first(
    spark: Any, key_server: Any, warehouse: Path, customers: str
) -> None:
    # copy one data file over another: each is bound to its own name, so the reader refuses it
    etl = session_of(spark, key_server, warehouse, "etl")
    files = sorted(r[0] for r in etl.sql(f"SELECT file_path FROM {customers}.files").collect())
    assert len(files) >= 2, files
    first_file, second_file = (Path(f.removeprefix("file:")) for f in files[:2])
    saved = first_file.read_bytes()
    shutil.copyfile(second_file, first_file)
    try:
        alice = session_of(spark, key_server, warehouse, "alice")
        with pytest.raises(ProtectorSparkError) as refused:
            alice.sql(f"SELECT id, ssn FROM {customers}").collect()
    finally:
        first_file.write_bytes(saved)
    message = str(refused.value).splitlines()[0]
    assert first_file.name in message, message
    assert not message.startswith(("An error occurred", "Job aborted")), message
    assert refused.value.java_class.startswith("io.icebergprotector."), refused.value.java_class
    assert isinstance(refused.value, ProtectorError)
