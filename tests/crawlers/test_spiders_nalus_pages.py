"""Ústavní soud from its real pages: the NALUS spider finds the six decisions whose real ``GetText.aspx`` pages the
sample holds by their file numbers, stores each page unchanged, and its text is read into výrok, odůvodnění and
dissent; a held decision's file number is not searched again the next night (MENDEL_NALUS_WHOLE searches it); a
decision first known from its ConCo record is replaced by its text when the page appears."""

from __future__ import annotations

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.core.sources import NALUS_SAMPLE_PAGES
from mendel.nightly.extract_stage import extract_pending
from mirror.server import MirrorThread
from tests.support.courts import real_nalus_pages
from tests.support.crawl import crawl_runner, documents, only

NO_WINDOW = {"MENDEL_NALUS_FROM": "2100-01-01"}  # no decision is that new: the file numbers alone


@pytest.mark.e2e
def test_the_real_pages_are_found_by_file_number_and_stored_unchanged(tmp_path, fresh_db, mirror, monkeypatch):
    crawl = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
    pages = real_nalus_pages()
    first = crawl("nalus", "us-pages", **NO_WINDOW)
    only(first, stored=6)  # the demo's dockets: NALUS_SAMPLE_PAGES
    assert (first["dockets_searched"], first["dockets_not_due"]) == (6, 0)
    docs = documents(fresh_db, "nalus")
    assert sorted(doc["citation"] for doc in docs.values()) == sorted(NALUS_SAMPLE_PAGES)
    store = RawStore(tmp_path / "raw")
    for doc in docs.values():
        sz = doc["url"].split("sz=")[1]
        assert store.get(doc["sha256"]) == (SAMPLE_CORPUS / "courts" / "nalus_html" / f"{sz}.html").read_bytes()
        assert doc["published"] == pages[sz]["date"] and doc["doc_type"] == "decision"
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        extract_pending(conn, store)
        sections = conn.execute(
            "SELECT d.citation, array_agg(s.label ORDER BY s.char_start) FROM documents d"
            " JOIN sections s ON s.version_id = d.current_version_id WHERE s.kind = 'decision_part'"
            " GROUP BY d.citation"
        ).fetchall()
    assert dict(sections) == {c: ["Výrok", "Odůvodnění", "Odlišné stanovisko"] for c in NALUS_SAMPLE_PAGES}

    # The next night every decision text is held and has just answered: no file number is searched again (the
    # date window's search alone), until asked for the whole list.
    again = crawl("nalus", "us-pages-2", **NO_WINDOW)
    only(again)
    assert (again["dockets_searched"], again["dockets_not_due"]) == (0, 6) and again["requests"] < first["requests"]
    whole = crawl("nalus", "us-pages-3", **NO_WINDOW, MENDEL_NALUS_WHOLE="1")
    only(whole, unchanged=6)
    assert (whole["dockets_searched"], whole["requests"]) == (6, first["requests"])


def corpus_without_pages(root):
    """The sample corpus (linked) without the real NALUS pages: the mirror knows those decisions by ConCo alone."""
    root.mkdir()
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.name != "courts":
            (root / entry.name).symlink_to(entry)
    (root / "courts").mkdir()
    for entry in (SAMPLE_CORPUS / "courts").iterdir():
        if entry.name != "nalus_html":
            (root / "courts" / entry.name).symlink_to(entry)
    return root


@pytest.mark.e2e
def test_a_decision_with_text_replaces_its_citation_record(tmp_path, fresh_db, monkeypatch):
    one = {**NO_WINDOW, "MENDEL_NALUS_DOCKETS": "II. ÚS 549/06"}  # in ConCo, and a real page in the sample
    store = RawStore(tmp_path / "home" / "raw")

    def kind() -> tuple[str, str]:
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            extract_pending(conn, store)
            return conn.execute("SELECT doc_id, doc_type FROM documents WHERE source = 'nalus'").fetchone()

    with MirrorThread(corpus_without_pages(tmp_path / "corpus")) as records_only:
        only(
            crawl_runner(monkeypatch, tmp_path / "home", fresh_db, records_only.base_url)("nalus", "rec", **one),
            stored=1,
        )
    doc_id, before = kind()
    assert before == "citation_record"
    with MirrorThread(SAMPLE_CORPUS) as with_pages:
        only(
            crawl_runner(monkeypatch, tmp_path / "home", fresh_db, with_pages.base_url)("nalus", "txt", **one), stored=1
        )
    assert kind() == (doc_id, "decision")  # the same document: its text is now the decision's
