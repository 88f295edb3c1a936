"""The production host guard: allowlisted hosts only, never private or loopback addresses."""

from __future__ import annotations

import types

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest

from crawlers.middlewares.host_guard import HostGuardMiddleware, configured_hosts, is_public_address

PUBLIC = {"www.e-sbirka.cz": ("185.5.1.10",), "evil.example": ("93.184.216.34",), "rebind.e-sbirka.cz": ("10.0.0.5",)}


def guard():
    return HostGuardMiddleware(resolver=lambda host: PUBLIC.get(host, ()))


SPIDER = types.SimpleNamespace(
    allowed_hosts=configured_hosts(
        {"base_url": "https://www.e-sbirka.cz", "years": "2024,2025", "feeds": "https://e-sbirka.cz/a, https://x.y/b"}
    )
)


def test_configured_hosts_come_from_url_arguments():
    assert SPIDER.allowed_hosts == {"www.e-sbirka.cz", "e-sbirka.cz", "x.y"}


@pytest.mark.parametrize(
    "url, reason",
    [
        ("https://www.e-sbirka.cz/esel-esbir-daver/sbirky", None),
        ("https://evil.example/steal", "allowlist"),
        ("http://127.0.0.1:8765/robots.txt", "allowlist"),
        ("https://rebind.e-sbirka.cz/x", "non-public address 10.0.0.5"),  # allowed name, private answer
    ],
)
def test_requests_are_checked(url, reason):
    request = Request(url)
    if reason is None:
        assert guard().process_request(request, SPIDER) is None
    else:
        with pytest.raises(IgnoreRequest, match=reason):
            guard().process_request(request, SPIDER)


@pytest.mark.parametrize(
    "address, public",
    [
        ("8.8.8.8", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("192.168.0.1", False),
        ("172.16.5.4", False),
        ("169.254.169.254", False),
        ("::1", False),
        ("fe80::1", False),
        ("::ffff:127.0.0.1", False),
        ("0.0.0.0", False),
        ("2a00:1450:4014:80d::200e", True),
    ],
)
def test_public_addresses(address, public):
    assert is_public_address(address) is public


def test_literal_private_address_blocked_even_when_allowlisted():
    spider = types.SimpleNamespace(allowed_hosts=configured_hosts({"base_url": "http://169.254.169.254/"}))
    with pytest.raises(IgnoreRequest, match="non-public"):
        guard().process_request(Request("http://169.254.169.254/latest/meta-data"), spider)
