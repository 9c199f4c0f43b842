"""HTTPS for a phone's camera: browsers give a page the camera (`getUserMedia`) only on
`localhost` or over HTTPS, so `shanghai serve --https` makes a self-signed certificate
for this machine on first use and serves with it.

The certificate and its key live in the data folder (`tls/`), are kept between starts
(each phone accepts the warning once) and are made again when they expire soon or no
longer name the address the phone opens (the machine moved to another network). The
key never leaves the machine; its SHA-256 fingerprint is printed so a careful person
can compare it with what the phone shows before accepting.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["Certificate", "ensure_certificate", "tls_dir"]

VALID_DAYS = 825
"""The longest life Apple's devices accept for a server certificate."""
RENEW_DAYS = 30
"""Made again when it expires sooner than this."""
_IP = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class Certificate:
    """A certificate and key on disk, the names it is valid for and its fingerprint."""

    cert_file: Path
    key_file: Path
    names: tuple[str, ...]
    fingerprint: str
    """SHA-256 of the certificate, `AB:CD:...` as browsers show it."""
    made: bool
    """Whether it was made by this call (else reused)."""


def tls_dir(data_dir: Path) -> Path:
    """Where the server's certificate and key are kept."""
    return data_dir / "tls"


def _as_ip(name: str) -> _IP | None:
    try:
        return ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return None


def _fingerprint(cert: x509.Certificate) -> str:
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def _names_of(cert: x509.Certificate) -> set[str]:
    try:
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set()
    dns = {str(n).lower() for n in alt.get_values_for_type(x509.DNSName)}
    ips = {str(ip) for ip in alt.get_values_for_type(x509.IPAddress)}
    return dns | ips


def _normal(name: str) -> str:
    ip = _as_ip(name)
    return str(ip) if ip is not None else name.strip().lower().rstrip(".")


def _reusable(cert_file: Path, key_file: Path, wanted: set[str], now: dt.datetime) -> bool:
    if not (cert_file.is_file() and key_file.is_file()):
        return False
    try:
        cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
    except ValueError:
        return False
    fresh = cert.not_valid_after_utc - now > dt.timedelta(days=RENEW_DAYS)
    return fresh and wanted <= _names_of(cert)


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` readable by this user only, replacing the file in one step."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)


def ensure_certificate(
    folder: Path, names: list[str], *, now: dt.datetime | None = None
) -> Certificate:
    """A certificate valid for every name in `names` (host names and IP addresses),
    reused from `folder` when it still is, else made (with a new key) and stored."""
    now = now or dt.datetime.now(dt.UTC)
    wanted = {_normal(n) for n in names if n.strip()}
    if not wanted:
        raise ValueError("a certificate needs at least one host name or address")
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    made = not _reusable(cert_file, key_file, wanted, now)
    if made:
        folder.mkdir(parents=True, exist_ok=True)
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name(
            [
                x509.NameAttribute(NameOID.COMMON_NAME, "Shanghai table (self-signed)"),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "shanghai serve --https"),
            ]
        )
        alt: list[x509.GeneralName] = []
        for name in sorted(wanted):
            ip = _as_ip(name)
            alt.append(x509.IPAddress(ip) if ip is not None else x509.DNSName(name))
        cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
            )
            .sign(key, hashes.SHA256())
        )
        _write_private(
            key_file,
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        )
        _write_private(cert_file, cert.public_bytes(serialization.Encoding.PEM))
    cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
    return Certificate(
        cert_file=cert_file,
        key_file=key_file,
        names=tuple(sorted(_names_of(cert))),
        fingerprint=_fingerprint(cert),
        made=made,
    )
