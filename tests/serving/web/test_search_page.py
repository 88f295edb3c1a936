"""The search page (``/``) and the page view (``/page``) over the tiny real bundle of tests/serving/web/test_api.py: first as
HTML (no browser), then driven in Debian's Chromium through Playwright — search, filter, the page image with the
evidence boxed on the text, the empty state, no JavaScript needed. Screenshots go to the test's tmp directory
(and to ``$MENDEL_SCREENSHOT_DIR`` when set: ``docs/screenshots`` holds the README's)."""

from __future__ import annotations

import copy
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from PIL import Image

from mendel.czech.analyzer import analyze
from serving.web.api import create_app
from tests.support.browser import screenshot
from tests.support.bundle import EMBEDDER, base_docs, build_bundle, load_corpus
from tests.support.web import TestClient, running_server

QUERY = "podpora bydlení vyhovující bydlení"
NOTHING = {"q": QUERY, "source": "nsoud", "act": "175/2025 Sb."}  # each value known, together no document
MISSING_ACT = "Co říká § 2079 občanského zákoníku o kupní smlouvě?"  # the civil code is not in the bundle
COURT_QUERY = "dovolání soud"


@pytest.fixture(scope="module")
def bundles_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("page")
    build_bundle(root / "bundles", base_docs(copy.deepcopy(load_corpus())))
    return root / "bundles"


@pytest.fixture(scope="module")
def client(bundles_dir) -> TestClient:
    return TestClient(create_app(bundles_dir, embedder=EMBEDDER, reload_interval=0))


# --- the HTML, without a browser -------------------------------------------------------------------------------


def test_page_is_czech_accessible_and_self_contained(client):
    html = client.get("/").text
    assert '<html lang="cs">' in html and 'method="get"' in html
    assert not re.search(r"""(?:src|href)=["']https?://""", html)  # no outside asset (result links are content)
    assert "<script" not in html  # works without JavaScript
    ids = set(re.findall(r'<label for="([^"]+)"', html))
    inputs = set(re.findall(r'<(?:input|select)[^>]* id="([^"]+)"', html))
    assert inputs and inputs <= ids, inputs - ids  # every control has a label
    assert client.get("/static/site.css").status_code == 200 and ":focus-visible" in client.get("/static/site.css").text


def test_results_mark_the_query_words(client):
    response = client.get("/", params={"q": QUERY})
    assert response.status_code == 200 and response.headers["content-language"] == "cs"
    cards = re.split(r'<li class="card" data-doc="[^"]+">', response.text)[1:]
    assert len(cards) == 5  # one a document: every document of this bundle answers
    first = cards[0]
    assert "Zákon o poskytování některých opatření v podpoře bydlení" in first and "175/2025 Sb." in first
    assert "Sbírka zákonů (e-Sbírka)" in first and "16. 6. 2025" in first and "ČÁST PRVNÍ" in first
    marked = re.findall(r"<mark>([^<]+)</mark>", first)
    assert marked and all(analyze(word)[0] in analyze(QUERY) for word in marked), marked  # the query's terms only
    assert "<mark>bydlení</mark>" in first
    assert 'href="/documents/eli/cz/sb/2025/175/original"' in first


def test_hostile_text_is_escaped(client):
    html = client.get("/", params={"q": "<script>alert(1)</script> bydlení"}).text
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_empty_state_is_honest(client):
    response = client.get("/", params=NOTHING)
    assert response.status_code == 200
    assert "Nic nenalezeno" in response.text and "s použitými filtry" in response.text
    assert '<li class="card"' not in response.text and "Hledat bez filtrů" in response.text


@pytest.mark.parametrize(
    "params, field",
    [
        ({"q": "   "}, "Dotaz"),
        ({"q": QUERY, "source": "cnb"}, "Zdroj"),
        ({"q": QUERY, "act": "1/1900 Sb."}, "Předpis nebo spisová značka"),
        ({"q": QUERY, "date_from": "2025-13-01"}, "Vydáno od"),
        ({"q": QUERY, "date_from": "2025-06-01", "date_to": "2025-01-01"}, "Vydáno od"),
    ],
)
def test_form_errors_are_shown_in_czech(client, params, field):
    response = client.get("/", params=params)
    assert response.status_code == 400 and 'role="alert"' in response.text
    assert f"{field}:" in response.text and '<li class="card"' not in response.text


