"""The lower courts' open-data spider, run for real (a Scrapy subprocess) against the local mirror into a fresh
PostgreSQL database: every record of a publication day stored (a bad one quarantined with its reason), a day read
again until it is older than the publication lag and then closed, a closed day never asked for again, and faults
that reconcile and heal on the next run."""

from __future__ import annotations

from datetime import date

import psycopg
import pytest

from crawlers.spiders.justice import day_url, days_between, record_id
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.open_data_days import closable
from mirror.justice import JusticeSite
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, documents, logged, only

DAYS = JusticeSite(SAMPLE_CORPUS).days()
API = "/api/opendata/"
NEVER_CLOSE = "100000"  # a publication lag no day of the sample is older than


def day_requests(log, before: int) -> list[str]:
    return [path for _, path, _ in log[before:] if path.startswith(API)]


@pytest.fixture
def crawl(tmp_path, fresh_db, mirror, monkeypatch):
    return crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)


def closed(database_url: str) -> dict[str, bool]:
    with psycopg.connect(database_url) as conn:
        return {
            day.isoformat(): closed_at is not None
            for day, closed_at in conn.execute("SELECT day, closed_at FROM open_data_days WHERE source = 'justice'")
        }


@pytest.mark.parametrize(
    ("day", "today", "lag", "expected"),
    [
        (date(2025, 9, 16), date(2025, 9, 30), 14, False),  # 14 days old: the lag has not passed
        (date(2025, 9, 15), date(2025, 9, 30), 14, True),
        (date(2025, 9, 16), date(2026, 12, 3), 14, True),
        (date(2025, 9, 16), date(2025, 9, 17), 0, True),
        (date(2025, 9, 16), date(2025, 9, 16), 0, False),  # today is never complete
    ],
)
def test_a_day_closes_once_older_than_the_publication_lag(day, today, lag, expected):
    assert closable(day, today, lag) is expected


def test_urls_and_ids_are_the_apis():
    assert day_url("https://rozhodnuti.justice.cz", date(2025, 9, 6), 1).endswith("/api/opendata/2025/09/06?page=1")
    assert len(days_between(date(2025, 9, 15), date(2025, 9, 30))) == 16
    assert record_id({"ecli": "ECLI:CZ:OSNB:2025:6.C.132.2025.1"}) == "ECLI:CZ:OSNB:2025:6.C.132.2025.1"
    assert record_id({"soud": "Okresní soud v Nymburce", "jednaciCislo": "6 C 1/2025-1"}).startswith("justice:Okres")
    assert record_id({"soud": "Okresní soud v Nymburce"}) is None


