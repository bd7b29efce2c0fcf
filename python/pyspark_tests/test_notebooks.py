# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The notebooks of ``notebooks/``, run top to bottom in a Jupyter kernel as a user runs them (the
jars resolved through ``PYSPARK_SUBMIT_ARGS``, set by ``PySparkIT``), with the state they create
kept in a fresh ``PROTECTOR_WORK``; then what their cells printed is checked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient


def run_notebook(repo_root: Path, name: str, work: Path) -> list[str]:
    """Runs ``notebooks/<name>`` from ``notebooks/``; returns each code cell's printed text."""
    notebook = nbformat.read(repo_root / "notebooks" / name, as_version=4)
    os.environ["PROTECTOR_WORK"] = str(work)
    try:
        NotebookClient(
            notebook,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(repo_root / "notebooks")}},
        ).execute()
    finally:
        del os.environ["PROTECTOR_WORK"]
    return [_printed(c) for c in notebook.cells if c.cell_type == "code"]


def _printed(cell: Any) -> str:
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def test_the_pyspark_quickstart_runs_and_prints_each_view(repo_root: Path, tmp_path: Path) -> None:
    printed = "\n".join(run_notebook(repo_root, "pyspark-quickstart.ipynb", tmp_path))
    alice = printed.split("--- as alice")[1].split("--- as bob")[0]
    bob = printed.split("--- as bob")[1].split("--- as carol")[0]
    carol = printed.split("--- as carol")[1]
    assert "123-45-6789" in alice and "185000.00" in alice and "94105" in alice
    assert "*******6789" in bob and "123-45-6789" not in bob and "ada@example.com" not in bob
    assert "123-45-6789" not in carol and "NULL" in carol
    assert "footer: encrypted" in printed and "algorithm: AES_GCM_V1" in printed
    assert "binding stored: iceberg-protector/file-binding/v1:" in printed
    assert "PyArrow without keys:" in printed
    assert "0 hits in" in printed
    assert "Principal 'bob'" in printed or "Cannot write to protected table" in printed, printed
    assert "Traceback" not in printed


def test_the_spark_sql_notebook_runs_and_prints_each_view(repo_root: Path, tmp_path: Path) -> None:
    outputs = run_notebook(repo_root, "spark-sql.ipynb", tmp_path)
    printed = "\n".join(outputs)
    alice, bob, grouped, carol = outputs[3], outputs[4], outputs[5], outputs[6]
    assert "123-45-6789" in alice and "ada@example.com" in alice
    assert "*******6789" in bob and "123-45-6789" not in bob and "ada@example.com" not in bob
    assert grouped.count("|1  |") == 2, grouped
    assert "123-45-6789" not in carol and "NULL" in carol
    assert "ada@lovelace.example" in outputs[7]
    assert "may not run UPDATE" in outputs[8], outputs[8]
    assert [c.strip() for c in outputs[9].splitlines()[3].split("|")[1:3]] == ["2", "0"]
    assert "Traceback" not in printed
