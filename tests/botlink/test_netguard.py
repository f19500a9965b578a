"""botlink.netguard: URL form, address classes (IPv4, IPv6, embedded IPv4), allowlists, resolution."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import pytest

from botlink import netguard
from botlink.netguard import RefusedAddress, Target, UnresolvableHost, check_url, parse_allowlist, resolve

LOOPBACK = parse_allowlist("loopback")


# The allowlist setting


def test_an_empty_allowlist_allows_nothing() -> None:
    assert parse_allowlist("") == ()
    assert parse_allowlist(" , ") == ()


def test_loopback_means_both_loopback_networks() -> None:
    assert parse_allowlist("loopback") == (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
    assert parse_allowlist(" LOOPBACK ") == parse_allowlist("loopback")


def test_networks_and_single_addresses() -> None:
    assert parse_allowlist("10.0.0.0/8, 192.168.1.7,fd00::/8, ::1") == (
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("192.168.1.7/32"),
        ipaddress.ip_network("fd00::/8"),
        ipaddress.ip_network("::1/128"),
    )


@pytest.mark.parametrize("text", ["junk", "10.0.0.1/8", "300.1.1.1", "loopback, 10.0.0.0/33", "localhost", "*"])
def test_junk_is_a_clear_error(text: str) -> None:
    with pytest.raises(ValueError, match=r"allowlist entry '.+' is not an address, a CIDR network or 'loopback'"):
        parse_allowlist(text)


# The URL's form


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("http://127.0.0.1:8001/bot", "http://127.0.0.1:8001/bot"),
        ("HTTPS://Bots.Example.COM/bot/", "https://bots.example.com/bot"),
        ("http://[::1]:8001/", "http://[::1]:8001"),
        ("http://bot.example", "http://bot.example"),
    ],
)
def test_good_urls_are_normalised(url: str, normal: str) -> None:
    assert check_url(url) == normal


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://bot.example/", "must start with http:// or https://"),
        ("file:///etc/passwd", "must start with http:// or https://"),
        ("bot.example:8001", "must start with http:// or https://"),
        ("http:///bot", "must name a host"),
        ("http://:8001/bot", "must name a host"),
        ("http://user:pw@bot.example/", "must not contain a user name or password"),
        ("http://user@bot.example/", "must not contain a user name or password"),
        ("http://bot.example:0/", "port must be a number from 1 to 65535"),
        ("http://bot.example:65536/", "port must be a number from 1 to 65535"),
        ("http://bot.example:http/", "port must be a number from 1 to 65535"),
        ("http://bot.example/bot?x=1", "must not have a query string or fragment"),
        ("http://bot.example/bot#top", "must not have a query string or fragment"),
        ("http://bot example/", "without spaces or control characters"),
        ("http://bot.example/\n", "without spaces or control characters"),
        ("http://bücher.example/", "must be ASCII"),
        ("http://bot_.exa mple/", "without spaces"),
        ("http://bot..example/", "must be a DNS name or an IP address"),
        ("http://-bot.example/", "must be a DNS name or an IP address"),
        ("http://bot%2eexample/", "must be a DNS name or an IP address"),
    ],
)
def test_bad_urls_say_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_url(url)


# Address classes


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "metadata"),
        ("169.254.170.2", "metadata"),
        ("169.254.1.1", "link-local"),
        ("100.64.0.1", "shared"),
        ("100.127.255.254", "shared"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("192.0.2.1", "private"),  # documentation (TEST-NET-1)
        ("198.18.0.1", "private"),  # benchmarking
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fd00:ec2::254", "metadata"),
        ("ff02::1", "multicast"),
        ("2001:db8::1", "private"),  # documentation
        ("::ffff:127.0.0.1", "loopback (inside an IPv6 address)"),
        ("::ffff:10.0.0.1", "private (inside an IPv6 address)"),
        ("::ffff:169.254.169.254", "metadata (inside an IPv6 address)"),
        ("64:ff9b::7f00:1", "loopback (inside an IPv6 address)"),  # NAT64 of 127.0.0.1
        ("2002:a00:1::", "private (inside an IPv6 address)"),  # 6to4 of 10.0.0.1
        ("::127.0.0.1", "reserved"),  # deprecated IPv4-compatible form
    ],
)
def test_refused_address_classes(address: str, kind: str) -> None:
    assert netguard.address_class(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize(
    "address",
    ["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.32.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"]
    + ["64:ff9b::808:808", "2002:808:808::"],
)
def test_public_addresses_pass(address: str) -> None:
    assert netguard.address_class(ipaddress.ip_address(address)) is None


# Resolution and the allowlist


def test_a_literal_loopback_is_refused_without_the_allowlist() -> None:
    with pytest.raises(RefusedAddress, match=r"^the bot URL's host resolves to a loopback address, which is not"):
        resolve("http://127.0.0.1:8001/bot")


def test_a_literal_loopback_passes_with_the_allowlist() -> None:
    assert resolve("http://127.0.0.1:8001/bot/", LOOPBACK) == Target(
        "http", "127.0.0.1", 8001, ipaddress.ip_address("127.0.0.1"), "/bot"
    )


def test_localhost_is_resolved_and_refused_without_the_allowlist() -> None:
    with pytest.raises(RefusedAddress, match="loopback"):
        resolve("http://localhost:8001/bot")


def test_localhost_resolves_to_loopback_with_the_allowlist() -> None:
    target = resolve("http://localhost:8001/bot", LOOPBACK)
    assert target.host == "localhost" and target.port == 8001 and target.ip.is_loopback
    assert target.host_header == "localhost:8001"


def test_ipv6_literals() -> None:
    target = resolve("http://[::1]:8001/bot", LOOPBACK)
    assert target.ip == ipaddress.ip_address("::1")
    assert target.url_for("move") == "http://[::1]:8001/bot/move"
    assert target.host_header == "[::1]:8001"
    with pytest.raises(RefusedAddress, match="an unspecified address"):
        resolve("http://[::]:8001/bot", LOOPBACK)
    with pytest.raises(RefusedAddress, match=r"a loopback \(inside an IPv6 address\) address"):
        resolve("http://[::ffff:127.0.0.1]:8001/bot")


def test_the_allowlist_covers_ipv4_mapped_addresses() -> None:
    assert resolve("http://[::ffff:127.0.0.1]:8001/bot", LOOPBACK).ip == ipaddress.ip_address("::ffff:127.0.0.1")


def test_an_allowlist_allows_only_its_networks() -> None:
    allow = parse_allowlist("10.1.0.0/16")
    assert resolve("http://10.1.2.3/", allow).ip == ipaddress.ip_address("10.1.2.3")
    with pytest.raises(RefusedAddress, match="a private address"):
        resolve("http://10.2.0.1/", allow)
    with pytest.raises(RefusedAddress, match="a loopback address"):
        resolve("http://127.0.0.1/", allow)


def test_metadata_is_refused_even_with_loopback_allowed() -> None:
    with pytest.raises(RefusedAddress, match="a metadata address"):
        resolve("http://169.254.169.254/latest/meta-data", LOOPBACK)
    with pytest.raises(RefusedAddress, match="a metadata address"):
        resolve("http://[fd00:ec2::254]/", LOOPBACK)


def test_numeric_tricks_are_judged_by_the_resolved_address() -> None:
    # inet_aton accepts these spellings of 127.0.0.1; the check sees the address they resolve to.
    for url in ("http://2130706433/", "http://0x7f000001/", "http://127.1/"):
        with pytest.raises(RefusedAddress, match="loopback"):
            resolve(url)


def fake_resolver(*addresses: str) -> Any:
    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        infos = []
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
            infos.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
        return infos

    return getaddrinfo


def test_a_name_is_refused_when_any_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_resolver("93.184.215.14", "10.0.0.5"))
    with pytest.raises(RefusedAddress, match="a private address"):
        resolve("https://bot.example/")


def test_a_public_name_gives_its_first_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        socket, "getaddrinfo", fake_resolver("2606:2800:21f:cb07:6820:80da:af6b:8b2c", "93.184.215.14")
    )
    target = resolve("https://Bot.Example/sorry/")
    assert target == Target(
        "https", "bot.example", 443, ipaddress.ip_address("2606:2800:21f:cb07:6820:80da:af6b:8b2c"), "/sorry"
    )
    assert target.url_for("move") == "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443/sorry/move"
    assert target.host_header == "bot.example"


def test_the_refusal_names_only_the_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_resolver("10.20.30.40"))
    with pytest.raises(RefusedAddress) as refused:
        resolve("http://intranet.corp.example:8080/")
    assert str(refused.value) == "the bot URL's host resolves to a private address, which is not allowed"


def test_an_unresolvable_name() -> None:
    with pytest.raises(UnresolvableHost, match="does not resolve"):
        resolve("http://no-such-bot.invalid/")


def test_a_malformed_url_is_a_value_error_before_any_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", None)
    with pytest.raises(ValueError, match="user name"):
        resolve("http://a:b@bot.example/")
