"""Shared hosting providers are told from the boards' own hosts and paced as one host (the 2019 links name boards on
``{obec}.imunis.cz``); one organisation's hosts, or one host serving many boards, are not a provider."""

from __future__ import annotations

import asyncio
from time import monotonic

import pytest

from crawlers.host_pacing import HostPacer
from mendel.crawl.boards.hosting import politeness_host, registrable_domain, shared_providers


@pytest.mark.parametrize(
    "host, extra, domain",
    [
        ("bavorov.imunis.cz", (), "imunis.cz"),
        ("www.mvcr.cz", (), "mvcr.cz"),
        ("deska-0001.mirror.test", ("mirror.test",), "deska-0001.mirror.test"),
        ("obec-1.hosting-1.mirror.test", ("mirror.test",), "hosting-1.mirror.test"),
        ("127.0.0.1", (), "127.0.0.1"),
    ],
)
def test_registrable_domain(host, extra, domain):
    assert registrable_domain(host, extra) == domain


def test_a_provider_hosts_several_owners_on_several_hosts():
    boards = [
        ("536041", "http://bavorov.imunis.cz/edeska/"),
        ("589250", "http://konice.imunis.cz/edeska/"),
        # one organisation's two hosts
        ("00007064", "https://opendata-test.mvcr.cz/api/boards/1"),
        ("00007064", "https://www.mvcr.cz/uredni-deska"),
        # many owners on one host: one host anyway
        ("1", "http://ude.tcssl.cz/usov/"),
        ("2", "http://ude.tcssl.cz/stare-mesto"),
    ]
    providers = shared_providers(boards)
    assert providers == {"imunis.cz"}
    assert politeness_host("bavorov.imunis.cz", providers) == "imunis.cz"
    assert politeness_host("www.mvcr.cz", providers) == "www.mvcr.cz"


def test_the_pacer_paces_a_providers_hosts_as_one():
    pacer = HostPacer(0.2)
    pacer.share({"imunis.cz"})

    async def turns():
        starts = []
        for host in ("bavorov.imunis.cz", "konice.imunis.cz", "www.kadan.cz"):
            await pacer.wait_turn(host)
            starts.append(monotonic())
        return starts

    first, second, other = asyncio.run(turns())
    assert second - first >= 0.19  # the provider's second customer waited its turn
    assert other - second < 0.1  # another host did not
