"""The shared test vectors (``testdata/protection-vectors.json``): the Java side checks the same
file, so the two sides decide and bind alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iceberg_protector import ServedPolicy, aad_prefix

VECTORS = json.loads(
    (Path(__file__).resolve().parents[2] / "testdata" / "protection-vectors.json").read_text()
)
POLICY = ServedPolicy.parse(VECTORS["policy"], "vectors policy")


@pytest.mark.parametrize("case", VECTORS["decisions"], ids=lambda c: f"{c['column']}-{c['roles']}")
def test_decisions(case: dict) -> None:
    rule = POLICY.table(case["table"]).column(case["column"])
    assert rule is not None
    access = rule.access_for(case["roles"])
    assert access.level.value == case["level"]
    if "mask" in case:
        assert access.mask == case["mask"]
    if "on_denied" in case:
        assert access.on_denied == case["on_denied"]


@pytest.mark.parametrize("case", VECTORS["bindings"], ids=lambda c: c["location"])
def test_bindings(case: dict) -> None:
    assert aad_prefix(case["table_uuid"], case["location"]) == case["aad_prefix"].encode()
