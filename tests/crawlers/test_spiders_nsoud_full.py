"""Nejvyšší soud at size: the demo window crawls every dated decision the mirror serves (the 11 of the scraped
sample and the 949 dated ones of ``courts/ns_full/``), keyed by the court's ECLI only where the page gives one."""

from __future__ import annotations

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mirror.courts import load_decisions
from tests.support.crawl import crawl_runner, documents, only


@pytest.fixture
def crawl(tmp_path, fresh_db, mirror, monkeypatch):
    return crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)


@pytest.mark.e2e
def test_the_demo_window_stores_every_dated_decision_with_its_header(crawl, mirror):
    served = load_decisions(SAMPLE_CORPUS)
    dated = [d for d in served if d.record.get("decision_date") or d.record.get("publication_date")]
    assert len(served) == 11 + 957 and len(dated) == 11 + 949
    counts = crawl("nsoud", "ns-full", MENDEL_NSOUD_PAGE_SIZE="100")
    only(counts, stored=len(dated))
    docs = documents(crawl.database_url, "nsoud")
    with_ecli = {d.record["ecli"] for d in dated if d.record.get("ecli")}
    assert {doc_id for doc_id in docs if doc_id.startswith("ECLI:")} == with_ecli and len(with_ecli) == 11 + 3
    assert sum(1 for doc_id in docs if doc_id.startswith("nsoud:")) == 946
    vrchni = next(doc for doc in docs.values() if doc["citation"] == "13 Cmo 115/2002")
    assert vrchni["title"] == "Rozsudek (Vrchní soud v Praze) sp. zn. 13 Cmo 115/2002"
    page = RawStore(crawl.home / "raw").get(vrchni["sha256"]).decode("utf-8")
    assert "Dotčené předpisy:</td>" in page and "§ 59 písm. a) předpisu č. 328/1991Sb." in page
    with psycopg.connect(crawl.database_url) as conn:
        (undated,) = conn.execute("SELECT count(*) FROM documents WHERE published IS NULL").fetchone()
    assert undated == 0
