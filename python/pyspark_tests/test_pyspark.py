# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The protector through PySpark: the snippets of docs/python/pyspark.md, writes and each
principal's view, token functions, MERGE, and errors as a Python user sees them."""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_protector.spark import runtime_packages, runtime_target

from .conftest import PYSPARK_PAGE, for_target, page_snippets

C = "spark.sql.catalog.prot"
ROWS = [
    (
        1,
        "Ada Lovelace",
        "123-45-6789",
        "ada@example.com",
        Decimal("185000.00"),
        ("1 Analytical Way", "94105", "London"),
    ),
    (
        2,
        "Alan Turing",
        "987-65-4321",
        "alan@example.com",
        Decimal("172000.00"),
        ("2 Enigma Rd", "10001", "Manchester"),
    ),
]
SCHEMA = (
    "id BIGINT, name STRING, ssn STRING, email STRING, salary DECIMAL(12,2),"
    " address STRUCT<street: STRING, zip: STRING, city: STRING>"
)


def as_user(spark: Any, user: str) -> None:
    spark.conf.set(C + ".protector.user", user)


@pytest.fixture(scope="module")
def customers(spark: Any) -> Any:
    # the page's snippet left the session reading as bob
    assert spark.conf.get(C + ".protector.user") == "bob"
    as_user(spark, "etl")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db")
    spark.sql("DROP TABLE IF EXISTS prot.db.customers PURGE")
    spark.sql(f"CREATE TABLE prot.db.customers ({SCHEMA}) USING iceberg")
    spark.createDataFrame(ROWS, SCHEMA).writeTo("prot.db.customers").append()
    return "prot.db.customers"


def read(spark: Any, user: str, table: str) -> list[tuple]:
    as_user(spark, user)
    rows = spark.sql(
        f"SELECT id, ssn, email, salary, address.zip AS zip FROM {table} ORDER BY id"
    ).collect()
    return [tuple(r) for r in rows]


def test_each_principal_reads_its_view(spark: Any, customers: str) -> None:
    assert read(spark, "alice", customers) == [
        (1, "123-45-6789", "ada@example.com", Decimal("185000.00"), "94105"),
        (2, "987-65-4321", "alan@example.com", Decimal("172000.00"), "10001"),
    ]
    bob = read(spark, "bob", customers)
    assert [r[1] for r in bob] == ["*******6789", "*******4321"]
    assert all(len(r[2]) >= 16 and "@" not in r[2] for r in bob)  # the hash mask
    assert [(r[3], r[4]) for r in bob] == [(None, None), (None, None)]
    assert read(spark, "carol", customers) == [
        (1, None, None, None, None),
        (2, None, None, None, None),
    ]


def test_merge_as_a_writer_who_reads_in_clear(spark: Any, customers: str) -> None:
    # MERGE copies whole rows of the files it rewrites: a writer that reads them in clear only
    as_user(spark, "alice")
    spark.createDataFrame(
        [
            (
                2,
                "Alan Turing",
                "987-65-4321",
                "turing@example.com",
                Decimal("1.00"),
                ("2 Enigma Rd", "10001", "Manchester"),
            ),
            (
                3,
                "Grace Hopper",
                "555-01-0003",
                "grace@example.com",
                Decimal("2.00"),
                ("3 Cobol St", "20001", "Arlington"),
            ),
        ],
        SCHEMA,
    ).createOrReplaceTempView("updates")
    spark.sql(
        f"MERGE INTO {customers} t USING updates u ON t.id = u.id"
        " WHEN MATCHED THEN UPDATE SET t.email = u.email"
        " WHEN NOT MATCHED THEN INSERT *"
    )
    as_user(spark, "etl")
    with pytest.raises(IllegalArgumentException) as refused:
        spark.sql(
            f"MERGE INTO {customers} t USING updates u ON t.id = u.id"
            " WHEN MATCHED THEN UPDATE SET t.email = u.email"
        )
    assert str(refused.value).startswith("Principal 'etl' (roles [etl]) may not run MERGE")
    alice = read(spark, "alice", customers)
    assert [(r[0], r[2]) for r in alice] == [
        (1, "ada@example.com"),
        (2, "turing@example.com"),
        (3, "grace@example.com"),
    ]


def test_protect_and_unprotect(spark: Any) -> None:
    as_user(spark, "alice")
    token = spark.sql("SELECT protect('4111-1111-1111-1111', 'card') AS t").first()["t"]
    assert token != "4111-1111-1111-1111" and len(token) == 19 and token.count("-") == 3
    back = spark.sql(f"SELECT unprotect('{token}', 'card') AS v").first()["v"]
    assert back == "4111-1111-1111-1111"
    as_user(spark, "bob")
    with pytest.raises(IllegalArgumentException) as refused:
        spark.sql(f"SELECT unprotect('{token}', 'card') AS v").collect()
    assert "bob" in str(refused.value).splitlines()[0]


def test_a_refusal_is_the_first_line_of_the_python_exception(spark: Any, customers: str) -> None:
    as_user(spark, "bob")
    with pytest.raises(IllegalArgumentException) as refused:
        spark.sql(f"INSERT INTO {customers} SELECT * FROM {customers}")
    first = str(refused.value).splitlines()[0]
    assert first.startswith("Cannot write to protected table prot.db.customers"), first
    assert "Py4J" not in first


def test_the_helper_names_the_jars_the_page_loads(repo_root: Path, spark: Any) -> None:
    first = page_snippets((repo_root / PYSPARK_PAGE).read_text())[0]
    target = os.environ["IP_SPARK_TARGET"]
    assert runtime_target() == target
    printed = for_target(first, target)
    for coordinate in runtime_packages():
        assert coordinate in printed, coordinate
    assert runtime_packages()[1].endswith(":" + os.environ["IP_VERSION"])
    # and they are what this session resolved
    loaded = spark.conf.get("spark.jars.packages")
    assert set(runtime_packages()) <= set(loaded.split(",")), loaded


def test_the_page_helper_snippet_starts_a_session(repo_root: Path, work: Path, spark: Any) -> None:
    second = page_snippets((repo_root / PYSPARK_PAGE).read_text())[1]
    script = "\n".join(
        [
            second,
            "print(spark.conf.get('spark.jars.packages'))",
            "print(spark.conf.get('spark.sql.extensions'))",
            "print([r[0] for r in spark.sql('SHOW NAMESPACES IN prot').collect()])",
            "spark.stop()",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=work,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    packages, extensions, namespaces = result.stdout.strip().splitlines()[-3:]
    assert packages.split(",") == runtime_packages()
    assert extensions.endswith("io.icebergprotector.spark.ProtectorSparkSessionExtensions")
    assert "db" in namespaces
