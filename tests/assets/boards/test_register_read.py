"""The register read by the register crawl: NKOD's SPARQL pages fetched through Scrapy (the crawl's HTTP stack and
politeness), every page up to the last one, then turned into boards; a register that can't be read in full is an
error, never half a register."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.parse
import urllib.request

import pytest

from assets.boards.register_read import crawl_register, read_register
from crawlers.demo import fetch_url
from mendel.core.config import KADAN_FEED_URL, SAMPLE_CORPUS, Settings
from mendel.crawl.boards.board import RegistryError
from mendel.crawl.boards.catalogue import read_catalogue

MVCR = json.loads((SAMPLE_CORPUS / "municipal" / "boards" / "mvcr_182_boards.json").read_text(encoding="utf-8"))
EXPORTS = {
    "http://hranice.mirror.test/uredni-deska.jsonld": "hranice_ofn.jsonld",
    "http://karvina.mirror.test/opendata.json": "karvina_deska.json",
    "http://karvina.mirror.test/uredni-deska.xml": "karvina_deska.xml",
    "http://kr-zlinsky.mirror.test/uredni-deska.csv": "zlinsky_kraj_deska.csv",
}


def get(base_url: str, host: str, path: str) -> tuple[int, str, bytes]:
    request = urllib.request.Request(base_url + path, headers={"Host": host})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def test_the_register_crawl_reads_every_board_the_mirror_serves_page_by_page(mirror, tmp_path):
    settings = Settings(profile="demo", mirror_url=mirror.base_url)
    crawl_register(settings, tmp_path, page_size=50)  # several pages
    pages = [json.loads(line) for line in (tmp_path / "catalogue.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(pages) > 3 and [p["last"] for p in pages] == [False] * (len(pages) - 1) + [True]
    boards = {b.key: b for b in read_catalogue(tmp_path / "catalogue.jsonl")}
    assert len(boards) == 182 + 4  # one board a dataset: Karviná's JSON, not its XML as well
    kadan_board = boards[KADAN_FEED_URL]
    assert (kadan_board.kind, kadan_board.publisher_ico, kadan_board.format) == ("ofn", "00261912", "JSON_LD")
    assert {k: (b.kind, b.format) for k, b in boards.items() if b.kind == "export"} == {
        "http://karvina.mirror.test/opendata.json": ("export", "JSON"),
        "http://kr-zlinsky.mirror.test/uredni-deska.csv": ("export", "CSV"),
    }
    # The 182 MVČR feeds on their real API URLs, each served as the feed of that URL (publisher from the feed).
    for feed in MVCR:
        assert boards[feed["iri"]].publisher_ico == feed["provozovatel"]["ičo"] and boards[feed["iri"]].name is None
    for feed in random.Random(3).sample(MVCR, 5):
        rebased = urllib.parse.urlsplit(fetch_url(feed["iri"], mirror.base_url))
        status, ctype, served = get(mirror.base_url, "127.0.0.1", rebased.path)
        assert status == 200 and ctype == "application/ld+json" and json.loads(served) == feed
    # Files whose download URL is not known: on mirror hosts of their own, bytes unchanged.
    for url, name in EXPORTS.items():
        parts = urllib.parse.urlsplit(url)
        status, _, served = get(mirror.base_url, parts.hostname, parts.path)
        assert status == 200 and served == (SAMPLE_CORPUS / "municipal" / "boards" / name).read_bytes()


@pytest.mark.slow  # a crawl subprocess retrying a closed port
def test_a_catalogue_that_does_not_answer_is_an_error_not_half_a_register(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("MENDEL_RETRY_BACKOFF", "0.05")  # the retries still happen, without production's waits
    monkeypatch.setenv("MENDEL_RETRY_BACKOFF_MAX", "0.2")
    unreachable = Settings(profile="demo", mirror_url="http://127.0.0.1:9", home=tmp_path)
    with pytest.raises(RegistryError, match="NKOD query failed"):
        read_register(unreachable)
    empty = tmp_path / "nothing.jsonl"
    empty.touch()
    with pytest.raises(RegistryError, match="not read to its last page"):
        read_catalogue(empty)