def test_at_is_kept_and_applied(client):
    html = client.get("/", params={"q": QUERY, "at": "2025-07-01"}).text
    assert 'value="2025-07-01"' in html and "Filtr „Platné ke dni“" not in html and '<li class="card"' in html


def test_not_in_collection_notice(client):
    # The civil code is not in this bundle: the page says so above whatever it found, and that the hits are weak.
    html = client.get("/", params={"q": MISSING_ACT}).text
    notice = html.split('<div class="notice coverage" role="note">')[1].split("</div>")[0]
    assert "Není v kolekci" in notice and "89/2012 Sb." in notice and "tento předpis kolekce neobsahuje" in notice
    assert "odpovídají dotazu jen slabě" in html
    assert client.get("/search", params={"q": MISSING_ACT}).json()["coverage"]["missing"][0]["id"] == "89/2012 Sb."
    cited = client.get("/", params={"q": "kupní smlouva podle zákona č. 89/2012 Sb."}).text
    assert "cituje ho 1 úsek." in cited  # not a document here, but a passage cites it
    assert "Není v kolekci" not in client.get("/", params={"q": QUERY}).text


@pytest.mark.parametrize("question", ["Jak dlouhá může být zkušební doba?", "jak dlouha muze byt zkusebni doba"])
def test_governing_act_named_when_the_collection_lacks_it(client, question):
    # No act is named, but the labour code governs the question, and the bundle does not hold it.
    html = client.get("/", params={"q": question}).text
    notice = html.split('<div class="notice coverage" role="note">')[1].split("</div>")[0]
    assert "zákoník práce (262/2006 Sb.) – otázka (zkušební doba) se řídí tímto předpisem" in notice
    coverage = client.get("/search", params={"q": question}).json()["coverage"]
    (governing,) = [item for item in coverage["missing"] if item.get("governing")]
    assert governing["message"] == "zákoník práce (262/2006 Sb.) není v kolekci"
    assert coverage["governing_missing"] and coverage["weak"]
    held = client.get("/search", params={"q": "podpora bydlení pro žadatele"}).json()["coverage"]
    assert not held["governing_missing"]  # 175/2025 Sb. is in the bundle
    assert [i["id"] for i in held["named"] if i.get("governing")] == ["175/2025 Sb."]


def test_page_view_boxes_the_passage(client):
    html = client.get("/", params={"q": QUERY}).text
    link = re.search(r'<a href="(/page\?[^"]+)">Zobrazit stranu', html).group(1).replace("&amp;", "&")
    view = client.get(link)
    assert view.status_code == 200
    params = parse_qs(urlsplit(link).query)
    assert f'src="/documents/eli/cz/sb/2025/175/pages/{params["page"][0]}.png"' in view.text
    assert view.text.count('class="box passage"') >= 3 and view.text.count('class="box term"') >= 1
    assert "<mark>bydlení</mark>" in view.text and "Nalezený úsek" in view.text


def test_page_view_of_a_text_original_shows_the_passage(client):
    html = client.get("/", params={"q": "dovolání", "source": "nsoud"}).text
    link = re.search(r'<a href="(/page\?[^"]+)">Zobrazit úsek', html).group(1).replace("&amp;", "&")
    view = client.get(link)
    assert view.status_code == 200 and "Originál není PDF" in view.text and "<img" not in view.text
    assert client.get("/page", params={"doc": "/eli/cz/sb/1999/1"}).status_code == 404
    assert client.get("/page", params={"doc": "/eli/cz/sb/2025/175", "page": 500}).status_code == 404


