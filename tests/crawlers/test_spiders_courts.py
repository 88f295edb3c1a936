"""The Ústavní soud (NALUS) and Nejvyšší správní soud spiders, each run for real (a Scrapy subprocess) against the
local mirror into a fresh PostgreSQL database; the expectations are read straight from the ConCo CSVs."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, timedelta, timezone

import pytest
from scrapy.utils.test import get_crawler

from crawlers.spiders import nalus as nalus_spider
from crawlers.spiders import nssoud as nssoud_spider
from mendel.core.rawstore import RawStore
from mendel.extract.document import extract_document
from mendel.law.identifiers import reference_number
from tests.support.courts import administrative_since, constitutional_since, real_nalus_pages
from tests.support.crawl import crawl_runner, documents, only


@pytest.fixture
def crawl(tmp_path, fresh_db, mirror, monkeypatch):
    return crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)


@pytest.mark.e2e
def test_nalus_posts_the_form_back_with_its_view_state_and_stores_every_hit_then_only_304s(crawl, mirror):
    real = {sz: page for sz, page in real_nalus_pages().items() if page["date"] >= date(2018, 9, 18)}
    expected = {**constitutional_since(date(2018, 9, 18)), **real}  # a real page stands for its decision
    assert 20 < len(expected) < 60 and list(real) == ["3-1773-19_1"]  # several result pages of 20
    before = len(mirror.request_log)
    first = crawl("nalus", "us-1", MENDEL_NALUS_FROM="2018-09-18", MENDEL_NALUS_PAGE_SIZE="20", MENDEL_NALUS_DOCKETS="")
    only(first, stored=len(expected))
    requests = [(m, p.split("?")[0], s) for m, p, s in mirror.request_log[before:]]
    # The postback was accepted (a forged or missing __VIEWSTATE is answered 500) and redirected to the results.
    assert ("POST", "/Search/Search.aspx", 302) in requests and ("POST", "/Search/Search.aspx", 500) not in requests
    result_pages = [p for m, p, s in mirror.request_log[before:] if p.startswith("/Search/Results.aspx")]
    assert len(result_pages) == -(-len(expected) // 20)  # page 0 after the redirect, then ?page=1, ?page=2

    docs = documents(crawl.database_url, "nalus")
    assert len(docs) == len(expected)
    store = RawStore(crawl.home / "raw")
    for doc_id, doc in docs.items():
        sz = nalus_spider.text_key(doc["url"])
        record = expected[sz]
        assert doc["published"] == record["date"] and doc["doc_type"] == "decision"
        assert doc["citation"].replace(" ", "") == record["docket"].replace(" ", "").replace("US", "ÚS")
        assert doc["title"].endswith(f"Ústavního soudu sp. zn. {doc['citation']}")
        if not sz.startswith("St-"):
            senate, number, rest = sz.split("-")
            year, ordinal = rest.split("_")
            assert doc_id == f"ECLI:CZ:US:{record['date'].year}:{senate}.US.{number}.{year}.{ordinal}"
        page = store.get(doc["sha256"]).decode("utf-8")
        if sz in real:
            assert "Ústavní stížnost se odmítá." in page and "ne text rozhodnutí" not in page
            continue
        assert "ne text rozhodnutí" in page  # labelled as a citation record, not a decision text
        for reference in record["refs"]:
            assert " ".join(reference.split()) in page

    again = crawl("nalus", "us-2", MENDEL_NALUS_FROM="2018-09-18", MENDEL_NALUS_PAGE_SIZE="40", MENDEL_NALUS_DOCKETS="")
    only(again, unchanged=len(expected))


@pytest.mark.e2e
def test_nssoud_pages_through_more_rows_and_keeps_the_utf16_texts_then_only_304s(crawl, mirror):
    expected = administrative_since(date(2017, 1, 1))
    assert len(expected) > 40  # the first result page holds 40 rows; the rest come from MyResTRowsCont
    before = len(mirror.request_log)
    first = crawl("nssoud", "nss-1", MENDEL_NSSOUD_FROM="2017-01-01")
    only(first, stored=len(expected))
    more = [s for m, p, s in mirror.request_log[before:] if p == "/Home/MyResTRowsCont"]
    assert more == [200, 200]  # 20 more rows, then the empty answer that ends the list

    docs = documents(crawl.database_url, "nssoud")
    store = RawStore(crawl.home / "raw")
    by_date = {}
    for doc in docs.values():
        assert doc["content_type"] == "text/plain; charset=utf-16-le" and doc["doc_type"] == "decision"
        body = store.get(doc["sha256"])
        assert body[1:2] == b"\x00" and not body.startswith(b"\xff\xfe")  # UTF-16-LE as served, no BOM
        text = body.decode("utf-16-le")
        assert f"Spisová značka: {doc['citation'].replace('-', ' - ')}" in text
        by_date.setdefault(doc["published"], set()).add(doc["citation"])
        # Extraction reads the stored bytes with the declared charset.
        extracted = extract_document(body, doc["content_type"], doc["url"])
        assert "Nejvyšší správní soud" in extracted.pages[0].text
    wanted = {}
    for record in expected.values():
        longest = max(record["dockets"], key=lambda d: len(d.replace(" ", "")))
        wanted.setdefault(record["date"], set()).add(reference_number(longest))
    assert by_date == wanted

    again = crawl("nssoud", "nss-2", MENDEL_NSSOUD_FROM="2017-01-01")
    only(again, unchanged=len(expected))


def test_court_spider_helpers():
    assert nalus_spider.form_date("2018-09-08") == "8.9.2018"
    assert nalus_spider.decision_kind(" Nález ", "1-2-18_1") == "Nález"
    assert nalus_spider.decision_kind("", "St-27-09_1") == "Stanovisko pléna"
    assert nalus_spider.decision_kind(None, "1-2-18_1") is None
    assert nalus_spider.decision_title(None, "I. ÚS 2/18") == "Rozhodnutí Ústavního soudu sp. zn. I. ÚS 2/18"
    assert nssoud_spider.condition_datetime("2017-01-01") == "01.01.2017 00:00:00"
    assert nssoud_spider.condition_datetime("2017-12-31", end_of_day=True) == "31.12.2017 23:59:59"
    assert nssoud_spider.js_string("var currParams = '[{\\'a\\': 1}]';", "currParams") == "[{'a': 1}]"
    text = "Kasační stížnost se zamítá. 7 Afs 41/2013\u001e8"
    for body, header in (
        (text.encode("utf-16-le"), "text/plain; charset=utf-16"),
        (b"\xff\xfe" + text.encode("utf-16-le"), "text/plain"),
        (text.encode("utf-16-le"), "text/plain"),  # no charset, no BOM: the NULs tell
        (text.encode("utf-8"), "text/plain; charset=utf-8"),
    ):
        decoded, _codec = nssoud_spider.decode_text(body, header)
        assert nssoud_spider.clean_text(decoded) == "Kasační stížnost se zamítá. 7 Afs 41/2013-8"


NOW = datetime(2026, 12, 4, 2, 0, tzinfo=timezone.utc)
DOCKETS = ("I. ÚS 2/95", "II.ÚS 287/96", "IV. ÚS 899/15")  # as configured (NALUS writes "II.ÚS" unspaced)
HELD = {"I. ÚS 2/95": NOW - timedelta(days=1), "II. ÚS 287/96": NOW - timedelta(days=13, hours=23)}


def nalus_spider_with(known: dict, **arguments) -> nalus_spider.NalusSpider:
    spider = nalus_spider.NalusSpider.from_crawler(
        get_crawler(nalus_spider.NalusSpider),
        base_url="http://127.0.0.1:8765",
        date_from="2018-09-18",
        dockets=",".join(DOCKETS),
        **arguments,
    )
    spider.known.decisions_confirmed = known
    return spider


@pytest.mark.parametrize(
    "known, arguments, due",
    [
        ({}, {}, DOCKETS),  # a first night: every file number
        (HELD, {}, ("IV. ÚS 899/15",)),  # held and confirmed within 14 days: only the one not held
        ({**HELD, "II. ÚS 287/96": NOW - timedelta(days=14)}, {}, ("II.ÚS 287/96", "IV. ÚS 899/15")),  # due again
        (HELD, {"docket_recheck_days": "1"}, DOCKETS[:2] + ("IV. ÚS 899/15",)),  # a shorter re-check age
        (HELD, {"docket_recheck_days": "0"}, DOCKETS),  # 0: every night
        (HELD, {"whole_listing": "1"}, DOCKETS),  # a forced full crawl
        ({"I. ÚS 2/96": NOW}, {}, DOCKETS),  # another file number held: not this one
    ],
)
def test_nalus_searches_a_held_file_number_again_only_once_due(known, arguments, due):
    assert nalus_spider_with(known, **arguments).dockets_due(NOW) == list(due)


def test_nalus_starts_one_search_for_the_window_and_one_per_file_number_due():
    spider = nalus_spider_with({"I. ÚS 2/95": datetime.now(timezone.utc)})

    async def started():
        return [request async for request in spider.start()]

    requests = asyncio.run(started())
    assert [(r.meta["cookiejar"], r.cb_kwargs["docket"]) for r in requests] == [
        (0, None),
        (1, "II.ÚS 287/96"),
        (2, "IV. ÚS 899/15"),
    ]
    stats = spider.crawler.stats
    assert (stats.get_value("mendel/dockets_searched"), stats.get_value("mendel/dockets_not_due")) == (2, 1)
