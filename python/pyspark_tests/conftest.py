# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""PySpark against one runtime jar, as a user runs it: ``pip install pyspark==<its version>``, the
session snippet of docs/python/pyspark.md, then SQL and DataFrames. ``PySparkIT`` (runtime-tests)
makes the virtual environment, puts the jar built by the same run into a file repository
(``--repositories`` through ``PYSPARK_SUBMIT_ARGS``, as a user's Maven setup would provide it) and
sets:

- ``IP_REPO_ROOT``: the checkout (docs/python/pyspark.md, conf/policy.conf, notebooks/);
- ``IP_SPARK_TARGET``: the jar's target, ``3.5_2.12``, ``4.0_2.13`` or ``4.1_2.13``;
- ``IP_WORK``: a fresh working directory for the session (relative paths of the snippet)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from iceberg_protector.spark import TARGETS

#: The target of the page's snippet; other targets replace it in the coordinates, as the page
#: tells the reader to (with the Iceberg release of that target).
PAGE_TARGET = "3.5_2.12"

#: The page whose Python blocks (before its first "## " section) the tests run as printed.
PYSPARK_PAGE = Path("docs", "python", "pyspark.md")
TOKEN_TABLE = """
# added by the PySpark tests: a tokenized table, for protect() and unprotect()
protector.tables."db.cards" {
  footer-key = footer
  writers = [etl, admin]
  columns {
    card { key = pii, method = "fpe(alphabet = digits, keep = \\"-\\")", domain = card,
           clear = [admin], token = [analyst] }
  }
}
"""


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"PySpark test: {name} is not set (run through PySparkIT)")
    return value


def page_snippets(page: str) -> list[str]:
    """The Python blocks of docs/python/pyspark.md, up to its first "## " section."""
    assert page.startswith("# From PySpark"), "docs/python/pyspark.md: not the 'From PySpark' page"
    section = page.split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "docs/python/pyspark.md: no python block"
    return blocks


def for_target(code: str, target: str) -> str:
    """The page's code with the coordinates of ``target``: its Iceberg runtime (at the Iceberg
    release the package pins for it) and its protector runtime."""
    page_iceberg = dict(TARGETS.values())[PAGE_TARGET]
    iceberg = dict(TARGETS.values())[target]
    code = code.replace(
        f"iceberg-spark-runtime-{PAGE_TARGET}:{page_iceberg}",
        f"iceberg-spark-runtime-{target}:{iceberg}",
    )
    return code.replace(PAGE_TARGET, target)


def page_snippet(page: str) -> str:
    """The first Python block of docs/python/pyspark.md."""
    return page_snippets(page)[0]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return Path(_env("IP_REPO_ROOT"))


@pytest.fixture(scope="session")
def work() -> Path:
    return Path(_env("IP_WORK"))


@pytest.fixture(scope="session")
def spark(repo_root: Path, work: Path) -> Any:
    target = _env("IP_SPARK_TARGET")
    (work / "conf").mkdir(parents=True, exist_ok=True)
    policy = (repo_root / "conf" / "policy.conf").read_text()
    (work / "conf" / "policy.conf").write_text(policy + TOKEN_TABLE)
    (work / ".protector").mkdir(exist_ok=True)
    (work / ".protector" / "passphrase").write_text("pyspark-tests-passphrase\n")
    os.chdir(work)
    code = page_snippet((repo_root / PYSPARK_PAGE).read_text())
    code = for_target(code, target)
    scope: dict[str, Any] = {}
    exec(compile(code, str(PYSPARK_PAGE), "exec"), scope)  # noqa: S102
    session = scope["spark"]
    # the snippet's keystore is new here: let the catalog create the policy's keys once
    session.conf.set("spark.sql.catalog.prot.protector.kms.create-missing-keys", "true")
    yield session
    session.stop()
