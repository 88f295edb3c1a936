"""Search in force on the postgres serving backend, on the real versions of vyhláška 573/2025 Sb. crawled from the
mirror (as tests/test_search_in_force.py does for the bundle): the promulgated PDF (§ 4 písm. a) 34,70 Kč, in force
1. 1. – 31. 5. 2026), the consolidated version of 1. 6. 2026 and that of 1. 10. 2026 (§ 4 písm. a) 41,80 Kč).
The same rule as the bundle backend (serving.in_force) over the database's passages, with the same hit fields.
Dates are passed explicitly (never the wall clock)."""

from __future__ import annotations

from datetime import date

import psycopg
import pytest

from mendel.index import bundle
from mendel.index.fulltext import fill_lexemes
from serving.pg_search import PostgresSearcher
from serving.search import VERSION_FIELDS, Searcher
from tests.law_support import crawled_database
from tests.test_index_support import RecordingEmbedder, run_index
from tests.test_search_in_force import ACT, AFTER_ALL, BEFORE_AMENDMENTS, LATEST, QUERY, section_4


@pytest.fixture(scope="module")
def searchers(pg_server_url, tmp_path_factory):
    """The act crawled with its three versions, indexed as the nightly does, lexemes filled: the postgres
    searcher over the database and the bundle searcher over the bundle published from it."""
    home = tmp_path_factory.mktemp("pg-in-force-home")
    url = crawled_database(pg_server_url, home, [
        ("esbirka", {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/573"})])
    embedder = RecordingEmbedder()
    with psycopg.connect(url, autocommit=True) as conn:
        run_index(conn, home, embedder)
        fill_lexemes(conn)
    path = bundle.current_bundle(home / "bundles")
    postgres = PostgresSearcher(path, embedder=embedder, database_url=url)
    yield {"postgres": postgres, "bundle": Searcher(path, embedder=embedder)}
    postgres.close()


def test_default_search_serves_the_version_in_force(searchers):
    details: dict = {}
    hits = searchers["postgres"].search(QUERY, k=10, at=AFTER_ALL, details=details)
    assert "at" not in details["not_applied"] and "version" not in details["not_applied"]
    found = section_4(hits)
    assert found and "a) 41,80 Kč" in found[0].text
    assert (found[0].version_eli, found[0].version_kind, found[0].valid_from, found[0].valid_to,
            found[0].status) == (f"{ACT}/{LATEST}", "consolidated", LATEST, None, "in_force")
    assert found[0].page == 3 and found[0].page_of == "promulgated"
    # neither the promulgated § 4 nor the 1. 6. 2026 one: superseded passages are left out
    assert not any("34,70" in h.text for h in hits if h.doc_id == ACT)
    assert all(h.status == "in_force" for h in hits if h.doc_id == ACT)


def test_an_earlier_date_serves_the_wording_then(searchers):
    march = section_4(searchers["postgres"].search(QUERY, k=10, at=BEFORE_AMENDMENTS))
    assert march and "34,70 Kč" in march[0].text and not any("41,80" in h.text or "44,50" in h.text for h in march)
    assert (march[0].version_eli, march[0].version_kind, march[0].status, march[0].valid_to) == (
        f"{ACT}/2026-01-01", "promulgated", "in_force", "2026-05-31")
    july = section_4(searchers["postgres"].search(QUERY, k=10, at=date(2026, 7, 1)))
    assert july and "a) 34,70 Kč" in july[0].text and "c) 44,50 Kč" in july[0].text
    assert (july[0].version_eli, july[0].valid_from, july[0].valid_to) == (
        f"{ACT}/2026-06-01", "2026-06-01", "2026-09-30")


def test_before_the_act_takes_effect_its_first_version_is_marked(searchers):
    hits = section_4(searchers["postgres"].search(QUERY, k=10, at=date(2025, 12, 20)))
    assert hits and "34,70 Kč" in hits[0].text
    assert (hits[0].version_kind, hits[0].status) == ("promulgated", "not_yet_in_force")


def test_version_promulgated_returns_the_pdf_passage_with_its_page(searchers):
    hits = searchers["postgres"].search(QUERY, k=10, at=AFTER_ALL, version="promulgated")
    act_hits = [h for h in hits if h.doc_id == ACT]
    assert act_hits and all(h.version_kind == "promulgated" for h in act_hits)
    found = section_4(hits)
    assert found and "34,70 Kč" in found[0].text and found[0].page == 3 and found[0].page_of is None
    assert (found[0].version_eli, found[0].status) == (f"{ACT}/2026-01-01", "superseded")
    with pytest.raises(ValueError):
        searchers["postgres"].search(QUERY, at=AFTER_ALL, version="latest")


@pytest.mark.parametrize("day, version", [(AFTER_ALL, None), (BEFORE_AMENDMENTS, None), (date(2026, 7, 1), None),
                                          (AFTER_ALL, "promulgated")])
def test_both_backends_serve_the_same_act_passages_with_the_same_fields(searchers, day, version):
    """The act's passages a date serves and what each hit says of its version agree with the bundle's."""
    def act_hits(name):
        hits = searchers[name].search(QUERY, k=30, at=day, version=version)
        return {h.chunk_id: {f: getattr(h, f) for f in VERSION_FIELDS} for h in hits if h.doc_id == ACT}

    postgres, bundled = act_hits("postgres"), act_hits("bundle")
    assert postgres and postgres == bundled
