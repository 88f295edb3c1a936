"""HTML boards (the maintained list): the board page is read with the board's rules (CSS or XPath: the rule set of
its site's CMS, or the list entry's own; a board whose CMS has none is not fetched and is logged as quarantined with
that reason — :func:`mendel.crawl.boards.cms_rules.apply_cms_rules`); each notice row becomes a notice document in
OFN form (``application/ld+json``, the fields the page shows, nothing invented) and its attachment links are fetched
like a feed's. A page without the board's list is quarantined (its layout changed), nothing withdrawn. An HTML board
of a publisher whose feed the run reads waits for that feed: its notices are the feed's (one document each).
"""

from __future__ import annotations

import hashlib
from urllib.parse import urljoin

from crawlers.items import FetchedDocument, NoticeLinks
from crawlers.spiders.boards.base import BoardCrawl
from crawlers.spiders.boards.exports import NOTICE_TYPES, OFN_CONTEXT
from crawlers.spiders.boards.notices import czech_text, notice_document
from mendel.crawl.boards.board import Board
from mendel.czech.dates import find_date, iso


def select(selector, rule: str):
    """A rule is CSS (parsel, with ::text / ::attr()) or, prefixed with ``xpath:``, XPath."""
    return selector.xpath(rule[6:]) if rule.startswith("xpath:") else selector.css(rule)


def first_text(selector, rule: str | None) -> str | None:
    if not rule:
        return None
    for value in select(selector, rule).getall():
        text = " ".join(str(value).split())
        if text:
            return text
    return None


def html_notice(row, rules: dict, base_url: str) -> dict | None:
    """One notice row of an HTML board → an OFN notice (only what the page shows); None without a title."""
    title = first_text(row, rules["title"])
    if not title:
        return None
    notice: dict = {"typ": list(NOTICE_TYPES)}
    href = first_text(row, rules.get("url"))
    if href:
        notice["url"] = urljoin(base_url, href)
    notice["název"] = {"cs": title}
    for key, rule in (("vyvěšení", "posted"), ("relevantní_do", "until")):
        day = iso(find_date(first_text(row, rules.get(rule))))  # ISO, d. m. yyyy or worded
        if day:
            notice[key] = {"typ": "Časový okamžik", "datum": day}
    for key, rule in (("číslo_jednací", "reference"), ("spisová_značka", "file_mark")):
        value = first_text(row, rules.get(rule))
        if value:
            notice[key] = value
    documents = []
    for link in select(row, rules["attachments"]) if rules.get("attachments") else []:
        url = first_text(link, rules.get("attachment_url") or "xpath:@href")
        if url:
            documents.append(
                {
                    "typ": "Digitální objekt",
                    "název": {
                        "cs": first_text(link, rules.get("attachment_name") or "xpath:normalize-space(.)")
                        or url.rsplit("/", 1)[-1]
                    },
                    "url": urljoin(base_url, url),
                }
            )
    if documents:
        notice["dokument"] = documents
    return notice


def html_notice_id(board: Board, notice: dict) -> str:
    """The notice's own page when the board links one; else the board page plus a digest of what identifies it."""
    if isinstance(notice.get("url"), str):
        return notice["url"]
    basis = "|".join(
        str(x)
        for x in (
            czech_text(notice.get("název")),
            notice.get("vyvěšení"),
            notice.get("číslo_jednací"),
            notice.get("spisová_značka"),
        )
    )
    return f"{board.url}#{hashlib.sha256(basis.encode('utf-8')).hexdigest()[:16]}"


class HtmlBoards(BoardCrawl):
    def board_page_meta(self, board: Board) -> dict:
        """Request meta for the board's page (a rendered board's: crawlers.spiders.boards.javascript)."""
        return {}

    def html_board_request(self, board: Board):
        return self.listing_request(
            self.fetch_url(board.url),
            self.parse_html_board,
            listing=board.url,
            meta=self.board_page_meta(board),
            cb_kwargs={"board": board},
            dont_filter=True,
        )

    def parse_html_board(self, response, board: Board):
        rules = board.rules
        if board.javascript:
            self.crawler.stats.inc_value("mendel/boards/javascript")
        else:
            self.crawler.stats.inc_value("mendel/boards/html")
        if not select(response, rules["board"]):
            yield self.reject_listing(response, f"board layout changed: {rules['board']!r} not on the page")
            return
        self.listing_read(board.url)
        feed = {
            "@context": OFN_CONTEXT,
            "stránka": board.url,
            "provozovatel": {"typ": "Osoba", "ičo": board.publisher_ico},
        }
        links = []
        for index, row in enumerate(select(response, rules["row"])):
            self.discovered += 1
            notice = html_notice(row, rules, board.url)
            if notice is None:
                yield self.outcome(
                    f"{board.url}#{index}",
                    "quarantined",
                    status=response.status,
                    reason=f"notice row {index} has no title ({rules['title']!r})",
                )
                continue
            doc = notice_document(feed, notice, index, board.url)
            doc["doc_id"] = html_notice_id(board, notice)
            if not notice.get("url"):
                doc["url"] = doc["doc_id"]
            known = self.notice_ids.get(doc["url"])
            owner = self.notice_owners.get(doc["url"])
            if known is not None and owner is not None and owner != board.url:
                # A notice another listing owns (a feed, in this run or an earlier one; or another board): that
                # document is the notice, the row only confirms it — the owner's body, attachments and links stay.
                self.listed(board.url, known[0])
                for attachment in doc["attachments"]:
                    self.listed(board.url, attachment["url"])
                yield self.outcome(
                    doc["url"], "unchanged", status=response.status, reason=f"the notice of {owner}: {known[0]}"[:500]
                )
                self.crawler.stats.inc_value("mendel/boards/notices_confirmed")
                if known[1] or owner in self.feed_boards:
                    self.crawler.stats.inc_value("mendel/boards/notices_from_feed")
                continue
            if known is not None:
                doc["doc_id"] = known[0]
            self.notice_ids[doc["url"]] = (doc["doc_id"], False)
            self.notice_owners[doc["url"]] = board.url
            doc["extra"]["board_key"] = board.key
            doc["extra"]["rules_from"] = board.rules_from  # "cms:{system}@{version}" or the list entry's own
            self.listed(board.url, doc["doc_id"])
            links.append((doc["doc_id"], [(a["url"], a["name"]) for a in doc["attachments"]]))
            yield FetchedDocument(
                source=self.source,
                doc_id=doc["doc_id"],
                url=doc["url"],
                body=doc["body"],
                content_type="application/ld+json",
                title=doc["title"],
                doc_type="notice",
                citation=doc["citation"],
                published=doc["published"],
                http_status=response.status,
                extra=doc["extra"],
                listing=board.url,
            )
            yield from self.attachment_requests(doc, board.url)
        if links:
            yield NoticeLinks(listing=board.url, links=links)