@pytest.mark.e2e
def test_every_record_is_stored_and_a_second_run_asks_only_for_days_not_yet_closed(crawl, mirror):
    before = len(mirror.request_log)
    first = crawl("justice", "justice-1")
    records = [r for day in DAYS.values() for r in day]
    without_text = [r["ecli"] for r in records if not (r["vyrok"].strip() or r["oduvodneni"].strip())]
    assert len(without_text) == 2  # as published: the rest of their pages is stored
    only(first, stored=len(records) - 2, quarantined=2)
    assert first["days_closed"] == 16
    pages = sum(-(-len(r) // 100) for r in DAYS.values())
    empty_days = 16 - len(DAYS)  # days of the demo window with nothing published: one request each
    assert len(day_requests(mirror.request_log, before)) == pages + empty_days
    assert set(closed(crawl.database_url).values()) == {True} and len(closed(crawl.database_url)) == 16
    docs = documents(crawl.database_url, "justice")
    record = next(r for r in DAYS["2025-09-26"] if r["jednaciCislo"] == "52 C 99/2024-53")
    stored = docs[record["ecli"]]
    assert (stored["citation"], stored["published"], stored["content_type"]) == (
        "52 C 99/2024-53",
        date(2025, 5, 15),
        "application/json",
    )
    assert stored["title"] == "Městský soud v Brně, č. j. 52 C 99/2024-53"

    before = len(mirror.request_log)
    second = crawl("justice", "justice-2")
    only(second)  # nothing discovered: every day of the window is closed
    assert day_requests(mirror.request_log, before) == [] and second["days_skipped_closed"] == 16


@pytest.mark.e2e
def test_a_day_younger_than_the_lag_is_read_again_until_it_closes(crawl, mirror):
    window = {"MENDEL_JUSTICE_FROM": "2025-09-20", "MENDEL_JUSTICE_TO": "2025-09-20"}
    before = len(mirror.request_log)
    only(crawl("justice", "open-1", MENDEL_JUSTICE_LAG_DAYS=NEVER_CLOSE, **window), stored=3)
    assert closed(crawl.database_url) == {"2025-09-20": False}
    only(crawl("justice", "open-2", MENDEL_JUSTICE_LAG_DAYS=NEVER_CLOSE, **window), unchanged=3)
    only(crawl("justice", "open-3", **window), unchanged=3)  # the usual lag: this read closes the day
    assert closed(crawl.database_url) == {"2025-09-20": True}
    only(crawl("justice", "open-4", **window))
    assert len(day_requests(mirror.request_log, before)) == 3
    only(crawl("justice", "reread", MENDEL_JUSTICE_REREAD="1", **window), unchanged=3)  # a backfill reads it anyway


DAY = {"MENDEL_JUSTICE_FROM": "2025-09-23", "MENDEL_JUSTICE_TO": "2025-09-23"}  # 192 records on two pages
PAGE_1 = "/api/opendata/2025/09/23"
FAST = {"MENDEL_RETRY_TIMES": "1", "MENDEL_RETRY_BACKOFF": "0.05", "MENDEL_DOWNLOAD_TIMEOUT": "3"}
FAULTS = {
    "503": {"kind": "status", "path": PAGE_1, "query": "page=1", "status": 503, "retry_after": 0},
    "timeout": {"kind": "slow", "path": PAGE_1, "query": "page=1", "seconds": 6},
    "truncated_json": {"kind": "cut", "path": PAGE_1, "query": "page=1", "keep": 0.5},
}


@pytest.mark.e2e
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_on_a_page_reconciles_keeps_the_day_open_and_heals_on_the_next_run(
    fault, tmp_path, fresh_db, monkeypatch
):
    with MirrorThread(SAMPLE_CORPUS, faults=[FAULTS[fault]]) as faulty:
        crawl = crawl_runner(monkeypatch, tmp_path, fresh_db, faulty.base_url)
        first = crawl("justice", f"{fault}-1", **DAY, **FAST)
    only(first, stored=100, quarantined=1)  # page 0's records; page 1 is a listing that failed
    ((url, outcome, _, reason),) = [row for row in logged(fresh_db, f"{fault}-1") if row[1] != "stored"]
    assert url.endswith("2025/09/23?page=1") and reason.startswith("listing: ")
    assert closed(fresh_db) == {}  # the day was not read in full: it stays open
    with MirrorThread(SAMPLE_CORPUS) as healthy:
        crawl = crawl_runner(monkeypatch, tmp_path, fresh_db, healthy.base_url)
        only(crawl("justice", f"{fault}-2", **DAY, **FAST), stored=92, unchanged=100)
    assert closed(fresh_db) == {"2025-09-23": True}


def corpus_with_export(root, export: bytes):
    """The sample corpus (linked) with ``export`` as the only open-data export."""
    root.mkdir()
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.name != "courts":
            (root / entry.name).symlink_to(entry)
    (root / "courts").mkdir()
    for entry in (SAMPLE_CORPUS / "courts").iterdir():
        if entry.name != "justice_opendata":
            (root / "courts" / entry.name).symlink_to(entry)
    (root / "courts" / "justice_opendata").mkdir()
    (root / "courts" / "justice_opendata" / "export-1.xml").write_bytes(export)
    return root


def export_of(records: list[dict]) -> bytes:
    from xml.sax.saxutils import escape

    def element(key: str, value) -> str:
        tag = {"ecli": "ECLI"}.get(key, key[:1].upper() + key[1:])
        if isinstance(value, list):
            return f"<{tag}>" + "".join(f"<Polozka>{escape(v)}</Polozka>" for v in value) + f"</{tag}>"
        return f"<{tag}>{escape(value)}</{tag}>"

    documents = "".join("<Dokument>" + "".join(element(k, v) for k, v in r.items()) + "</Dokument>\n" for r in records)
    return f"<?xml version='1.0' encoding='UTF-8'?>\n<Dokumenty>\n{documents}</Dokumenty>\n".encode()


@pytest.mark.e2e
def test_a_bad_record_is_quarantined_with_its_reason_and_the_rest_of_the_page_stored(tmp_path, fresh_db, monkeypatch):
    good = DAYS["2025-09-20"]
    bad = [
        {**good[0], "ecli": "ECLI:CZ:X:2025:1", "vyrok": "", "oduvodneni": " "},
        {**good[1], "ecli": "ECLI:CZ:X:2025:2", "datumVydani": "15. 5. 2025"},
        {**good[2], "ecli": "ECLI:CZ:X:2025:3", "soud": "Exekutorský úřad Praha 1"},
    ]
    corpus = corpus_with_export(tmp_path / "corpus", export_of([bad[0], *good, *bad[1:]]))
    with MirrorThread(corpus) as mirror:
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, mirror.base_url)
        counts = crawl("justice", "bad", MENDEL_JUSTICE_FROM="2025-09-20", MENDEL_JUSTICE_TO="2025-09-20")
    only(counts, stored=3, quarantined=3)
    reasons = sorted(reason for _, outcome, _, reason in logged(fresh_db, "bad") if outcome == "quarantined")
    assert [r.removeprefix("content: ").split(":")[0] for r in reasons] == [
        "record of an unknown court",
        "record with an unparseable date",
        "record without decision text (výrok and odůvodnění empty)",
    ]
    assert closed(fresh_db) == {"2025-09-20": True}  # the page was read in full: bad records are the data's
