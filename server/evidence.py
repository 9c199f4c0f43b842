"""Unguessable evidence URLs: a scan's photo and annotated image are served only with
a token, an HMAC of the scan id under a secret kept in the data folder
(`evidence.key`), so sequential ids cannot be walked. A wrong or missing token answers
404, as an unknown scan does."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path
from typing import Annotated

from fastapi import Depends
from fastapi.requests import HTTPConnection

__all__ = ["KEY_FILE", "EvidenceKey", "EvidenceKeyDep", "get_evidence_key"]

KEY_FILE = "evidence.key"
KEY_BYTES = 32
log = logging.getLogger(__name__)


class EvidenceKey:
    """The secret behind the evidence tokens."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("an evidence key needs at least 16 bytes")
        self._secret = secret

    def __repr__(self) -> str:
        return "EvidenceKey(...)"

    @classmethod
    def load_or_create(cls, folder: Path) -> EvidenceKey:
        """The key in `folder/evidence.key`, written there (owner-only) the first time.
        A folder that cannot be written gives a key for this run only (the URLs change
        at the next start), with a warning."""
        path = folder / KEY_FILE
        try:
            folder.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return cls(_read_key(path))
            secret = secrets.token_bytes(KEY_BYTES)
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(secret.hex() + "\n")
            return cls(secret)
        except OSError as exc:
            log.warning("cannot keep the evidence key in %s (%s): one for this run", path, exc)
            return cls(secrets.token_bytes(KEY_BYTES))

    def token(self, scan_id: int) -> str:
        """The token of one scan's evidence (22 URL-safe characters)."""
        digest = hmac.new(self._secret, f"scan:{scan_id}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:16]).decode("ascii").rstrip("=")

    def verify(self, scan_id: int, token: str | None) -> bool:
        return token is not None and hmac.compare_digest(
            self.token(scan_id).encode("ascii"), token.encode("utf-8", "replace")
        )

    def url(self, scan_id: int, name: str = "") -> str:
        """`/api/scans/{id}[/name]?token=...`."""
        suffix = f"/{name}" if name else ""
        return f"/api/scans/{scan_id}{suffix}?token={self.token(scan_id)}"


def _read_key(path: Path) -> bytes:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) < 16:
        raise ValueError(f"{path} is damaged: delete it (a new key changes the evidence URLs)")
    return secret


def get_evidence_key(connection: HTTPConnection) -> EvidenceKey:
    """The key the running app loaded at start."""
    key: EvidenceKey = connection.app.state.evidence_key
    return key


EvidenceKeyDep = Annotated[EvidenceKey, Depends(get_evidence_key)]
