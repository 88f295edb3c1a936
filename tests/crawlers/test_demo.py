"""The demo profile's mirror: URLs a site published fetched from it, its board hosts keeping their names."""

from __future__ import annotations

from crawlers.demo import fetch_url
from mendel.core.config import KADAN_FEED_URL


def test_fetch_url_keeps_mirror_host_names():
    origin = "http://127.0.0.1:8765"
    assert fetch_url("http://deska-0001.mirror.test/filemanager/files/1.pdf", origin) == (
        "http://deska-0001.mirror.test:8765/filemanager/files/1.pdf"
    )
    assert fetch_url(KADAN_FEED_URL, origin) == "http://127.0.0.1:8765/1ad1f16beff952576ae7ddd76a91e163"
    assert fetch_url(KADAN_FEED_URL, None) == KADAN_FEED_URL
