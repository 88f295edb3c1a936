"""A shared hosting provider's customers share one download slot, robots.txt included; other hosts keep their own."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from scrapy import Request

from crawlers.middlewares.provider_slot import ProviderSlotMiddleware


@pytest.mark.parametrize(
    "url, meta, slot",
    [
        ("http://bavorov.imunis.cz/edeska/", {}, "imunis.cz"),
        ("http://konice.imunis.cz/robots.txt", {}, "imunis.cz"),  # what RobotsTxtMiddleware asks for
        ("https://www.kadan.cz/deska/", {}, None),  # not a provider's
        ("http://bavorov.imunis.cz/a.pdf", {"download_slot": "unpaced"}, "unpaced"),  # a profile's own slot stays
    ],
)
def test_requests_to_a_providers_customers_share_its_slot(url, meta, slot):
    spider = SimpleNamespace(providers=frozenset({"imunis.cz"}))
    request = Request(url, meta=dict(meta))
    assert ProviderSlotMiddleware(SimpleNamespace(spider=spider)).process_request(request) is None
    assert request.meta.get("download_slot") == slot


def test_a_spider_without_providers_is_left_alone():
    request = Request("http://bavorov.imunis.cz/edeska/")
    ProviderSlotMiddleware(SimpleNamespace(spider=SimpleNamespace())).process_request(request)
    assert "download_slot" not in request.meta
