"""The people-facing pages over the law API: the wording of § 4 of vyhláška 573/2025 Sb. on three dates and before
it took effect, and the citator's page for § 105 of the občanský soudní řád, amended by 176/2025 Sb. and cited by
two Nejvyšší soud decisions — over the real crawl of the bundled corpus (tests/support/law.py)."""

from __future__ import annotations

import re
from datetime import date
from urllib.parse import unquote

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from serving.web.law_pages import law_pages_router, word_changes
from serving.web.pages import czech_date
from tests.support.browser import screenshot
from tests.support.law import cited_database

REF = "§ 4 vyhlášky č. 573/2025 Sb."
ACT = "/eli/cz/sb/2025/573"
CRAWLS = [
    ("esbirka", {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/176,/sb/2025/573"}),
    ("nsoud", {"MENDEL_NSOUD_FROM": "2026-06-05", "MENDEL_NSOUD_TO": "2026-06-05"}),
]


@pytest.fixture(scope="module")
def database(pg_server_url, tmp_path_factory) -> str:
    return cited_database(pg_server_url, tmp_path_factory.mktemp("law-pages-home"), CRAWLS)


@pytest.fixture(scope="module")
def client(database) -> TestClient:
    app = FastAPI()
    app.include_router(law_pages_router(database))
    return TestClient(app)


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.e2e
def test_three_dates_show_the_three_wordings_and_the_changed_letter(client):
    march, july, november = (
        client.get("/ustanoveni", params={"ref": REF, "at": at}) for at in ("2026-03-01", "2026-07-01", "2026-11-01")
    )
    for page in (march, july, november):
        assert page.status_code == 200 and '<html lang="cs">' in page.text
        assert '<label for="f-ref">' in page.text and '<label for="f-at">' in page.text
    assert f"<code>{ACT}/2026-01-01</code>" in march.text and "žádná (původní znění)" in march.text
    assert "toto je první (původní) znění" in march.text and "<ins>" not in march.text
    assert "34,10 Kč za 1 litr motorové nafty" in march.text
    # June: § 4 písm. c) 34,10 -> 44,50, marked in place
    assert f"<code>{ACT}/2026-06-01</code>" in july.text and "1. 6. 2026" in text_of(july.text)
    assert "<del>34,10</del>" in july.text and "<ins>44,50</ins>" in july.text
    assert "<strong>§ 4 písm. c)</strong>" in july.text and "<strong>§ 4 písm. a)</strong>" not in july.text
    # October: § 4 písm. a) 34,70 -> 41,80, by 175/2026 Sb.
    assert "<del>34,70</del>" in november.text and "<ins>41,80</ins>" in november.text
    assert "<strong>§ 4 písm. a)</strong>" in november.text and "<del>34,10</del>" not in november.text
    assert ">175/2026 Sb.</a>" in november.text and "dosud" in text_of(november.text)


@pytest.mark.e2e
def test_a_date_before_the_act_took_effect_says_not_yet_in_force(client):
    early = client.get("/ustanoveni", params={"ref": REF, "at": "2025-12-30"})
    assert early.status_code == 200
    assert "ke dni 30. 12. 2025 ještě nebyl účinný: účinnosti nabývá dnem 1. 1. 2026" in text_of(early.text)
    assert "<h3>Text</h3>" not in early.text
    missing = client.get("/ustanoveni", params={"ref": "§ 7 vyhlášky č. 573/2025 Sb.", "at": "2026-07-01"})
    assert missing.status_code == 200 and "ustanovení § 7 neobsahuje" in text_of(missing.text)


@pytest.mark.e2e
def test_a_day_after_the_last_check_says_the_wording_is_as_the_source_gave_it_then(client, database):
    from mendel.citator.wording import provision_at

    with psycopg.connect(database) as conn:
        later = provision_at(conn, REF, date(2099, 1, 1))
        checked = conn.execute("SELECT max(checked_at) FROM act_versions WHERE doc_id = %s", (ACT,)).fetchone()[0]
        before = provision_at(conn, REF, date(2026, 11, 1))  # in force then, and checked since
    assert later["status"] == "in_force" and later["known_as_of"] == checked.date().isoformat()
    assert "known_as_of" not in before
    page = text_of(client.get("/ustanoveni", params={"ref": REF, "at": "2099-01-01"}).text)
    assert f"jak ho e-Sbírka uváděla při poslední kontrole {czech_date(checked.date())}" in page
    assert "poslední kontrole" not in text_of(client.get("/ustanoveni", params={"ref": REF, "at": "2026-11-01"}).text)


@pytest.mark.e2e
def test_an_act_stored_only_in_later_wordings_is_never_said_original(client, database):
    # 573/2025 stored as a consolidated wording, without its promulgated PDF: its first stored version is no
    # longer known to be the original, nor its first day the act's commencement
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("UPDATE documents SET doc_type = 'law_consolidated' WHERE doc_id = %s", (ACT,))
        try:
            early = text_of(client.get("/ustanoveni", params={"ref": REF, "at": "2025-12-30"}).text)
            march = client.get("/ustanoveni", params={"ref": REF, "at": "2026-03-01"}).text
            before = text_of(client.get("/ustanoveni", params={"ref": REF, "at": "2025-06-01"}).text)
        finally:
            conn.execute("UPDATE documents SET doc_type = 'law' WHERE doc_id = %s", (ACT,))
    assert "účinné ke dni 30. 12. 2025 kolekce nemá: nejstarší uložené znění je účinné od 1. 1. 2026" in early
    assert "ještě nebyl účinný" not in early
    assert "původní" not in march.replace("ne nutně původní", "") and "zdroj novelu neuvádí" in march
    assert "Předchozí znění kolekce nemá" in march and "Text předpisu v kolekci (konsolidované znění)" in march
    assert "ještě neexistoval (vyhlášen byl 22. 12. 2025); nejstarší uložené znění je z 1. 1. 2026" in before


@pytest.mark.e2e
def test_provision_form_errors_are_shown_in_the_page(client):
    blank = client.get("/ustanoveni")
    assert blank.status_code == 200 and 'action="/ustanoveni"' in blank.text and "<h3>Text</h3>" not in blank.text
    bad_date = client.get("/ustanoveni", params={"ref": REF, "at": "včera"})
    assert bad_date.status_code == 400 and "RRRR-MM-DD" in bad_date.text and 'aria-invalid="true"' in bad_date.text
    nothing = client.get("/ustanoveni", params={"ref": "nic takového", "at": "2026-01-01"})
    assert nothing.status_code == 400 and "nenazývá žádný předpis" in nothing.text
    unknown = client.get("/ustanoveni", params={"ref": "§ 1 zákona č. 1/2099 Sb.", "at": "2026-01-01"})
    assert unknown.status_code == 404 and "1/2099 Sb." in unknown.text


@pytest.mark.e2e
def test_the_citator_lists_acts_and_decisions_newest_first_with_sentence_and_page(client):
    page = client.get("/citator", params={"ref": "§ 105 zákona č. 99/1963 Sb."})
    assert page.status_code == 200 and '<html lang="cs">' in page.text
    acts = page.text.index('id="family-acts"')
    decisions = page.text.index('id="family-decisions"')
    assert ">176/2025 Sb.</a>" in page.text[acts:decisions]
    assert "20 Nd 234/2026" in page.text[decisions:] and "33 Nd 232/2026" in page.text[decisions:]
    assert "105" in text_of(page.text[acts:decisions].split('class="passages"')[1])  # the citing sentence
    assert re.search(r'href="/page\?doc=[^"]+&amp;page=\d+">strana \d+</a>', page.text)
    dates = re.findall(r'<time datetime="([0-9-]+)"', page.text[decisions:])
    assert len(dates) == 2 and dates == sorted(dates, reverse=True)


@pytest.mark.e2e
def test_citator_empty_and_error_states(client):
    none = client.get("/citator", params={"ref": "§ 1 zákona č. 1/2099 Sb."})
    assert none.status_code == 200 and "necituje" in none.text and 'class="card"' not in none.text
    bad = client.get("/citator", params={"ref": "nic"})
    assert bad.status_code == 400 and "Nerozpoznaná citace" in bad.text
    empty = client.get("/citator", params={"ref": "  "})
    assert empty.status_code == 400 and 'aria-invalid="true"' in empty.text


@pytest.mark.e2e
@pytest.mark.parametrize(
    "ref, said, linked",
    [
        ("§ 4 vyhlášky č. 573/2025 Sb.", "Předpis 573/2025 Sb. v kolekci:", ACT),  # cited or not, it is here
        ("§ 105 zákona č. 99/1963 Sb.", "Předpis 99/1963 Sb. v kolekci není.", None),  # cited, never crawled
        ("20 Nd 234/2026", "Rozhodnutí 20 Nd 234/2026 v kolekci:", "ECLI:CZ:NS:2026:20.ND.234.2026.1"),  # cited by none
        ("21 Cdo 1234/2020", "Rozhodnutí 21 Cdo 1234/2020 v kolekci není.", None),
    ],
)
def test_the_citator_says_whether_what_is_cited_is_itself_in_the_collection(client, ref, said, linked):
    page = client.get("/citator", params={"ref": ref})
    stored = page.text.split('class="stored">')[1].split("</p>")[0]
    assert page.status_code == 200 and text_of(stored).strip().startswith(said)
    link = re.search(r'href="/page\?doc=([^"&]+)"', stored)
    assert (link and unquote(link[1])) == (linked or None)


@pytest.mark.e2e
def test_the_citator_points_from_a_shared_form_to_the_code_it_replaced(client):
    """ "§ 140 tr. zák." is the criminal code of 2009 by the acts table and that of 1961 in the decisions of before
    2010: the page says so and links the older code's provision, with its count."""
    shared = text_of(client.get("/citator", params={"ref": "§ 140 tr. zák."}).text)
    assert "rozhodnutí vydaná před 1. 1. 2010 předchozí předpis: § 140 140/1961 Sb. (0 dokumentů, 0 citací)" in shared
    assert "předchozí předpis" not in client.get("/citator", params={"ref": "§ 140 trestního zákoníku"}).text


def test_word_changes_mark_what_was_removed_and_added():
    assert word_changes("c) 34,10 Kč za litr", "c) 44,50 Kč za litr") == [
        ("c)", "same"),
        ("34,10", "del"),
        ("44,50", "ins"),
        ("Kč za litr", "same"),
    ]


# In Debian's Chromium, as a person uses them: the form filled and sent, the marked change seen.
@pytest.fixture(scope="module")
def law_base_url(client):
    import threading

    import uvicorn

    from tests.support.wait import wait_for

    server = uvicorn.Server(uvicorn.Config(client.app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started, timeout=30)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.e2e
@pytest.mark.browser
def test_browser_provision_on_a_date_marks_the_changed_letter(browser, law_base_url, tmp_path):
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="cs-CZ")
    page = context.new_page()
    try:
        page.goto(law_base_url + "/ustanoveni")
        page.get_by_label("Ustanovení nebo předpis").fill(REF)
        page.get_by_label("Ke dni").fill("2026-07-01")
        page.get_by_role("button", name="Zobrazit").click()
        page.wait_for_url(re.compile(r"/ustanoveni\?ref="))
        assert page.locator("del", has_text="34,10").first.is_visible()
        assert page.locator("ins", has_text="44,50").first.is_visible()
        screenshot(page, tmp_path, "provision-at-a-date")
    finally:
        context.close()


@pytest.mark.e2e
@pytest.mark.browser
def test_browser_citator_lists_the_citing_decisions(browser, law_base_url, tmp_path):
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="cs-CZ")
    page = context.new_page()
    try:
        page.goto(law_base_url + "/citator")
        page.get_by_label("Ustanovení, předpis, spisová značka nebo ECLI").fill("§ 105 zákona č. 99/1963 Sb.")
        page.get_by_role("button", name="Hledat citace").click()
        page.wait_for_url(re.compile(r"/citator\?ref="))
        assert page.locator("#family-decisions").is_visible()
        assert page.get_by_text("20 Nd 234/2026").first.is_visible()
        assert page.get_by_text("33 Nd 232/2026").first.is_visible()
        screenshot(page, tmp_path, "citator")
    finally:
        context.close()


def czech_count(n: int, one: str, few: str, other: str) -> str:
    from babel import Locale

    return f"{n} " + {"one": one, "few": few}.get(Locale.parse("cs").plural_form(n), other)


@pytest.mark.e2e
@pytest.mark.browser
def test_browser_citator_counts_in_czech_plurals(browser, law_base_url):
    context = browser.new_context(locale="cs-CZ")
    page = context.new_page()
    try:
        page.goto(law_base_url + "/citator?ref=" + "§ 105 zákona č. 99/1963 Sb.")
        heading = page.locator("h2#results-heading").inner_text()
        numbers = [int(n) for n in re.findall(r"\d+(?= (?:dokument|citac))", heading)]
        documents, citations = numbers
        expected = f"{czech_count(documents, 'dokument', 'dokumenty', 'dokumentů')}, " + czech_count(
            citations, "citace", "citace", "citací"
        )
        assert heading.endswith(expected), heading
        family = page.locator("#family-decisions .count").inner_text()
        decisions = int(re.search(r"\d+", family).group())
        assert czech_count(decisions, "dokument", "dokumenty", "dokumentů") in family, family
    finally:
        context.close()
