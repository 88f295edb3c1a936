"""Content validation before storing (mendel.crawl.content_checks, crawlers.pipelines.content_check): a body that
is not what its source publishes — an HTML error page sent with 200 in place of a decision, a decision page cut to
30 % with a Content-Length that matches the cut — is quarantined with the reason and never stored; the next good
fetch of the same URL stores the document and resolves its quarantine entry."""

from __future__ import annotations

import gzip
import io
import json
import uuid
import zipfile

import psycopg
import pytest

from mendel.core import db
from mendel.core.config import SAMPLE_CORPUS
from mendel.core.sources import SOURCES
from mendel.crawl import content_checks
from mendel.crawl.content_checks import Candidate, check_document
from mirror.courts import NsoudSite
from mirror.faults import ERROR_PAGE
from tests.support.faults import ECLI, NS_A, NS_B, NS_C, NS_DAY, CrawlLauncher, Harness, decision, logged

BLESNO_PDF = next((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf"))


def nsoud_page(unid: str) -> bytes:
    site = NsoudSite(SAMPLE_CORPUS)
    response = site.handle("GET", decision(unid), decision(unid), "OpenDocument", {}, b"")
    assert response is not None and response.status == 200
    return response.body


def court(
    body: bytes, content_type="text/html; charset=UTF-8", citation="27 Cdo 2965/2025", court_name="Nejvyšší soud"
) -> Candidate:
    return Candidate(
        source="nsoud",
        url="https://rozhodnuti.nsoud.cz/x",
        body=body,
        content_type=content_type,
        doc_type="decision",
        citation=citation,
        extra={"court": court_name},
    )


# ---------------------------------------------------------------- the checks themselves


def test_every_source_declares_its_checks():
    assert set(content_checks.SOURCE_CHECKS) == set(SOURCES)


def test_a_real_decision_page_passes_and_its_error_page_or_cut_copy_does_not():
    page = nsoud_page(NS_A)
    assert check_document(court(page)) is None
    assert check_document(court(ERROR_PAGE.encode())).startswith("decision body too short: ")
    cut = page[: int(len(page) * 0.3)]
    assert check_document(court(cut)) == "incomplete HTML: no closing </html>"
    # Complete HTML, but not this decision: the file number is not on the page.
    assert (
        check_document(court(page, citation="5 Tdo 1/2020"))
        == "the page does not name the decision's file number 5 Tdo 1/2020"
    )
    assert (
        check_document(court(page, court_name="Nejvyšší správní soud"))
        == "the page does not name the court (Nejvyšší správní soud)"
    )


def test_an_html_error_page_sent_as_a_text_decision_is_rejected():
    # The NSS texts are text/plain (UTF-16); an error page in their place has no decision in it.
    reason = check_document(
        court(ERROR_PAGE.encode("utf-16-le"), "text/plain; charset=utf-16", "7 Afs 41/2013-8", "Nejvyšší správní soud")
    )
    # whichever check meets it first, it is rejected as no decision (no file number in it, or too short)
    assert reason is not None and (reason.startswith("decision body too short: ") or "does not name" in reason)


def test_pdf_docx_json_and_gzip_are_checked_for_completeness():
    body = BLESNO_PDF.read_bytes()
    pdf = Candidate(
        source="boards", url="https://x/a.pdf", body=body, content_type="application/pdf", doc_type="municipal_document"
    )
    assert check_document(pdf) is None
    assert (
        check_document(Candidate(**{**pdf.__dict__, "body": body[: len(body) // 2]}))
        == "incomplete PDF: no %%EOF at its end"
    )
    assert (
        check_document(Candidate(**{**pdf.__dict__, "body": ERROR_PAGE.encode()}))
        == "not a PDF (declared application/pdf)"
    )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("word/document.xml", "<w:document/>")
    docx = Candidate(
        source="esbirka",
        url="https://x/a.docx",
        body=archive.getvalue(),
        content_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )
    assert check_document(docx) is None
    assert check_document(Candidate(**{**docx.__dict__, "body": docx.body[:-30]})).startswith("broken ZIP archive")
    notice = Candidate(
        source="boards",
        url="https://x/n",
        body=json.dumps({"název": "Oznámení"}).encode(),
        content_type="application/ld+json",
        doc_type="notice",
    )
    assert check_document(notice) is None
    assert check_document(Candidate(**{**notice.__dict__, "body": b"[1, 2]"})) == "JSON list, not an object"
    assert check_document(Candidate(**{**notice.__dict__, "body": b"{}"})) == "notice with neither a title nor an IRI"
    packed = gzip.compress(b"<vf:VymennyFormat/>" * 1000)
    vfr = Candidate(source="ruian", url="https://x/a.xml.gz", body=packed, content_type="application/x-gzip")
    assert check_document(vfr) is None
    assert (
        check_document(Candidate(**{**vfr.__dict__, "body": packed[: len(packed) // 2]}))
        == "incomplete gzip stream: it ends before its last block"
    )


# ---------------------------------------------------------------- through the crawl


@pytest.fixture(scope="module")
def harness(pg_server_url, tmp_path_factory):
    database_url = db.create_database(pg_server_url, f"content_{uuid.uuid4().hex[:8]}")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    launcher = CrawlLauncher()
    running = Harness(launcher, database_url, tmp_path_factory.mktemp("content"))
    yield running
    running.close()
    launcher.close()


@pytest.mark.e2e
def test_error_page_and_truncated_decision_are_quarantined_then_stored_and_resolved(harness):
    # A: an HTML error page with 200; B: the decision page cut to 30 %, sent as a complete response (its
    # Content-Length matches the cut, so HTTP sees nothing wrong).
    first = harness.crawl(
        "nsoud",
        "content-1",
        [
            {"kind": "error_page", "path": decision(NS_A), "status": 200},
            {"kind": "cut", "path": decision(NS_B), "keep": 0.3},
        ],
        **NS_DAY,
    )
    assert first.counts["reconciled"] and first.counts["stored"] == 1 and first.counts["quarantined"] == 2
    outcome_a, status_a, reason_a = logged(first, decision(NS_A))
    outcome_b, status_b, reason_b = logged(first, decision(NS_B))
    assert (outcome_a, status_a, outcome_b, status_b) == ("quarantined", 200, "quarantined", 200)
    # The spider finds no decision in the error page; the pipeline's content check finds the cut page incomplete.
    assert reason_a == "no decision on the page (file number or text missing)"
    assert reason_b == "content: incomplete HTML: no closing </html>"
    assert set(harness.documents("nsoud")) == {ECLI[NS_C]}  # neither was stored
    blobs = [p for p in (harness.home / "raw").rglob("*") if p.is_file() and p.suffix != ".json"]
    assert len(blobs) == 1
    with psycopg.connect(harness.database_url) as conn:
        open_rows = conn.execute(
            "SELECT url, reason FROM quarantine WHERE stage = 'crawl' AND resolved_at IS NULL ORDER BY url"
        ).fetchall()
    assert sorted(r for _, r in open_rows) == sorted([reason_a, reason_b])

    # The site recovered: the same URLs now store their decisions, and the quarantine entries are resolved.
    second = harness.crawl("nsoud", "content-2", [], **NS_DAY)
    assert second.counts["reconciled"] and second.counts["stored"] == 2 and second.counts["unchanged"] == 1
    assert set(harness.documents("nsoud")) == set(ECLI.values())
    with psycopg.connect(harness.database_url) as conn:
        rows = conn.execute("SELECT url, resolved_by FROM quarantine WHERE stage = 'crawl'").fetchall()
    assert len(rows) == 2 and {by for _, by in rows} == {"content-2"}
    assert {url.split("/WebSearch/")[1].split("?")[0] for url, _ in rows} == {NS_A, NS_B}


@pytest.mark.e2e
def test_a_url_failing_again_after_resolution_gets_a_new_quarantine_entry(harness):
    third = harness.crawl("nsoud", "content-3", [{"kind": "cut", "path": decision(NS_B), "keep": 0.3}], **NS_DAY)
    # B's cut page is quarantined again (the stored version stays current), A and C answer 304.
    assert third.counts["quarantined"] == 1 and third.counts["unchanged"] == 2
    assert set(harness.documents("nsoud")) == set(ECLI.values())
    with psycopg.connect(harness.database_url) as conn:
        open_rows = conn.execute(
            "SELECT reason FROM quarantine WHERE stage = 'crawl' AND resolved_at IS NULL"
        ).fetchall()
    assert open_rows == [("content: incomplete HTML: no closing </html>",)]