def test_page_view_of_a_text_original_without_a_passage_shows_the_documents_text(client):
    """A document opened as a whole (the citator's link, a bare /page?doc=) whose original has no page image shows
    its text, not a promise of it."""
    html = client.get("/", params={"q": "dovolání", "source": "nsoud"}).text
    link = re.search(r'<a href="(/page\?[^"]+)">Zobrazit úsek', html).group(1).replace("&amp;", "&")
    doc = parse_qs(urlsplit(link).query)["doc"][0]
    view = client.get("/page", params={"doc": doc})
    text = re.sub(r"\s+", " ", view.text)
    assert (
        view.status_code == 200
        and "Originál není PDF" in text
        and '<h2 id="page-text-heading">Text dokumentu</h2>' in text
    )
    assert "dovolání" in text.split('<h2 id="page-text-heading">')[1] and "Zobrazeno prvních" not in text


def act_record_doc() -> dict:
    """The act metadata record of 175/2025 Sb. as the records stage renders it, from its e-Sbírka record's facts."""
    from datetime import date

    from mendel.records.act_metadata import act_metadata_pages

    act = {"citation": "175/2025 Sb.", "eli": "/eli/cz/sb/2025/175", "stale_url": "/sb/2025/175", "doc_type": "law"}
    act["title"] = "Zákon o poskytování některých opatření v podpoře bydlení"
    version = {"version": "2026-01-01", "version_eli": "/eli/cz/sb/2025/175/2026-01-01", "title": act["title"]}
    version.update(announced=date(2025, 6, 16), effective_from=date(2026, 1, 1), effective_to=None)
    version.update(version_number=1, amended_by=[], version_kind="consolidated")
    return {
        "doc_id": "act-metadata:/eli/cz/sb/2025/175",
        "title": "Zákon č. 175/2025 Sb. – údaje e-Sbírky (účinnost, znění, novely)",
        "source": "esbirka",
        "doc_type": "act_metadata",
        "citation": None,
        "url": "https://www.e-sbirka.cz/esel-esbir-daver/dokumenty-sbirky/%2Fsb%2F2025%2F175",
        "published": "2025-06-16",
        "pages": act_metadata_pages(act, [version], []),
        "record": "esbirka:/sb/2025/175",
        "record_sources": [{"doc_id": "/eli/cz/sb/2025/175", "url": act["stale_url"]}],
    }


def test_a_record_composed_from_a_sources_data_says_so_on_the_card_and_the_page(tmp_path):
    bundles = tmp_path / "bundles"
    build_bundle(bundles, base_docs(copy.deepcopy(load_corpus())) + [act_record_doc()])
    client = TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0))
    html = client.get("/", params={"q": "kdy nabyl účinnosti zákon o podpoře bydlení"}).text
    cards = {c.split('"', 1)[0]: c for c in html.split('<li class="card" data-doc="')[1:]}
    assert "sestavený Mendelem z údajů zdroje" in cards["act-metadata:/eli/cz/sb/2025/175"]
    assert "/eli/cz/sb/2025/175" in cards and "sestavený Mendelem" not in cards["/eli/cz/sb/2025/175"]
    page = client.get("/page", params={"doc": "act-metadata:/eli/cz/sb/2025/175"}).text
    assert "Text tohoto záznamu sestavil Mendel z údajů zdroje" in page and "Údaje e-Sbírky o předpisu" in page
    assert "sestavil Mendel" not in client.get("/page", params={"doc": "/eli/cz/sb/2025/175"}).text


def _chunk(seq: int, page: int, text: str, section: str = "") -> dict:
    return {
        "seq": seq,
        "page_start": page,
        "page_end": page,
        "char_start": seq * 10,
        "text": text,
        "section": section,
        "chunk_id": f"c{seq}",
    }


@pytest.mark.parametrize(
    "page, limit, texts, shown, total",
    [
        (1, 1000, ["první", "druhý"], 2, 2),  # in their order, whatever the rows' order
        (2, 1000, ["třetí"], 1, 1),  # only the page's
        (1, 6, ["první"], 1, 2),  # cut at the limit, and counted
        (9, 1000, [], 0, 0),
    ],
)
def test_a_documents_page_text_is_its_own_passages_in_order(page, limit, texts, shown, total):
    from types import SimpleNamespace

    from mendel.passages.act_passages import SEQ_BASE
    from serving.web.pages import page_text

    chunks = [
        _chunk(1, 1, "druhý"),
        _chunk(0, 1, "první"),
        _chunk(2, 2, "třetí"),
        _chunk(SEQ_BASE + 1, 1, "jiné znění"),
    ]
    searcher = SimpleNamespace(chunks=chunks, doc_chunks={"d": [0, 1, 2, 3]})
    found = page_text(searcher, "d", page, limit=limit)
    assert [p["text"] for p in found["passages"]] == texts  # never an act's other version's passage
    assert (found["shown"], found["total"]) == (shown, total)


