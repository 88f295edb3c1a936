"""The mirror's ČNB site: the real listing paths with ``.page-cnt``, links from the real index, 404 for bytes the
corpus does not have."""

from __future__ import annotations

import json
import re
import shutil
from urllib.parse import urlsplit

import requests

from mendel.core.config import SAMPLE_CORPUS
from mirror import cnb
from mirror.server import MirrorThread

STATE = json.loads((SAMPLE_CORPUS / "cnb" / "ingest-state.json").read_text(encoding="utf-8"))
COVERAGE = json.loads((SAMPLE_CORPUS / "cnb" / "coverage.json").read_text(encoding="utf-8"))


def test_listings_are_served_at_their_real_paths_with_the_real_links(mirror):
    for book in COVERAGE["sourcebooks"]:
        page = requests.get(mirror.base_url + urlsplit(book["source_url"]).path, timeout=30)
        assert page.status_code == 200 and '<div class="page-cnt">' in page.text and book["name"] in page.text
    benchmarks = requests.get(
        f"{mirror.base_url}/cs/dohled-financni-trh/vykon-dohledu/dohledova-uredni-sdeleni-a-benchmarky/", timeout=30
    ).text
    links = re.findall(r'<a href="([^"]+)">', benchmarks.split('class="page-cnt"', 1)[1])
    assert links == [urlsplit(u).path for u in STATE["completedBenchmarkUrls"]]
    assert '>Dohledové sdělení č. 1/2026</a> <span class="date">2026</span>' in benchmarks
    decrees = requests.get(f"{mirror.base_url}/cs/legislativa/vyhlasky/", timeout=30).text
    assert "<a href" not in decrees.split('class="page-cnt"', 1)[1]  # the index names no decree
    for url in STATE["completedBenchmarkUrls"][:3]:
        assert requests.get(mirror.base_url + urlsplit(url).path, timeout=30).status_code == 404


def test_a_document_the_corpus_has_is_served_byte_for_byte(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "cnb" / "documents").mkdir(parents=True)
    for name in ("coverage.json", "ingest-state.json"):
        shutil.copy(SAMPLE_CORPUS / "cnb" / name, corpus / "cnb" / name)
    pdf = SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf"  # a stand-in: the corpus has no ČNB PDF
    shutil.copy(pdf, corpus / "cnb" / "documents" / "dohledove_sdeleni_2026_01.pdf")
    with MirrorThread(corpus) as site:
        answer = requests.get(site.base_url + urlsplit(STATE["completedBenchmarkUrls"][0]).path, timeout=30)
        assert answer.status_code == 200 and answer.content == pdf.read_bytes()
        assert answer.headers["Content-Type"] == "application/pdf"
        again = requests.get(
            site.base_url + urlsplit(STATE["completedBenchmarkUrls"][0]).path,
            timeout=30,
            headers={"If-None-Match": answer.headers["ETag"]},
        )
        assert again.status_code == 304


def test_titles_come_from_the_real_file_names():
    assert cnb.title_from_url("https://www.cnb.cz/x/download/dohledovy_benchmark_2025_01.pdf") == (
        "Dohledový benchmark č. 1/2025",
        2025,
    )
    assert cnb.title_from_url(
        "https://www.cnb.cz/x/dohledove-sdeleni-c.-1-2018-platebni-ucty-pro-nezletile-osoby/"
    ) == ("Dohledové sdělení č. 1/2018 – platebni ucty pro nezletile osoby", 2018)
    assert cnb.title_from_url("https://www.cnb.cz/cs/x/vybrana-rozhodnuti-mimo-kapitalovy-trh/") == (
        "vybrana rozhodnuti mimo kapitalovy trh",
        None,
    )
    listings = cnb.load_listings(SAMPLE_CORPUS)
    assert (
        sum(len(listing.documents) for listing in listings)
        == len(STATE["completedBenchmarkUrls"]) + len(STATE["completedEnforcementUrls"]) - 1
    )
