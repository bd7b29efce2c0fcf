# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the stack tests: the key server, the REST catalog and the bucket that the Java
integration test ``PythonPackageTest`` starts and fills, named by ``IP_*`` environment variables.
Without them (a plain ``pytest`` in ``python/``) the stack tests are skipped; the Java test sets
``IP_STACK=1`` and a skip would fail it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from iceberg_protector import Protector


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"stack test: {name} is not set (run through PythonPackageTest)")
    return value


@pytest.fixture(scope="session")
def stack() -> dict[str, str]:
    return {
        k: _env(k)
        for k in (
            "IP_KEY_SERVER_URL",
            "IP_CA_CERT",
            "IP_TOKEN_DIR",
            "IP_AUDIT_FILE",
            "IP_REST_URI",
            "IP_S3_ENDPOINT",
            "IP_S3_ACCESS_KEY",
            "IP_S3_SECRET_KEY",
            "IP_S3_REGION",
            "IP_PATHS",
            "IP_SSN",
            "IP_SPARK_VIEWS",
            "IP_SQL_CATALOG_URI",
            "IP_SQL_WAREHOUSE",
            "IP_EXPIRED_TOKEN_FILE",
            "IP_JWT_TOKEN_FILE",
        )
    }


def token_file(stack: dict[str, str], principal: str) -> Path:
    return Path(stack["IP_TOKEN_DIR"]) / f"{principal}.token"


@pytest.fixture(scope="session")
def protector_for(stack: dict[str, str]) -> Any:
    cache: dict[str, Protector] = {}

    def make(principal: str) -> Protector:
        if principal not in cache:
            cache[principal] = Protector.connect(
                stack["IP_KEY_SERVER_URL"],
                token_file=token_file(stack, principal),
                ca_cert=stack["IP_CA_CERT"],
            )
        return cache[principal]

    return make


@pytest.fixture(scope="session")
def catalog(stack: dict[str, str]) -> Any:
    from pyiceberg.catalog import load_catalog

    return load_catalog(
        "rest",
        **{
            "type": "rest",
            "uri": stack["IP_REST_URI"],
            "s3.endpoint": stack["IP_S3_ENDPOINT"],
            "s3.access-key-id": stack["IP_S3_ACCESS_KEY"],
            "s3.secret-access-key": stack["IP_S3_SECRET_KEY"],
            "s3.region": stack["IP_S3_REGION"],
            "s3.force-virtual-addressing": "false",
        },
    )


@pytest.fixture(scope="session")
def sql_catalog(stack: dict[str, str]) -> Any:
    """The JDBC catalog Spark wrote (catalog name protsql), opened as PyIceberg's SQL catalog."""
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog(
        "protsql", uri=stack["IP_SQL_CATALOG_URI"], warehouse=stack["IP_SQL_WAREHOUSE"]
    )


class Audit:
    """The key server's audit file: the lines written since :meth:`mark`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def mark(self) -> None:
        self.offset = self.path.stat().st_size

    def since_mark(self) -> list[dict[str, Any]]:
        with self.path.open("rb") as f:
            f.seek(self.offset)
            return [json.loads(line) for line in f.read().decode().splitlines() if line.strip()]


@pytest.fixture()
def audit(stack: dict[str, str]) -> Iterator[Audit]:
    a = Audit(Path(stack["IP_AUDIT_FILE"]))
    a.mark()
    yield a