# --- in Chromium -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_url(bundles_dir):
    with running_server(bundles_dir) as (url, _):
        yield url


@pytest.mark.browser
def test_browser_search(page, base_url, tmp_path):
    page.goto(base_url + "/")
    page.get_by_label("Co hledáte").fill(QUERY)
    page.get_by_label("Co hledáte").press("Enter")
    page.wait_for_url(re.compile(r"/\?q="))
    cards = page.locator("li.card")
    assert cards.count() == 5  # one a document
    first = cards.first
    assert "175/2025 Sb." in first.inner_text()
    assert first.locator("mark").count() >= 1 and first.locator("mark").first.inner_text().lower() == "bydlení"
    assert page.locator("h2#results-heading").inner_text().startswith("Výsledky")
    assert screenshot(page, tmp_path, "search").stat().st_size > 10_000


@pytest.mark.browser
def test_browser_filter_by_source(page, base_url):
    page.goto(base_url + "/?q=" + COURT_QUERY)
    page.locator("details.filters summary").click()
    page.get_by_label("Nejvyšší soud").check()
    page.get_by_role("button", name="Použít filtry").click()
    page.wait_for_url(re.compile(r"source=nsoud"))
    sources = page.locator("li.card article > dl.meta").all_inner_texts()
    assert sources and all("Nejvyšší soud" in text for text in sources)
    assert page.get_by_label("Nejvyšší soud").is_checked()  # the form keeps what was asked


@pytest.mark.browser
def test_browser_page_image_with_evidence_on_the_text(page, base_url, tmp_path):
    page.goto(base_url + "/?q=" + QUERY)
    page.locator("li.card").first.get_by_role("link", name=re.compile("Zobrazit stranu")).first.click()
    page.wait_for_url(re.compile(r"/page\?"))
    image = page.locator(".page-frame img")
    image.wait_for()
    assert page.evaluate("img => img.complete && img.naturalWidth", image.element_handle()) == 893
    frame = image.bounding_box()
    png = Image.open(io.BytesIO(page.request.get(base_url + image.get_attribute("src")).body())).convert("L")
    terms = page.locator(".box.term")
    assert terms.count() >= 1 and page.locator(".box.passage").count() >= 3
    for i in range(terms.count()):
        box = terms.nth(i).bounding_box()
        # every box lies on the image, and on ink: the page's pixels under it are text, not paper
        assert frame["x"] - 1 <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
        assert frame["y"] - 1 <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"] + 1
        scale = png.width / frame["width"]
        crop = png.crop(
            (
                int((box["x"] - frame["x"]) * scale),
                int((box["y"] - frame["y"]) * scale),
                int((box["x"] - frame["x"] + box["width"]) * scale) + 1,
                int((box["y"] - frame["y"] + box["height"]) * scale) + 1,
            )
        )
        assert min(crop.getdata()) < 100, f"term box {i} is over blank paper"
    assert page.locator(".passage-text mark").count() >= 1
    assert (
        page.get_by_role("link", name="Stáhnout originál").get_attribute("href")
        == "/documents/eli/cz/sb/2025/175/original"
    )
    screenshot(page, tmp_path, "page")


@pytest.mark.browser
def test_browser_empty_state(page, base_url, tmp_path):
    page.goto(base_url + "/?" + "&".join(f"{k}={v}" for k, v in NOTHING.items()))
    assert page.get_by_role("heading", name="Nic nenalezeno").is_visible()
    assert page.locator("li.card").count() == 0
    screenshot(page, tmp_path, "empty")


