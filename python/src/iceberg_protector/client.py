# Copyright 2026 The Iceberg Protector contributors
# SPDX-License-Identifier: Apache-2.0
"""An HTTPS client for the key server: its Vault-transit key endpoints, whoami, the served policy
and the batch token decoder, with the Java client's comma-list failover."""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from .errors import (
    AuthenticationError,
    KeyAccessDenied,
    KeyServerError,
    KeyServerUnavailable,
    ProtectorError,
)

#: The key server's batch limit (``limits.max-batch-values``): a decode never sends more.
MAX_BATCH_VALUES = 10_000


@dataclass(frozen=True)
class Identity:
    """The principal a token stands for, as the key server sees it (``/v1/protector/whoami``)."""

    principal: str
    groups: tuple[str, ...]
    roles: frozenset[str]
    unwrappable_keys: frozenset[str]
    policy_digest: str


class KeyServerClient:
    """Calls the key server with one principal's token.

    ``url`` is one URL or a comma-separated list of replicas: a request goes to the URL that last
    answered and moves to the next one when a URL cannot be reached or answers 5xx, as the Java
    client does. The token comes from ``token``, ``token_file`` (read again on every request, so a
    rotated file takes effect) or the environment variable ``token_env``. ``ca_cert`` is the PEM of
    the certificate the server's chain is trusted through; ``http://`` URLs are refused.
    """

    def __init__(
        self,
        url: str | Sequence[str],
        *,
        token: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        token_env: str | None = None,
        ca_cert: str | os.PathLike[str] | None = None,
        timeout: float = 10.0,
    ) -> None:
        urls = [u.strip().rstrip("/") for u in (url.split(",") if isinstance(url, str) else url)]
        urls = [u for u in urls if u]
        if not urls:
            raise ValueError("Cannot create a key server client: no URL given")
        for u in urls:
            if not u.startswith("https://"):
                raise ValueError(f"Cannot use key server URL {u}: only https:// URLs are accepted")
        given = [s for s in (token, token_file, token_env) if s is not None]
        if len(given) != 1:
            raise ValueError(
                "Cannot create a key server client: give exactly one of token, token_file and"
                " token_env"
            )
        self._urls = urls
        self._token = token
        self._token_file = Path(token_file) if token_file is not None else None
        self._token_env = token_env
        self._verify: str | bool = str(ca_cert) if ca_cert is not None else True
        self._timeout = timeout
        self._session = requests.Session()
        self._current = 0
        self._lock = threading.Lock()
        self._identity: Identity | None = None

    @property
    def urls(self) -> list[str]:
        return list(self._urls)

    def token(self) -> str:
        if self._token is not None:
            return self._token
        if self._token_file is not None:
            try:
                text = self._token_file.read_text(encoding="utf-8").strip()
            except OSError as e:
                raise ProtectorError(f"Cannot read the token file {self._token_file}: {e}") from e
            if not text:
                raise ProtectorError(f"Cannot use the token file {self._token_file}: it is empty")
            return text
        value = os.environ.get(self._token_env or "", "").strip()
        if not value:
            raise ProtectorError(
                f"Cannot read a key server token: environment variable {self._token_env} is not set"
            )
        return value

    # ---- the endpoints ------------------------------------------------------------------------

    def whoami(self) -> Identity:
        """The token's principal, roles and usable keys; asked once per client."""
        if self._identity is None:
            data = self._call("GET", "/v1/protector/whoami", None, key=None)["data"]
            self._identity = Identity(
                principal=data["principal"],
                groups=tuple(data.get("groups", [])),
                roles=frozenset(data.get("roles", [])),
                unwrappable_keys=frozenset(data.get("unwrappable_keys", [])),
                policy_digest=data.get("policy_digest", ""),
            )
        return self._identity

    def policy_text(self) -> str:
        """The policy as the server serves it to this principal (its own roles' part), as text."""
        response = self._request("GET", "/v1/protector/policy", None, key=None)
        return response.text

    def wrap(self, key: str, plaintext: bytes) -> str:
        body = {"plaintext": base64.b64encode(plaintext).decode("ascii")}
        return self._call("POST", f"/v1/transit/encrypt/{key}", body, key=key)["data"]["ciphertext"]

    def unwrap(self, key: str, ciphertext: str) -> bytes:
        body = {"ciphertext": ciphertext}
        data = self._call("POST", f"/v1/transit/decrypt/{key}", body, key=key)["data"]
        return base64.b64decode(data["plaintext"])

    def encode(
        self,
        key: str,
        *,
        domain: str,
        method: str,
        values: Sequence[Any],
        value_type: str | None = None,
    ) -> list[Any]:
        """Tokenizes ``values`` through the key server (writers and clear readers of the domain),
        in batches of at most :data:`MAX_BATCH_VALUES`, without the token key leaving the
        server."""
        extra = {} if value_type is None else {"value_type": value_type}
        out, _ = self._batches("encode", key, domain, method, values, extra, f"domain {domain}")
        return out

    def decode(
        self,
        key: str,
        *,
        domain: str,
        method: str,
        values: Sequence[Any],
        table: str | None = None,
        column: str | None = None,
        value_type: str | None = None,
    ) -> tuple[list[Any], str | None]:
        """Detokenizes ``values`` in batches of at most :data:`MAX_BATCH_VALUES`.

        With ``table`` and ``column`` the server answers that column's view for this principal:
        clear values, or the column's mask computed by the server (the mask is returned too).
        """
        extra: dict[str, Any] = {} if table is None else {"table": table, "column": column}
        if value_type is not None:
            extra["value_type"] = value_type
        what = f"column {column}" if column else f"domain {domain}"
        return self._batches("decode", key, domain, method, values, extra, what)

    def _batches(
        self,
        op: str,
        key: str,
        domain: str,
        method: str,
        values: Sequence[Any],
        extra: dict[str, Any],
        what: str,
    ) -> tuple[list[Any], str | None]:
        """``values`` through ``/v1/protector/<op>/<key>`` in batches of at most
        :data:`MAX_BATCH_VALUES`, in order; an item's error fails the call naming its index."""
        out: list[Any] = []
        mask: str | None = None
        for start in range(0, len(values), MAX_BATCH_VALUES):
            body: dict[str, Any] = {
                "domain": domain,
                "method": method,
                "batch_input": [{"value": v} for v in values[start : start + MAX_BATCH_VALUES]],
                **extra,
            }
            data = self._call("POST", f"/v1/protector/{op}/{key}", body, key=key)["data"]
            for i, result in enumerate(data["batch_results"]):
                if "error" in result:
                    raise KeyServerError(
                        f"Cannot {op} {what} with key {key}: value {start + i}: {result['error']}",
                        400,
                    )
                out.append(result.get(f"{op}d_value"))
            mask = data.get("mask", mask)
        return out, mask

    # ---- transport ----------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any, *, key: str | None) -> dict[str, Any]:
        response = self._request(method, path, body, key=key)
        try:
            return response.json()
        except ValueError as e:
            raise KeyServerError(
                f"Key server {response.url} answered {path} with a body that is not JSON",
                response.status_code,
            ) from e

    def _request(self, method: str, path: str, body: Any, *, key: str | None) -> requests.Response:
        token = self.token()
        with self._lock:
            first = self._current
        failures: list[str] = []
        for step in range(len(self._urls)):
            index = (first + step) % len(self._urls)
            url = self._urls[index] + path
            try:
                response = self._session.request(
                    method,
                    url,
                    json=body,
                    headers={"X-Vault-Token": token},
                    timeout=self._timeout,
                    verify=self._verify,
                    allow_redirects=False,
                )
            except requests.exceptions.SSLError as e:
                failures.append(f"{self._urls[index]}: TLS: {e}")
                continue
            except requests.exceptions.RequestException as e:
                failures.append(f"{self._urls[index]}: {type(e).__name__}")
                continue
            if response.status_code >= 500:
                failures.append(f"{self._urls[index]}: HTTP {response.status_code}")
                continue
            with self._lock:
                self._current = index
            if response.status_code >= 300:
                raise self._error(response, path, key)
            return response
        raise KeyServerUnavailable(
            f"Cannot reach the key server for {path}: every URL failed ({'; '.join(failures)})"
        )

    @staticmethod
    def _error(response: requests.Response, path: str, key: str | None) -> KeyServerError:
        try:
            payload = response.json()
        except ValueError:
            payload = {}
        errors = payload.get("errors") if isinstance(payload, dict) else None
        reason = "; ".join(errors) if errors else f"HTTP {response.status_code}"
        if response.status_code == 401:
            return AuthenticationError(
                f"The key server refused the token for {path}: {reason} (is it expired or for"
                " another server?)",
                401,
            )
        if response.status_code == 403:
            principal = payload.get("principal") if isinstance(payload, dict) else None
            what = f"key {key!r}" if key else path
            return KeyAccessDenied(
                f"The key server refused {what} to principal {principal!r}: {reason}",
                principal,
                key,
            )
        return KeyServerError(
            f"The key server answered {path} with HTTP {response.status_code}: {reason}",
            response.status_code,
        )
