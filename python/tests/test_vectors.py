# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The shared test vectors (``testdata/protection-vectors.json``): the Java side checks the same
file, so the two sides decide and bind alike."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from iceberg_protector import (
    ProtectorError,
    ServedPolicy,
    UnverifiedFileError,
    UnverifiedFileWarning,
    aad_prefix,
)
from iceberg_protector.admission import BOUNDARY_PROPERTY, FileAdmission, Verdict, binding_boundary

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


@pytest.mark.parametrize(
    "case",
    VECTORS["admissions"],
    ids=lambda c: f"{c['key_metadata'] or 'none'}-seq{c['sequence_number']}-{c['boundary']}",
)
def test_admissions(case: dict) -> None:
    properties = {} if case["boundary"] is None else {BOUNDARY_PROPERTY: case["boundary"]}
    key_metadata = bytes.fromhex(case["key_metadata"]) or None
    verdict = case["verdict"]

    def admit() -> Verdict:
        admission = FileAdmission(
            "db.t", binding_boundary(properties, "db.t"), case["accept_unverified"]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnverifiedFileWarning)
            return admission.admit("s3://b/db/t/data/f.parquet", key_metadata, lambda: seq)

    seq = case["sequence_number"]
    if verdict == "malformed":
        with pytest.raises(ProtectorError, match=f"malformed {BOUNDARY_PROPERTY}"):
            admit()
    elif verdict == "refused":
        with pytest.raises(UnverifiedFileError, match="the protector did not write it"):
            admit()
    elif verdict == "unsupported":
        with pytest.raises(ProtectorError, match="newer protector version"):
            admit()
    else:
        assert admit().value == verdict