@pytest.mark.browser
def test_browser_not_in_collection(page, base_url, tmp_path):
    page.goto(base_url + "/")
    page.get_by_label("Co hledáte").fill(MISSING_ACT)
    page.get_by_role("button", name="Hledat").click()
    notice = page.locator(".notice.coverage")
    assert notice.is_visible() and "89/2012 Sb." in notice.inner_text()
    assert notice.bounding_box()["y"] < page.locator("li.card").first.bounding_box()["y"]  # said before the hits
    screenshot(page, tmp_path, "not-in-collection")


@pytest.mark.browser
def test_browser_without_javascript_and_with_the_keyboard(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(base_url + "/")
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent") == "Přejít na obsah"  # the skip link first
        for _ in range(6):  # then the site's name and the header's three page links, then the query box
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.id") == "f-q":
                break
        focused = page.evaluate(
            "() => [document.activeElement.id, getComputedStyle(document.activeElement)"
            ".outlineStyle, getComputedStyle(document.activeElement).outlineWidth]"
        )
        assert focused == ["f-q", "solid", "3px"]  # a visible focus outline
        page.keyboard.type("bydlení")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"q=bydlen"))
        assert page.locator("li.card").count() >= 3
    finally:
        context.close()


def test_page_says_search_is_not_ready_without_a_bundle(tmp_path):
    page = TestClient(create_app(tmp_path / "bundles", embedder=EMBEDDER, reload_interval=0)).get("/")
    assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
    assert "Vyhledávání zatím není připravené" in page.text


# --- search in force: an act hit's version on the page (the real 573/2025 Sb. versions) ----------------------

IN_FORCE_QUERY = "průměrná cena benzinu automobilového 95 oktanů za 1 litr"


@pytest.fixture(scope="module")
def in_force_client(indexed) -> TestClient:
    return TestClient(create_app(indexed["home"] / "bundles", embedder=indexed["embedder"], reload_interval=0))


def section_4_card(html: str) -> str:
    """The act's § 4 passage on the act's card."""
    card = html.split('<li class="card" data-doc="/eli/cz/sb/2025/573">')[1].split('<li class="card"')[0]
    # the section path ends in the provision, after the headings above it ("Výše stravného &gt; § 4")
    return next(
        p for p in re.findall(r'<li class="passage">.*?</li>', card, re.S) if re.search(r"<dd>[^<]*§ 4</dd>", p)
    )


@pytest.mark.e2e
def test_act_card_shows_its_version_on_the_date(in_force_client):
    html = in_force_client.get("/", params={"q": IN_FORCE_QUERY, "at": "2026-11-15"}).text
    assert 'value="2026-11-15"' in html and "Filtr „Platné ke dni“" not in html
    card = section_4_card(html)
    assert "41,80" in card and "konsolidované znění <code>/eli/cz/sb/2025/573/2026-10-01</code>" in card
    assert '<dt>Účinnost</dt><dd>od <time datetime="2026-10-01">1. 10. 2026</time></dd>' in card
    assert 'class="badge' not in card
    march = section_4_card(in_force_client.get("/", params={"q": IN_FORCE_QUERY, "at": "2026-03-01"}).text)
    assert "34,70" in march and "vyhlášené znění <code>/eli/cz/sb/2025/573/2026-01-01</code>" in march
    assert '<time datetime="2026-01-01">1. 1. 2026</time> – <time datetime="2026-05-31">31. 5. 2026</time>' in march


@pytest.mark.e2e
def test_act_card_badges_not_yet_in_force_and_superseded(in_force_client):
    early = section_4_card(in_force_client.get("/", params={"q": IN_FORCE_QUERY, "at": "2025-12-20"}).text)
    assert '<strong class="badge status-not_yet_in_force">Dosud neúčinné</strong>' in early
    html = in_force_client.get("/", params={"q": IN_FORCE_QUERY, "at": "2026-11-15", "version": "promulgated"}).text
    assert re.search(r'<input id="f-version" name="version" type="checkbox" value="promulgated" checked', html)
    assert "ve vyhlášeném znění (bez pozdějších změn)" in html
    card = section_4_card(html)
    assert "34,70" in card and "41,80" not in card
    assert '<strong class="badge status-superseded">Již neúčinné znění</strong>' in card


