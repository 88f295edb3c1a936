"""An HTML board's notice row read by its rules: the fields the page shows, dates in any form, the notice's own id."""

from __future__ import annotations

from parsel import Selector

from crawlers.spiders.boards.html import html_notice, html_notice_id
from mendel.core.config import HTML_BOARDS_FILE
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards


def test_html_notice_from_rules_and_dates():
    rules = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "html:kadan-html").rules
    row = Selector(
        text="""<article class="oznameni"><h2><a href="/n/1">Oznámení  o
        veřejné vyhlášce</a></h2><dl><dt>Vyvěšeno</dt><dd>3. 2. 2025</dd><dt>Relevantní do</dt>
        <dd>nespecifikováno</dd><dt>Číslo jednací</dt><dd>MKA/1/2025</dd></dl>
        <ul class="prilohy"><li><a href="/f/1.pdf">příloha 1</a></li></ul></article>"""
    ).css("article")[0]
    notice = html_notice(row, rules, "http://kadan-html.mirror.test/deska/")
    assert notice == {
        "typ": ["Digitální objekt", "Informace na úřední desce"],
        "url": "http://kadan-html.mirror.test/n/1",
        "název": {"cs": "Oznámení o veřejné vyhlášce"},
        "vyvěšení": {"typ": "Časový okamžik", "datum": "2025-02-03"},
        "číslo_jednací": "MKA/1/2025",
        "dokument": [
            {"typ": "Digitální objekt", "název": {"cs": "příloha 1"}, "url": "http://kadan-html.mirror.test/f/1.pdf"}
        ],
    }
    board = Board(key="html:x", kind="html", url="http://x.cz/deska/")
    assert html_notice_id(board, notice) == "http://kadan-html.mirror.test/n/1"
    without_page = {k: v for k, v in notice.items() if k != "url"}
    assert html_notice_id(board, without_page).startswith("http://x.cz/deska/#")
    assert html_notice_id(board, without_page) == html_notice_id(board, dict(without_page))
    assert html_notice(Selector(text="<article></article>"), rules, "http://x.cz/") is None
