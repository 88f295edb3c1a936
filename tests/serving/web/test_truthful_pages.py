"""What people see is true, in Debian's Chromium over the real server: place filters that never hide a match,
only sources and acts the bundle can answer from, Czech labels, citator links that answer, results grouped by
document with a total and pages, links that keep the search, source links that resolve, word boxes whole, and the
law pages' footer naming the bundle. The bundle is tests/support/serving_corpus.py's (real notices of three boards,
acts, decisions, a consolidated act, a citation record)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mendel.core import db
from mendel.core.sources import SOURCES
from mendel.law.identifiers import parse_citation
from mendel.records.citation_records import CITATION_RECORD
from mendel.records.record_documents import RECORD_DOCUMENT_TYPES
from tests.support.browser import screenshot
from tests.support.bundle import build_bundle, chunk_graph, chunk_records
from tests.support.serving_corpus import CITATION_RECORD as RECORD_DOC
from tests.support.serving_corpus import DOCX_ACT, MIRRORED_LAW, MIRRORED_PATH, serving_docs
from tests.support.web import running_server

ROOT = Path(__file__).resolve().parents[3]
PUBLIC_NOTICE = "veřejná vyhláška"


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    return serving_docs()


@pytest.fixture(scope="module")
def served(tmp_path_factory, docs, pg_server_url):
    """The real server over the bundle, its law pages over an empty migrated database."""
    import uuid

    root = tmp_path_factory.mktemp("truthful")
    base = [d for d in docs if d["doc_type"] in ("law", "decision")]  # the entity graph of acts and decisions
    published = build_bundle(root / "bundles", docs, graph=chunk_graph(chunk_records(base)))
    database_url = db.create_database(pg_server_url, f"truthful_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MENDEL_DATABASE_URL", database_url)
        with running_server(root / "bundles") as (url, _):
            yield {"url": url, "version": published.name}


@pytest.fixture(scope="module")
def http(served):
    with httpx.Client(base_url=served["url"], timeout=60) as client:
        yield client


def kadan_public_notices(docs) -> set[str]:
    return {d["doc_id"] for d in docs if d.get("obec") == "Kadaň" and PUBLIC_NOTICE in d["title"].lower()}


def search_url(base: str, **params) -> str:
    return base + "/?" + str(httpx.QueryParams(params))


# --- filters inside the candidates ------------------------------------------------------------------------------


def test_place_filter_finds_every_matching_notice_of_the_place(http, docs):
    body = http.get("/search", params={"q": PUBLIC_NOTICE, "obec": "Kadaň", "k": 10}).json()
    found = {r["doc_id"] for r in body["results"]}
    assert kadan_public_notices(docs) <= found, "a filter hid notices of the place that match"
    assert all(r["doc_id"] in {d["doc_id"] for d in docs if d.get("obec") == "Kadaň"} for r in body["results"])
    assert not body["coverage"]["empty"] and body["filters"]["documents"] == sum(d.get("obec") == "Kadaň" for d in docs)


@pytest.mark.browser
def test_browser_place_filter(page, served, docs, tmp_path):
    page.goto(served["url"] + "/")
    page.get_by_label("Co hledáte").fill(PUBLIC_NOTICE)
    page.locator("details.filters summary").click()
    page.get_by_label("Obec").fill("Kadaň")
    page.get_by_role("button", name="Použít filtry").click()
    page.wait_for_url(re.compile(r"obec=Kada"))
    cards = page.locator("li.card")
    assert cards.count() >= len(kadan_public_notices(docs))
    titles = set(page.locator("li.card h3").all_inner_texts())
    expected = {d["title"] for d in docs if d["doc_id"] in kadan_public_notices(docs)}
    assert expected <= titles
    page.evaluate("document.getElementById('f-kraj').closest('fieldset').scrollIntoView()")
    screenshot(page, tmp_path, "place-filter")


@pytest.mark.browser
def test_a_filter_that_removes_everything_says_so(http, page, served):
    params = {"q": PUBLIC_NOTICE, "obec": "Kadaň", "source": "nsoud"}  # each value known, together nothing
    body = http.get("/search", params=params).json()
    assert body["results"] == [] and body["filters"] == {"documents": 0, "passages": 0, "empty": True}
    assert body["coverage"]["filters"]["empty"] and body["coverage"]["empty"]
    page.goto(search_url(served["url"], **params))
    assert page.get_by_role("heading", name="Nic nenalezeno").is_visible()
    assert page.locator(".notice.filters-empty").is_visible()
    assert "Zvoleným filtrům neodpovídá žádný dokument" in page.locator(".notice.filters-empty").inner_text()


# --- what is offered, and how it is named -----------------------------------------------------------------------


@pytest.mark.browser
def test_browser_sources_and_acts_offered_are_those_with_passages(page, served, http):
    facets = http.get("/facets").json()
    assert {s["value"] for s in facets["sources"]} == {"esbirka", "nsoud", "boards"}  # not nalus: no passages
    assert all(parse_citation(a["citation"]) is not None for a in facets["acts"])  # acts, not reference numbers
    assert {a["citation"] for a in facets["acts"]} == {"175/2025 Sb.", "573/2025 Sb.", "87/2024 Sb.", DOCX_ACT[2]}
    assert http.get("/search", params={"q": "soud", "source": "nalus"}).status_code == 400
    page.goto(served["url"] + "/?q=soud")
    page.locator("details.filters summary").click()
    labels = page.locator("#f-source label").all_inner_texts()
    assert labels and not any("Ústavní soud" in label for label in labels)
    assert RECORD_DOC["citation"] not in page.content()


def every_doc_type() -> set[str]:
    """Every document kind the crawl and the product library write (assignments of doc_type in their code)."""
    found = set(RECORD_DOCUMENT_TYPES) | {CITATION_RECORD}
    pattern = re.compile(r"""(?:doc_type["']?\s*[:=]|\belse)\s*["']([a-z_]+)["']""")
    for folder in ("crawlers", "mendel"):
        for path in (ROOT / folder).rglob("*.py"):
            for line in path.read_text(encoding="utf-8").splitlines():
                if "doc_type" in line:
                    found |= set(pattern.findall(line))
    return found


def test_every_source_and_kind_has_a_czech_label():
    from serving.web.facets import source_label
    from serving.web.results import document_kind

    kinds = every_doc_type()
    assert {"law", "law_consolidated", "notice", "decision", "citation_record"} <= kinds
    raw = {kind for kind in kinds if document_kind({"doc_type": kind})["kind_label"] in (kind, None)}
    assert not raw, raw
    assert all(source_label(name) not in (name, None) for name in SOURCES)


@pytest.mark.browser
def test_browser_cards_show_no_raw_keys(page, served):
    page.goto(search_url(served["url"], q="koordinace spolupráce s Evropským úřadem pro boj proti podvodům"))
    card = page.locator("li.card", has_text=DOCX_ACT[2]).first
    assert "konsolidované znění předpisu" in card.inner_text()
    text = page.locator("main").inner_text()
    for key in ("law_consolidated", "citation_record", "act_metadata", "esbirka", "nsoud"):
        assert key not in text, key


@pytest.mark.browser
def test_browser_citator_links_answer(page, served, http):
    # Kadaň's notices carry the office's reference numbers (čísla jednací): not references the citator knows
    for query, shown in (
        ("odbor dopravy opatření obecné povahy", "ODPK-"),
        ("zákon o podpoře bydlení", "175/2025 Sb."),
    ):
        page.goto(search_url(served["url"], q=query))
        assert shown in page.locator("main").inner_text()
        links = page.locator("a[href^='/citator']")
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        statuses = {href: http.get(href).status_code for href in hrefs}
        assert all(status == 200 for status in statuses.values()), statuses
    assert hrefs  # an act's citation is a reference the citator knows: linked


# --- grouped, counted and paged ---------------------------------------------------------------------------------


def test_exact_reference_hits_never_repeat_a_passage(http):
    for query in ("20 Nd 234/2026", "ECLI:CZ:NS:2026:20.ND.234.2026.1", "§ 5 zákona č. 175/2025 Sb."):
        results = http.get("/search", params={"q": query, "k": 10}).json()["results"]
        chunk_ids = [r["chunk_id"] for r in results]
        assert len(chunk_ids) == len(set(chunk_ids)), query


def test_api_groups_counts_and_pages(http):
    first = http.get("/search", params={"q": PUBLIC_NOTICE, "k": 5, "group": "true"}).json()
    second = http.get("/search", params={"q": PUBLIC_NOTICE, "k": 5, "group": "true", "page": 2}).json()
    assert first["total"] == second["total"] > 10 and first["pages"] == second["pages"] >= 3
    groups = first["documents"] + second["documents"]
    assert len(groups) == 10 and len({g["doc_id"] for g in groups}) == 10
    for group in first["documents"]:
        assert 1 <= len(group["passages"]) <= 3 and all(p["doc_id"] == group["doc_id"] for p in group["passages"])
    flat = http.get("/search", params={"q": PUBLIC_NOTICE, "k": 5, "page": 2}).json()
    assert flat["page"] == 2 and len(flat["results"]) == 5 and flat["total"] >= 10


@pytest.mark.browser
def test_browser_results_grouped_by_document_with_a_total_and_pages(page, served, tmp_path):
    page.goto(search_url(served["url"], q="bydlení podpora nájemní", k="10"))
    cards = page.locator("li.card")
    docs_shown = [cards.nth(i).get_attribute("data-doc") for i in range(cards.count())]
    assert docs_shown and len(docs_shown) == len(set(docs_shown))  # one card a document
    first = page.locator("li.card", has_text="175/2025 Sb.").first
    assert first.locator("li.passage").count() >= 2  # its best passages under it
    heading = page.locator("h2#results-heading").inner_text()
    assert re.match(r"Výsledky 1–\d+ z \d+ dokument", heading), heading
    page.goto(search_url(served["url"], q=PUBLIC_NOTICE, k="10", source="boards"))
    page.get_by_role("link", name="Další strana").click()
    page.wait_for_url(re.compile(r"strana=2"))
    query = parse_qs(urlsplit(page.url).query)
    assert query["source"] == ["boards"] and query["q"] == [PUBLIC_NOTICE] and query["k"] == ["10"]
    assert page.locator("h2#results-heading").inner_text().startswith("Výsledky 11–")
    page.goto(search_url(served["url"], q="bydlení podpora nájemní", k="10"))
    page.evaluate("document.getElementById('results-heading').scrollIntoView()")
    screenshot(page, tmp_path, "grouped-results")


# --- links ------------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_browser_page_view_and_back_keep_the_search(page, served):
    params = {"q": PUBLIC_NOTICE, "obec": "Kadaň", "date_from": "2020-01-01", "k": "20"}
    page.goto(search_url(served["url"], **params))
    page.locator("li.card a", has_text="Zobrazit").first.click()
    page.wait_for_url(re.compile(r"/page\?"))
    view = parse_qs(urlsplit(page.url).query)
    assert all(view.get(name) == [value] for name, value in params.items()), view
    page.get_by_role("link", name="Zpět na výsledky").click()
    page.wait_for_url(re.compile(r"/\?"))
    back = parse_qs(urlsplit(page.url).query)
    assert {name: back.get(name) for name in params} == {name: [value] for name, value in params.items()}
    assert page.locator("#f-obec").input_value() == "Kadaň"


@pytest.mark.browser
def test_browser_source_links_resolve(page, served):
    page.goto(search_url(served["url"], q="podpora bydlení"))
    law = page.locator("li.card", has_text="175/2025 Sb.").first
    assert law.get_by_role("link", name="Na webu zdroje").get_attribute("href") == (
        "https://www.e-sbirka.cz" + MIRRORED_PATH
    )
    page.goto(search_url(served["url"], q="převzít písemnost", obec="Karviná"))
    karvina = page.locator("li.card")
    assert karvina.count() >= 1 and karvina.first.get_by_role("link", name="Na webu zdroje").count() == 0
    for url in (served["url"] + "/?q=podpora+bydlení", served["url"] + "/?q=převzít+písemnost&obec=Karviná"):
        page.goto(url)
        hrefs = page.locator("a[href]").evaluate_all("links => links.map(a => a.href)")
        outside = [h for h in hrefs if not h.startswith(served["url"])]
        assert not [h for h in outside if re.search(r"//(127\.0\.0\.1|localhost|[^/]*\.mirror\.test)[:/]", h)]


@pytest.mark.browser
def test_browser_word_boxes_are_whole_words(page, served):
    # "podpoře": PDFium gives the "ř" a rectangle of its own
    page.goto(served["url"] + "/page?" + str(httpx.QueryParams({"doc": MIRRORED_LAW, "page": 1, "q": "podpoře"})))
    page.locator(".page-frame img").wait_for()
    boxes = [page.locator(".box.term").nth(i).bounding_box() for i in range(page.locator(".box.term").count())]
    assert len(boxes) >= 2
    for a in boxes:
        for b in boxes:
            same_line = abs(a["y"] - b["y"]) < 0.5 * a["height"]
            touching = 0 <= b["x"] - (a["x"] + a["width"]) < 2.5
            assert not (a is not b and same_line and touching), "one word boxed in pieces"


@pytest.mark.browser
def test_browser_law_pages_footer_names_the_bundle(page, served):
    for path in ("/ustanoveni", "/citator", "/"):
        page.goto(served["url"] + path)
        footer = page.locator("footer.site").inner_text()
        assert f"sestava {served['version']}" in footer and "sestava —" not in footer, path
