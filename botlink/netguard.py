"""Outbound safety for bot URLs: the guard against server-side request forgery (SSRF).

A bot is registered by URL and the service then POSTs to it, so a URL could aim the service at itself, at the
internal network or at a cloud metadata endpoint. The rule (docs/bot-protocol.md, "Which URLs are accepted"):

- the URL is ``http`` or ``https`` with a host, no user name or password, a port in 1..65535, no query or fragment;
- its host is resolved once, and the URL is refused when ANY resolved address is private, loopback, link-local,
  multicast, reserved, unspecified, shared (100.64.0.0/10), a cloud metadata address, or one of those inside an
  IPv6 address (IPv4-mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``) -- unless the address
  lies in a network of the allowlist setting (the local demo and the tests allow ``loopback``);
- the caller then connects to the resolved address it was given (:class:`Target`), never re-resolving the name,
  so a DNS answer cannot change between the check and the connection (DNS rebinding).

Refusing when any address is bad (rather than picking a good one) keeps a name that mixes public and internal
addresses from passing on a lucky ordering.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

LOOPBACK: tuple[Network, ...] = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
"""What the allowlist word ``loopback`` stands for."""

METADATA = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, ...
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IMDS over IPv6
    }
)
SHARED = ipaddress.ip_network("100.64.0.0/10")
"""RFC 6598 carrier-grade NAT space: not private by Python's tables, but never a public bot."""
NAT64 = ipaddress.ip_network("64:ff9b::/96")
DEFAULT_PORTS = {"http": 80, "https": 443}
_HOSTNAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?")


class RefusedAddress(ValueError):
    """A bot URL whose host resolves to an address the service must not call. The message names the class."""


class UnresolvableHost(ValueError):
    """A bot URL whose host name does not resolve (now): a connection problem, not a refusal."""


@dataclass(frozen=True, slots=True)
class Target:
    """A checked bot URL and the one address to connect to for it."""

    scheme: str
    host: str
    """The host as written in the URL (lower case, IPv6 without brackets): the Host header, TLS SNI and certificate
    name."""
    port: int
    ip: IPAddress
    path: str
    """The base path without a trailing slash (``""`` for the root)."""

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    def url_for(self, route: str) -> str:
        """The URL of ``{base}/{route}`` with the host replaced by the resolved address."""
        ip = f"[{str(self.ip).replace('%', '%25')}]" if self.ip.version == 6 else str(self.ip)
        return f"{self.scheme}://{ip}:{self.port}{self.path}/{route}"


def parse_allowlist(text: str) -> tuple[Network, ...]:
    """The networks of an allowlist setting: comma-separated CIDRs, single addresses or the word ``loopback``.

    ``""`` allows nothing. Raises ``ValueError`` naming the first entry that is none of those.
    """
    networks: list[Network] = []
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            continue
        if entry.lower() == "loopback":
            networks.extend(LOOPBACK)
            continue
        try:
            networks.append(ipaddress.ip_network(entry))
        except ValueError as exc:
            raise ValueError(
                f"allowlist entry {entry!r} is not an address, a CIDR network or 'loopback' ({exc})"
            ) from None
    return tuple(dict.fromkeys(networks))


def _split(url: str) -> tuple[SplitResult, int]:
    if not isinstance(url, str) or not url.isascii() or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise ValueError("a bot URL must be ASCII text without spaces or control characters")
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS:
        raise ValueError("a bot URL must start with http:// or https://")
    if "@" in parts.netloc:
        raise ValueError("a bot URL must not contain a user name or password")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise ValueError("a bot URL must not have a query string or fragment")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("a bot URL's port must be a number from 1 to 65535") from None
    if port == 0:
        raise ValueError("a bot URL's port must be a number from 1 to 65535")
    host = parts.hostname
    if not host:
        raise ValueError("a bot URL must name a host")
    if not _is_ip_literal(host) and (len(host) > 253 or not _HOSTNAME.fullmatch(host)):
        raise ValueError("a bot URL's host must be a DNS name or an IP address")
    return parts, DEFAULT_PORTS[parts.scheme] if port is None else port


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def check_url(url: str) -> str:
    """``url`` normalised (lower-case scheme and host, no trailing slash), or ``ValueError`` saying what is wrong.

    Checks only the URL's form; :func:`resolve` checks where it leads.
    """
    parts, _ = _split(url)
    return f"{parts.scheme}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


def address_class(ip: IPAddress) -> str | None:
    """The class that makes ``ip`` unfit for a bot (``"loopback"``, ``"metadata"``, ...), or ``None`` if public."""
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address inside an IPv6 one is reached through it (by the host's stack for ::ffff:a.b.c.d, by a
        # gateway for NAT64 and 6to4), so it is judged by the IPv4 address alone.
        for embedded in (ip.ipv4_mapped, _nat64(ip), ip.sixtofour):
            if embedded is not None:
                inner = address_class(embedded)
                return None if inner is None else f"{inner} (inside an IPv6 address)"
        ip = ipaddress.IPv6Address(ip.packed)  # drop a %scope so that the tables below see the bare address
    if ip in METADATA:
        return "metadata"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.version == 4 and ip in SHARED:
        return "shared"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:  # documentation, benchmarking, protocol assignments, ...
        return "reserved"
    return None


def _nat64(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    return ipaddress.IPv4Address(ip.packed[-4:]) if ip in NAT64 else None


def _allowed(ip: IPAddress, allow: tuple[Network, ...]) -> bool:
    candidates: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        candidates += [inner for inner in (ip.ipv4_mapped, _nat64(ip), ip.sixtofour) if inner is not None]
    return any(candidate in network for candidate in candidates for network in allow)


def check_address(ip: IPAddress, allow: tuple[Network, ...] = ()) -> None:
    """Raise :class:`RefusedAddress` unless ``ip`` is public or inside an allowed network."""
    kind = address_class(ip)
    if kind is not None and not _allowed(ip, allow):
        article = "an" if kind[0] in "aeiou" else "a"
        raise RefusedAddress(f"the bot URL's host resolves to {article} {kind} address, which is not allowed")


def resolve(url: str, allow: tuple[Network, ...] = ()) -> Target:
    """Check ``url``, resolve its host, check every address, and return the :class:`Target` to connect to.

    Raises ``ValueError`` for a malformed URL, :class:`UnresolvableHost` when the name does not resolve and
    :class:`RefusedAddress` when any address is refused. The target's address is the first one the resolver
    returns (its preference order).
    """
    parts, port = _split(url)
    host = parts.hostname
    assert host is not None  # _split checked it
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise UnresolvableHost("the bot URL's host name does not resolve") from None
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    if not addresses:
        raise UnresolvableHost("the bot URL's host name does not resolve")
    for ip in addresses:
        check_address(ip, allow)
    return Target(parts.scheme, host, port, addresses[0], parts.path.rstrip("/"))