@pytest.mark.e2e
def test_unknown_version_is_a_form_error(in_force_client):
    response = in_force_client.get("/", params={"q": IN_FORCE_QUERY, "version": "newest"})
    assert response.status_code == 400 and "Znění: Neznámé znění." in response.text


@pytest.fixture(scope="module")
def in_force_url(indexed):
    with running_server(indexed["home"] / "bundles") as (url, _):
        yield url


@pytest.mark.e2e
@pytest.mark.browser
def test_browser_page_view_shows_the_version_the_passage_is_from(page, in_force_url, tmp_path):
    """§ 4 in the version of 1. 10. 2026 (41,80 Kč): the stored PDF is the promulgated text (34,70 Kč), so its page
    is not shown as the passage's page; the page says so and shows the version's text, and the way back keeps the
    date."""
    page.goto(in_force_url + "/?" + urlencode({"q": IN_FORCE_QUERY, "at": "2026-11-15"}))
    passage = page.locator("li.card, li.passage").filter(has_text="41,80").last  # the passage's own link
    passage.get_by_role("link", name=re.compile("Zobrazit")).first.click()
    page.wait_for_url(re.compile(r"/page\?"))
    notice = page.locator(".notice.version")
    assert notice.is_visible() and "/eli/cz/sb/2025/573/2026-10-01" in notice.inner_text()
    assert "vyhlášené znění" in notice.inner_text()
    assert page.locator(".page-frame img").count() == 0  # no page of another version passed off as this one's
    assert "41,80" in page.locator(".passage-text").inner_text()
    screenshot(page, tmp_path, "page-version")
    page.get_by_role("link", name="Zpět na výsledky").click()
    page.wait_for_url(re.compile(r"/\?"))
    assert parse_qs(urlsplit(page.url).query).get("at") == ["2026-11-15"]
    assert page.get_by_label("Platné ke dni").input_value() == "2026-11-15"


@pytest.mark.e2e
@pytest.mark.browser
def test_browser_page_view_of_the_promulgated_passage_shows_its_page(page, in_force_url):
    page.goto(in_force_url + "/?" + urlencode({"q": IN_FORCE_QUERY, "at": "2026-03-01"}))
    passage = page.locator("li.card, li.passage").filter(has_text="34,70").last
    passage.get_by_role("link", name=re.compile("Zobrazit")).first.click()
    page.wait_for_url(re.compile(r"/page\?"))
    assert page.locator(".page-frame img").count() == 1 and page.locator(".notice.version").count() == 0


@pytest.mark.parametrize(
    "item, said",
    [
        (  # the amending act's citation ends the sentence with its own full stop
            {
                "text": "zákoník práce",
                "id": "262/2006 Sb.",
                "governing": True,
                "area": "skončení pracovního poměru",
                "kind": "act",
                "status": "cited",
                "cited_in": 155,
                "amended_by": [{"citation": "120/2025 Sb."}],
            },
            "které ho mění: 120/2025 Sb.",
        ),
        (
            {"text": "§ 2079 občanského zákoníku", "id": "89/2012 Sb.", "kind": "act", "status": "absent"},
            "tento předpis kolekce neobsahuje.",
        ),
        ({"text": "I. ÚS 2/95", "kind": "decision", "status": "record"}, "ne text rozhodnutí."),
    ],
)
def test_a_missing_item_is_one_sentence_with_one_full_stop(item, said):
    from serving.web.pages import templates

    line = str(templates.get_template("not_in_collection.html").module.not_in_collection(item))
    assert line.endswith(said) and ".." not in line


def test_a_question_asking_for_case_law_shows_the_decisions_first_and_says_so(client):
    note = "Dotaz se ptá na judikaturu"
    asked = client.get("/search", params={"q": "judikatura k dovolání", "k": 50}).json()
    kinds = [hit["kind"] for hit in asked["results"]]
    assert {"decision", "law"} <= set(kinds) and kinds == sorted(kinds, key=lambda kind: kind != "decision")
    assert asked["coverage"]["case_law"] is True and note in client.get("/", params={"q": "judikatura k dovolání"}).text
    plain = client.get("/search", params={"q": "dovolání", "k": 50}).json()
    assert "case_law" not in plain["coverage"] and note not in client.get("/", params={"q": "dovolání"}).text
