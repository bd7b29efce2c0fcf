# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""PySpark with the protector: the runtime jars that match the installed ``pyspark``, and the
protector's refusals raised as Python exceptions whose first line is the protector's message.

PySpark needs no Python code to use the protector (it is configured through the JVM). This module
adds two conveniences, in the manner of ``delta-spark``:

- :func:`configure_spark_with_protector` puts the Iceberg and protector runtime jars of the
  installed ``pyspark``'s Spark and Scala line into ``spark.jars.packages`` and both session
  extensions into ``spark.sql.extensions``, so the Scala suffix can no longer be wrong;
- importing this module makes PySpark raise :class:`ProtectorSparkError` for any failure whose JVM
  cause is one of the protector's exceptions, including those raised inside tasks (a tampered
  file, a key server that went away), which PySpark would otherwise raise as a ``Py4JJavaError``
  whose first line names a JVM method.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .errors import ProtectorError

#: The version of the protector's JVM artifacts this package is released with (the Maven project
#: version; ``JvmPinTest`` checks that they agree).
PROTECTOR_VERSION = "0.1.0-SNAPSHOT"

#: For each Spark line a ``pyspark`` wheel exists for: the runtime target (Spark and the Scala
#: the wheel bundles) and the Iceberg release whose Spark runtime the protector is built against.
TARGETS: dict[str, tuple[str, str]] = {
    "3.5": ("3.5_2.12", "1.12.0"),
    "4.0": ("4.0_2.13", "1.11.0"),
    "4.1": ("4.1_2.13", "1.12.0"),
}

ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
PROTECTOR_EXTENSIONS = "io.icebergprotector.spark.ProtectorSparkSessionExtensions"
_JVM_PACKAGE = "io.icebergprotector."


def runtime_target(pyspark_version: str | None = None) -> str:
    """The runtime target (``3.5_2.12``, ``4.0_2.13``, ``4.1_2.13``) of a ``pyspark`` version
    (the installed one by default)."""
    return _target(pyspark_version)[0]


def runtime_packages(pyspark_version: str | None = None) -> list[str]:
    """The Maven coordinates of the Iceberg and protector runtime jars for a ``pyspark`` version
    (the installed one by default)."""
    target, iceberg = _target(pyspark_version)
    return [
        f"org.apache.iceberg:iceberg-spark-runtime-{target}:{iceberg}",
        f"io.icebergprotector:iceberg-protector-spark-runtime-{target}:{PROTECTOR_VERSION}",
    ]


def configure_spark_with_protector(builder: Any, extra_packages: Iterable[str] = ()) -> Any:
    """Adds the runtime jars of the installed ``pyspark`` to ``spark.jars.packages`` and both
    session extensions to ``spark.sql.extensions`` of a ``SparkSession.Builder``, keeping what the
    builder already holds. Returns the builder."""
    options = getattr(builder, "_options", {})
    packages = _merged(options.get("spark.jars.packages"), [*runtime_packages(), *extra_packages])
    extensions = _merged(
        options.get("spark.sql.extensions"), [ICEBERG_EXTENSIONS, PROTECTOR_EXTENSIONS]
    )
    return builder.config("spark.jars.packages", packages).config(
        "spark.sql.extensions", extensions
    )


def _merged(existing: str | None, wanted: Iterable[str]) -> str:
    items = [i.strip() for i in (existing or "").split(",") if i.strip()]
    for item in wanted:
        if item not in items:
            items.append(item)
    return ",".join(items)


def _target(pyspark_version: str | None) -> tuple[str, str]:
    if pyspark_version is None:
        import pyspark

        pyspark_version = pyspark.__version__
    line = ".".join(pyspark_version.split(".")[:2])
    if line not in TARGETS:
        raise ProtectorError(
            f"Cannot match pyspark {pyspark_version} with a protector runtime jar: jars exist for"
            f" Spark {', '.join(sorted(TARGETS))}"
        )
    return TARGETS[line]


# ---- errors ------------------------------------------------------------------------------------


def _error_class() -> type:
    # the classic (Py4J) form of pyspark.errors.IllegalArgumentException, which subclasses it
    from pyspark.errors.exceptions.captured import IllegalArgumentException

    class ProtectorSparkError(IllegalArgumentException, ProtectorError):  # type: ignore[misc]
        """A protector refusal or failure raised in a Spark job, driver or task side.

        ``str()`` starts with the protector's one-line message; ``java_class`` names the JVM
        exception. It is a ``pyspark.errors.IllegalArgumentException`` (the protector's JVM
        exceptions are ``IllegalArgumentException``\\ s where raised on the driver) and an
        :class:`iceberg_protector.ProtectorError`.
        """

        def __init__(self, message: str, stack_trace: str, java_class: str) -> None:
            super().__init__(desc=message, stackTrace=stack_trace)
            self.java_class = java_class

    return ProtectorSparkError


def protector_cause(java_exception: Any, depth: int = 32) -> Any | None:
    """The outermost exception of the protector in a JVM exception's cause chain, or None."""
    current = java_exception
    for _ in range(depth):
        if current is None:
            return None
        if current.getClass().getName().startswith(_JVM_PACKAGE):
            return current
        current = current.getCause()
    return None


def install_error_conversion() -> None:
    """Makes PySpark raise :class:`ProtectorSparkError` for failures the protector caused.
    Idempotent; done on import of this module."""
    from pyspark.errors.exceptions import captured

    if getattr(captured.convert_exception, "_iceberg_protector", False):
        return
    original = captured.convert_exception

    def convert_exception(e: Any) -> Any:
        cause = protector_cause(e)
        if cause is None:
            return original(e)
        from pyspark import SparkContext

        jvm = SparkContext._jvm
        trace = getattr(jvm, "org.apache.spark.util.Utils").exceptionString(e) if jvm else ""
        message = cause.getMessage() or cause.toString()
        return ProtectorSparkError(message, trace, cause.getClass().getName())

    convert_exception._iceberg_protector = True  # type: ignore[attr-defined]
    captured.convert_exception = convert_exception


ProtectorSparkError = _error_class()
install_error_conversion()

__all__ = [
    "PROTECTOR_VERSION",
    "ProtectorSparkError",
    "TARGETS",
    "configure_spark_with_protector",
    "install_error_conversion",
    "protector_cause",
    "runtime_packages",
    "runtime_target",
]
