"""Where the server is reached from: the names and addresses a request's Host header may
carry, whether a bind address or a client is this machine, and the join URL a phone
opens (the machine's address on the local network)."""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import socket
from collections.abc import Iterable

from starlette.types import Scope

__all__ = [
    "WILDCARDS",
    "host_name",
    "is_local_bind",
    "is_loopback_client",
    "join_url",
    "lan_address",
    "machine_names",
    "normal_name",
    "served_hosts",
    "url_host",
]

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
_PROBE = ("192.0.2.1", 9)
"""Any routable address: connecting a UDP socket sends nothing, it only picks the
interface (and so the address) the machine would use."""


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def normal_name(name: str) -> str:
    """A host name or address as compared: lower case, no trailing dot, an IP address in
    its one written form."""
    ip = _ip(name)
    return str(ip) if ip is not None else name.strip().lower().rstrip(".")


def is_local_bind(host: str) -> bool:
    """Whether listening on `host` serves this machine only (no table code needed)."""
    if host.strip().lower().rstrip(".") == "localhost":
        return True
    ip = _ip(host)
    return ip is not None and ip.is_loopback


def is_loopback_client(scope: Scope) -> bool:
    """Whether the request comes from this machine (a loopback client address)."""
    client = scope.get("client")
    if not client:
        return False
    ip = _ip(str(client[0]))
    return ip is not None and ip.is_loopback


def lan_address() -> str | None:
    """This machine's address on the local network, or None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_PROBE)
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    ip = _ip(address)
    return None if ip is None or ip.is_loopback or ip.is_unspecified else address


@functools.cache
def machine_names() -> frozenset[str]:
    """The machine's host name (also as `NAME.local`) and its addresses."""
    hostname = socket.gethostname()
    names = {hostname, f"{hostname}.local"}
    with contextlib.suppress(OSError):
        names |= {str(info[4][0]) for info in socket.getaddrinfo(hostname, None)}
    if (address := lan_address()) is not None:
        names.add(address)
    return frozenset(normal_name(n) for n in names if n)


def served_hosts(bind_host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a Host header may carry: localhost, the bound address, the machine's
    names and addresses, and the `extra` names (`--allowed-host`)."""
    names = {*LOCAL_NAMES, *machine_names(), *extra}
    if bind_host not in WILDCARDS:
        names.add(bind_host)
    return frozenset(normal_name(n) for n in names)


def host_name(header: str) -> str | None:
    """The name in a Host header (`name:port`, `[v6]:port`), compared form; None when
    it is not one."""
    text = header.strip()
    if text.startswith("["):
        end = text.find("]")
        rest = text[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        ip = _ip(text[1:end])
        return str(ip) if ip is not None else None
    name, _, port = text.partition(":")
    if not name or (port and not port.isdigit()) or ":" in port:
        return None
    return normal_name(name)


def url_host(host: str) -> str:
    """`host` as written in a URL (an IPv6 address in brackets)."""
    ip = _ip(host)
    return f"[{ip}]" if ip is not None and ip.version == 6 else host


def join_url(bind_host: str, port: int, code: str, *, https: bool = False) -> str:
    """The URL a phone opens: the bound address, or for a wildcard bind the machine's
    LAN address (its host name without one), with the table code."""
    host = bind_host
    if bind_host in WILDCARDS:
        host = lan_address() or socket.gethostname()
    scheme = "https" if https else "http"
    return f"{scheme}://{url_host(host)}:{port}/?code={code}"
