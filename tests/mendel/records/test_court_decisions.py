"""Court decisions as their courts describe them (mendel.records.court_decisions), read from real stored originals: a
lower court's open-data record, Nejvyšší soud pages (one of the Sbírka with its ECLI, one of a high court without),
a real NALUS page; rows kept in step with the documents' current versions."""

from __future__ import annotations

import json
from datetime import date

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.records.court_decisions import document_courts, read_decision, update_court_decisions
from mirror.courts import NsoudSite
from mirror.justice import JusticeSite

SITE = NsoudSite(SAMPLE_CORPUS)
RECORD = next(r for r in JusticeSite(SAMPLE_CORPUS).days()["2025-09-26"] if r["jednaciCislo"] == "52 C 99/2024-53")


def ns_page(case_number: str) -> bytes:
    return SITE.decision_page(next(d for d in SITE.decisions if d.case_number == case_number)).body


ORIGINALS = {
    "justice": (json.dumps(RECORD, ensure_ascii=False).encode(), "application/json"),
    "sbirka": (ns_page("27 Cdo 935/2022"), "text/html; charset=UTF-8"),
    "vrchni": (ns_page("13 Cmo 115/2002"), "text/html; charset=UTF-8"),
    "nalus": ((SAMPLE_CORPUS / "courts" / "nalus_html" / "2-549-06.html").read_bytes(), "text/html; charset=utf-8"),
}


@pytest.mark.parametrize(
    ("name", "court", "number", "ecli", "decided", "provisions", "keywords"),
    [
        (
            "justice",
            "Městský soud v Brně",
            "52 C 99/2024-53",
            RECORD["ecli"],
            date(2025, 5, 15),
            14,
            ["smlouva o úvěru"],
        ),
        ("sbirka", "Nejvyšší soud", "27 Cdo 935/2022", "ECLI:CZ:NS:2022:27.CDO.935.2022.1", date(2022, 11, 30), 5, 4),
        ("vrchni", "Vrchní soud v Praze", "13 Cmo 115/2002", None, date(2002, 10, 10), 2, ["Vyrovnání"]),
        ("nalus", "Ústavní soud", "II. ÚS 549/06", None, date(2006, 11, 29), 0, []),
    ],
)
def test_each_source_is_read_as_its_court_describes_it(name, court, number, ecli, decided, provisions, keywords):
    row = read_decision(*ORIGINALS[name])
    assert (row["court"], row["file_number"], row["ecli"], row["decided"]) == (court, number, ecli, decided)
    assert len(row["provisions"]) == provisions
    assert row["keywords"] == keywords if isinstance(keywords, list) else len(row["keywords"]) == keywords
    assert "vyrok" not in row["fields"] and "oduvodneni" not in row["fields"]  # texts are pages, not metadata


def test_the_header_provisions_are_listed_as_the_court_lists_them():
    assert read_decision(*ORIGINALS["vrchni"])["provisions"] == [
        "§ 59 písm. a) předpisu č. 328/1991Sb.",
        "§ 60 předpisu č. 328/1991Sb.",
    ]
    assert read_decision(*ORIGINALS["justice"])["provisions"][0] == "§ 142 z. č. 99/1963 Sb."


def test_rows_follow_the_current_versions(fresh_db, tmp_path):
    store = RawStore(tmp_path)
    ids = {
        "justice": RECORD["ecli"],
        "sbirka": "ECLI:CZ:NS:2022:27.CDO.935.2022.1",
        "vrchni": "nsoud:X",
        "nalus": "nalus:2-549-06",
    }
    sources = {"justice": "justice", "sbirka": "nsoud", "vrchni": "nsoud", "nalus": "nalus"}
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for name, (body, content_type) in ORIGINALS.items():
            blob = store.put(body)
            crawlstate.record_document(
                conn,
                run_id="r",
                source=sources[name],
                doc_id=ids[name],
                url=f"https://x/{name}",
                sha256=blob.sha256,
                byte_size=len(body),
                content_type=content_type,
                doc_type="decision",
            )
        assert update_court_decisions(conn, store)["court_decisions"] == 4
        assert update_court_decisions(conn, store)["court_decisions"] == 0  # nothing changed, nothing read
        courts = document_courts(conn)
        assert courts[RECORD["ecli"]] == {
            "court": "Městský soud v Brně",
            "court_level": "district",
            "file_number": "52 C 99/2024",
        }
        assert courts["nalus:2-549-06"]["court_level"] == "constitutional"
        assert courts["nsoud:X"] == {
            "court": "Vrchní soud v Praze",
            "court_level": "high",
            "file_number": "13 Cmo 115/2002",
        }
        conn.execute("UPDATE documents SET doc_type = 'citation_record' WHERE doc_id = 'nalus:2-549-06'")
        assert update_court_decisions(conn, store)["court_decisions_dropped"] == 1
        assert "nalus:2-549-06" not in document_courts(conn)
