# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The Python package reading a protected Iceberg table as a clear reader, against PyArrow reading
the same rows written plain, side by side in one run (``bin/python-benchmark``; not a test).

Spark (PySpark with this repository's runtime jar, the key server as a process) writes the same
generated rows twice: into a protected table (3 protected columns under 2 master keys, encrypted
footer) and into a plain Iceberg table. Then, after a warm-up round, each round times

- (a) PyArrow reading the plain table's data files (``pyarrow.parquet.read_table``),
- (a') PyIceberg's own scan of the plain table (``scan().to_arrow()``),
- (b) ``Protector.read_table`` of the protected table as a clear reader (PyIceberg planning, the
  binding check of every file, PyArrow's decryption with keys from the key server),

and prints medians, the median of the per-round ratios to (a), and the key server's unwraps.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from iceberg_protector import Protector  # noqa: E402
from iceberg_protector.spark import runtime_packages  # noqa: E402
from tests.keyserver import KeyServerProcess  # noqa: E402

POLICY = """
protector {
  roles {
    admin    { users = ["alice"] }
    etl      { users = ["etl"] }
    keyadmin { users = ["ops"] }
  }
  keys { pii {}, fin {}, footer {} }
  tables {
    "bench.protected" {
      footer-key = footer
      writers    = [etl]
      columns {
        ssn    { key = pii, clear = [admin] }
        email  { key = pii, clear = [admin] }
        salary { key = fin, clear = [admin] }
      }
    }
  }
}
"""

# 10 columns as in the Java benchmark: long, int, double, decimal, date, timestamp, strings of
# varied length; ssn, email and salary protected
COLUMNS = [
    "id",
    "CAST(id % 1000 AS INT) AS category",
    "CAST(id * 1.5 AS DOUBLE) AS score",
    "CAST(id % 100000 AS DECIMAL(12,2)) AS salary",
    "DATE_ADD(DATE'2020-01-01', CAST(id % 3650 AS INT)) AS joined",
    "TIMESTAMP_SECONDS(1600000000 + id) AS updated",
    "CONCAT('name-', CAST(id % 50000 AS STRING)) AS name",
    "LPAD(CAST(id % 1000000000 AS STRING), 9, '0') AS ssn",
    "CONCAT('user', CAST(id AS STRING), '@example.com') AS email",
    "REPEAT(CHAR(65 + CAST(id % 26 AS INT)), CAST(id % 40 AS INT)) AS note",
]


def write_tables(args: argparse.Namespace, server: KeyServerProcess, warehouse: Path) -> None:
    from pyspark.sql import SparkSession

    p = "spark.sql.catalog.prot"
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("python-read-benchmark")
        .config("spark.driver.memory", "4g")
        .config("spark.ui.enabled", "false")
        .config("spark.jars", str(args.runtime_jar))
        .config("spark.jars.packages", runtime_packages()[0])
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
            "io.icebergprotector.spark.ProtectorSparkSessionExtensions",
        )
        .config(p, "io.icebergprotector.spark.ProtectingSparkCatalog")
        .config(p + ".type", "hadoop")
        .config(p + ".warehouse", warehouse.as_uri())
        .config(p + ".protector.kms.type", "remote")
        .config(p + ".protector.kms.url", server.url)
        .config(p + ".protector.kms.trust-store", str(server.certificate))
        .config(p + ".protector.token-file", str(server.token_file("etl")))
        .config("spark.sql.catalog.plain", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.plain.type", "hadoop")
        .config("spark.sql.catalog.plain.warehouse", warehouse.as_uri())
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    rows = spark.range(args.rows).selectExpr(*COLUMNS).repartition(args.files).cache()
    rows.count()
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.bench")
    for table in ("prot.bench.protected", "plain.bench.plain"):
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        rows.writeTo(table).create()
    spark.stop()


def static_table(warehouse: Path, name: str) -> Any:
    from pyiceberg.table import StaticTable

    metadata = warehouse / "bench" / name / "metadata"
    version = (metadata / "version-hint.text").read_text().strip()
    return StaticTable.from_metadata(str(metadata / f"v{version}.metadata.json"))


def timed(action: Callable[[], pa.Table]) -> tuple[float, pa.Table]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--files", type=int, default=2, help="data files per table")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--work", type=Path, default=ROOT / "python" / "target" / "benchmark")
    parser.add_argument("--server-jar", type=Path, required=True)
    parser.add_argument("--runtime-jar", type=Path, required=True, help="the 3.5_2.12 jar")
    parser.add_argument("--keep", action="store_true", help="reuse tables of an earlier run")
    args = parser.parse_args()

    warehouse = args.work / "warehouse"
    with KeyServerProcess(
        args.work / "key-server",
        POLICY,
        {"alice": "alice", "etl": "etl"},
        server_jar=args.server_jar,
        keep_keys=args.keep,
    ) as server:
        server.start()
        server.create_keys(["pii", "fin", "footer"])
        if not (args.keep and (warehouse / "bench" / "plain").exists()):
            start = time.perf_counter()
            write_tables(args, server, warehouse)
            print(
                f"wrote {args.rows:,} rows twice with Spark in {time.perf_counter() - start:.1f} s"
            )
        protected = static_table(warehouse, "protected")
        plain = static_table(warehouse, "plain")
        plain_files = [t.file.file_path for t in plain.scan().plan_files()]
        alice = Protector.connect(
            server.url, token_file=server.token_file("alice"), ca_cert=server.certificate
        )
        variants: dict[str, Callable[[], pa.Table]] = {
            "(a) PyArrow, plain files": lambda: pq.read_table(
                [f.removeprefix("file:") for f in plain_files]
            ),
            "(a') PyIceberg scan, plain table": lambda: plain.scan().to_arrow(),
            "(b) iceberg_protector, protected table": lambda: alice.read_table(
                protected, policy_name="bench.protected"
            ),
        }
        unwraps_before = sum(1 for e in server.audit() if e.get("op") == "unwrap")
        seconds: dict[str, list[float]] = {v: [] for v in variants}
        for round_ in range(args.warmup + args.reps):
            for name, action in variants.items():
                elapsed, result = timed(action)
                if result.num_rows != args.rows:
                    raise AssertionError(f"{name} read {result.num_rows} rows, not {args.rows}")
                if round_ >= args.warmup:
                    seconds[name].append(elapsed)
        unwraps = sum(1 for e in server.audit() if e.get("op") == "unwrap") - unwraps_before

    size = sum(os.path.getsize(f.removeprefix("file:")) for f in plain_files) / 1e6
    base = seconds["(a) PyArrow, plain files"]
    print()
    print(
        f"{args.rows:,} rows, 10 columns ({size:.1f} MB plain, {len(plain_files)} files),"
        f" {args.reps} rounds after {args.warmup} warm-up; Python {sys.version.split()[0]},"
        f" PyArrow {pa.__version__}"
    )
    print(f"{'variant':<42} {'median s':>9} {'x(a)':>6} {'min s':>7} {'max s':>7}")
    for name, times in seconds.items():
        ratio = statistics.median(t / b for t, b in zip(times, base, strict=True))
        print(
            f"{name:<42} {statistics.median(times):>9.3f} {ratio:>6.2f}"
            f" {min(times):>7.3f} {max(times):>7.3f}"
        )
    rounds = args.warmup + args.reps
    print(f"key server unwraps by the reads: {unwraps} in {rounds} rounds")


if __name__ == "__main__":
    main()
