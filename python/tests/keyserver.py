# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""The key server as a process, for tests and benchmarks run from Python: the shaded server jar
(``protector-server/target/iceberg-protector-server.jar``) with a TLS certificate made by the JDK's
``keytool``, a local keystore, a token per principal (only its SHA-256 in the configuration, as in
production), an fsync'ed audit log and the given policy."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import requests

LISTENING = re.compile(r"protector-server listening on (https://127\.0\.0\.1:\d+)")


class KeyServerProcess:
    """A key server in ``work`` (made anew) with ``policy``; ``principals`` maps token names to
    the principal each token stands for. Token ``ops`` (principal ``ops``) holds the admin role
    ``keyadmin``, which the policy must give it. With ``keep_keys`` the master keys of an earlier
    server in ``work`` are kept (its keystore and passphrase); everything else is made anew."""

    def __init__(
        self,
        work: Path,
        policy: str,
        principals: dict[str, str],
        *,
        server_jar: Path,
        java_home: str | None = None,
        keep_keys: bool = False,
    ) -> None:
        if not server_jar.is_file():
            raise FileNotFoundError(f"No key server jar at {server_jar}: build protector-server")
        self.work = work
        self.server_jar = server_jar.resolve()
        java_home = java_home or os.environ.get("JAVA_HOME")
        bin_dir = Path(java_home) / "bin" if java_home else None
        self.java = str(bin_dir / "java") if bin_dir else shutil.which("java") or "java"
        self.keytool = str(bin_dir / "keytool") if bin_dir else shutil.which("keytool") or "keytool"
        self.env = dict(os.environ)
        self.env["IP_TLS_PASSWORD"] = secrets.token_urlsafe(12)
        self.tokens: dict[str, str] = {}
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        keys = work / "keys"
        if not keep_keys:
            shutil.rmtree(work, ignore_errors=True)
        for d in ("tokens", "secrets", "audit"):
            shutil.rmtree(work / d, ignore_errors=True)
        (work / "tokens").mkdir(parents=True)
        (work / "secrets").mkdir()
        keys.mkdir(exist_ok=True)
        passphrase = keys / "passphrase"
        if not passphrase.exists():
            passphrase.write_text(secrets.token_urlsafe(24))
            passphrase.chmod(0o600)
        self.certificate = work / "server.pem"
        self.audit_file = work / "audit" / "audit.log"
        self.log_file = work / "server.log"
        self._tls(work / "secrets" / "server-tls.p12")
        entries = []
        for name, principal in {**principals, "ops": "ops"}.items():
            token = "ipt_" + secrets.token_urlsafe(32)
            self.tokens[name] = token
            path = self.token_file(name)
            path.write_text(token + "\n")
            path.chmod(0o600)
            digest = hashlib.sha256(token.encode()).hexdigest()
            entries.append(
                f'{{ name = "{name}", sha256 = "{digest}", principal = "{principal}",'
                " groups = [] }"
            )
        (work / "policy.conf").write_text(policy)
        (work / "server.conf").write_text(
            "\n".join(
                [
                    "protector-server {",
                    '  bind { host = "127.0.0.1", port = 0 }',
                    "  tls {",
                    '    keystore = "secrets/server-tls.p12"',
                    '    password-env = "IP_TLS_PASSWORD"',
                    "  }",
                    "  keys {",
                    '    keystore = "keys/keys.p12"',
                    '    passphrase-file = "keys/passphrase"',
                    "    create-if-missing = true",
                    "  }",
                    '  policy = "policy.conf"',
                    '  admin-roles = ["keyadmin"]',
                    "  auth {",
                    "    tokens = [",
                    *("      " + e for e in entries),
                    "    ]",
                    # one principal per Spark session, as on a single-user cluster
                    "    release-mask-keys-to-principals = true",
                    "  }",
                    '  audit { file = "audit/audit.log", sync = fsync }',
                    "}",
                    "",
                ]
            )
        )

    def token_file(self, name: str) -> Path:
        return self.work / "tokens" / f"{name}.token"

    def _tls(self, keystore: Path) -> None:
        common = ["-storetype", "PKCS12", "-keystore", str(keystore)]
        password = ["-storepass:env", "IP_TLS_PASSWORD"]
        subprocess.run(
            [
                self.keytool,
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-validity",
                "2",
                "-dname",
                "CN=localhost",
                "-ext",
                "san=ip:127.0.0.1,dns:localhost",
                *common,
                *password,
            ],
            env=self.env,
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [self.keytool, "-exportcert", "-rfc", "-alias", "server", *common, *password]
            + ["-file", str(self.certificate)],
            env=self.env,
            check=True,
            capture_output=True,
        )

    def start(self, timeout: float = 60.0) -> KeyServerProcess:
        self.process = subprocess.Popen(
            [
                self.java,
                "-Xmx256m",
                "-jar",
                str(self.server_jar),
                "--config",
                str(self.work / "server.conf"),
            ],
            cwd=self.work,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        listening = threading.Event()
        threading.Thread(target=self._copy_output, args=(listening,), daemon=True).start()
        if not listening.wait(timeout) or not self.url:
            self.stop()
            raise RuntimeError(f"The key server did not start within {timeout} s:\n{self.log()}")
        if not self._healthy(self.url):
            self.stop()
            raise RuntimeError(f"The key server does not answer /health:\n{self.log()}")
        return self

    def _copy_output(self, listening: threading.Event) -> None:
        """Copies the server's output into its log file; sets ``listening`` once it says where
        it listens, or when it exits."""
        assert self.process is not None and self.process.stdout is not None
        with self.log_file.open("ab") as log:
            for line in self.process.stdout:
                log.write(line)
                log.flush()
                match = LISTENING.search(line.decode(errors="replace"))
                if match and not listening.is_set():
                    self.url = match.group(1)
                    listening.set()
        listening.set()

    def _healthy(self, url: str) -> bool:
        try:
            return requests.get(url + "/health", verify=str(self.certificate), timeout=2).ok
        except requests.RequestException:
            return False

    def log(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def create_keys(self, keys: list[str], admin: str = "ops") -> None:
        for key in keys:
            response = requests.post(
                f"{self.url}/v1/transit/keys/{key}",
                headers={"X-Vault-Token": self.tokens[admin]},
                json={},
                verify=str(self.certificate),
                timeout=10,
            )
            if response.status_code not in (200, 204, 409):
                raise RuntimeError(
                    f"Cannot create key {key}: {response.status_code} {response.text}"
                )

    def audit(self) -> list[dict[str, Any]]:
        if not self.audit_file.exists():
            return []
        lines = self.audit_file.read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> KeyServerProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
