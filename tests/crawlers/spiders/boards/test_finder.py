"""The board finder spider on pages as the mirror serves them (``mirror/municipal_sites.py``: real notices in
mirror-made pages), called directly: each site ends in one candidate with its outcome, reason and evidence."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, Response
from scrapy.utils.test import get_crawler

from crawlers.items import BoardCandidate
from crawlers.spiders.boards.finder import BoardFinderSpider, page_signs
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.finding import BoardLink
from mirror.municipal import CMS_LAYOUTS, cms_board_notices
from mirror.municipal_sites import SITES_BY_HOST, home_page, redesigned_page


def spider() -> BoardFinderSpider:
    return BoardFinderSpider.from_crawler(get_crawler(BoardFinderSpider))


def page(url: str, text: str) -> HtmlResponse:
    return HtmlResponse(url, body=text.encode("utf-8"), encoding="utf-8", request=Request(url))


def site_of(host: str, **extra) -> dict:
    return {"list_key": f"test:{host}", "site": SITES_BY_HOST[host].board.site, "start_url": f"http://{host}/", **extra}


def board_page(host: str) -> str:
    board = SITES_BY_HOST[host].board
    return CMS_LAYOUTS[board.layout](board.edesky_name, cms_board_notices(SAMPLE_CORPUS, board))


def test_the_home_page_leads_to_the_labelled_board():
    (request,) = spider().parse_start(
        page("http://prerov.mirror.test/", home_page(SITES_BY_HOST["prerov.mirror.test"])),
        site_of("prerov.mirror.test"),
    )
    link = request.cb_kwargs["link"]
    assert (link.url, link.how, link.label) == (
        "http://prerov.mirror.test/uredni-deska/",
        "label+address",
        "Úřední deska",
    )
    assert request.cb_kwargs["home"][0].generator == "Public4u"


@pytest.mark.parametrize(
    "host, text, outcome, cms, reason",
    [
        ("prerov.mirror.test", None, "confirmed", "public4u", "16 of 16 rows read with a title and a posting date"),
        ("nyrsko.mirror.test", None, "confirmed", "sumavanet", "6 of 6 rows read with a title and a posting date"),
        ("ostrava.mirror.test", None, "no_rule_set", "plone", "no rule set for its CMS Plone (plone)"),
        (
            "turnov.mirror.test",
            "redesigned",
            "layout_unknown",
            "public4u",
            "the Public4u (as4u.cz, s.r.o.) rule set's board list 'div#uredni-deska table.seznam-dokumentu' is not on "
            "the page: its layout changed or is another",
        ),
    ],
)
def test_a_board_page_read_with_its_cmss_rule_set(host, text, outcome, cms, reason):
    if text == "redesigned":
        board = SITES_BY_HOST[host].board
        text = redesigned_page(board.edesky_name, cms_board_notices(SAMPLE_CORPUS, board))
    link = BoardLink(f"http://{host}/uredni-deska/", "label+address", "Úřední deska")
    (candidate,) = spider().parse_board(page(link.url, text or board_page(host)), site_of(host), link, [])
    assert isinstance(candidate, BoardCandidate)
    assert (candidate.outcome, candidate.cms, candidate.reason) == (outcome, cms, reason)
    assert candidate.board_url == link.url and 0 < candidate.confidence <= 1


def test_a_known_board_page_is_read_where_it_is():
    host = "nyrsko.mirror.test"
    url = f"http://{host}/uredni-deska/"
    (candidate,) = spider().parse_start(page(url, board_page(host)), site_of(host, start_url=url, known_board=True))
    assert (candidate.outcome, candidate.evidence["link"], candidate.notices_dated) == ("confirmed", "known", 6)


def test_a_home_page_without_a_board_link_and_a_page_that_is_not_html():
    host = "prerov.mirror.test"
    no_link = "<html><body><nav><a href='/kontakty/'>Kontakty</a><a href='/pametni-deska/'>Pamětní deska</a></nav></body></html>"
    (candidate,) = spider().parse_start(page(f"http://{host}/", no_link), site_of(host))
    assert candidate.outcome == "no_board_link" and "none of the 2 links" in candidate.reason
    pdf = Response(f"http://{host}/", body=b"%PDF-1.4", headers={"Content-Type": "application/pdf"})
    (candidate,) = spider().parse_start(pdf, site_of(host))
    assert candidate.outcome == "unreachable" and candidate.reason.startswith("not an HTML page")


def test_page_signs_read_generator_author_and_footer_credits():
    home = home_page(SITES_BY_HOST["opatovice.mirror.test"])
    signs = page_signs(page("http://opatovice.mirror.test/", home))
    assert signs.generator == "" and "Antee s.r.o." in signs.footer and "antee.cz" in signs.footer
