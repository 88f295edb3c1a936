"""Site APIs (the maintained list's ``article_api`` sites: obec Blešno's, an Angular front end over a Spring REST
backend, tomkre/obec-blesno): article ids (``…/articles/ids?prefix=``) → each article's asset list
(``/articles/{id}/assets?type=references``) → its PDFs, ``doc_id`` = ``{site}:{article}/{file}``, ``doc_type``
``municipal_document``.

An article's asset list that answered within ``revalidate_days`` — each PDF it named has its document and answered
within the window, and nothing of it failed on its last try — is not read again (a request a second for each article
every night otherwise): it is logged unchanged without a status, and the PDFs it named still count as listed
(nothing withdrawn) and are logged not due (:meth:`SiteApiBoards.article_not_due`).
"""

from __future__ import annotations

from urllib.parse import quote, unquote, urljoin, urlsplit

from crawlers.items import FetchedDocument, ListingAnswered
from crawlers.spiders.base import media_type, response_header
from crawlers.spiders.boards.base import BoardCrawl
from mendel.crawl.boards.board import API_KEY_PREFIX, Board


class SiteApiBoards(BoardCrawl):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.files_seen: set[str] = set()  # PDF URLs an asset list named in this run
        self.quarantined: set[str] | None = None  # URLs that failed on their last try (read with the first index)
        self.quarantined_folders: set[str] = set()

    def article_index_request(self, board: Board):
        return self.listing_request(
            self.fetch_url(board.url),
            self.parse_article_ids,
            listing=board.url,
            cb_kwargs={"board": board},
            dont_filter=True,
        )

    def parse_article_ids(self, response, board: Board):
        self.crawler.stats.inc_value("mendel/boards/article_api")
        ids = response.json()
        if not isinstance(ids, list):
            yield self.reject_listing(response, "article ids are not a JSON list")
            return
        self.listing_read(board.url)
        base = urljoin(board.url, "/")
        articles = list(dict.fromkeys(a for a in ids if isinstance(a, str) and a))
        known = self.known_article_pdfs(board, articles)
        for article in articles:
            url = self.fetch_url(f"{base}articles/{quote(article)}/assets?type=references")
            not_due = self.article_not_due(board, url, known.get(article, []))
            if not_due is not None:
                yield from not_due
                continue
            yield self.listing_request(  # a listing: counted, never deferred
                url,
                self.parse_article_assets,
                listing=board.url,
                meta={"mendel_budget": "listing", "mendel_published": board.url},
                cb_kwargs={"board": board, "article": article},
            )

    def known_article_pdfs(self, board: Board, articles: list[str]) -> dict[str, list[tuple[str, str]]]:
        """Article → (doc_id, url) of the PDFs its asset list named when it was last read — the board's active
        documents ``{site}:{article}/{file}`` —, when the crawl revalidates (``revalidate_days``); else nothing."""
        if not self.revalidate_after or not articles:
            return {}
        prefix = board.key.removeprefix(API_KEY_PREFIX) + ":"
        if self.quarantined is None:
            self.quarantined = set(self.known.quarantined)
        self.quarantined_folders = {url.rsplit("/", 1)[0] for url in self.quarantined}
        names, known = set(articles), {}
        for doc_id, url in self.known.listing_documents.get(board.url, []):
            if not doc_id.startswith(prefix):
                continue
            rest = doc_id[len(prefix) :]
            # {article}/{file}: the longest article of the index the id starts with (an article id may hold "/")
            cuts = [i for i, char in enumerate(rest) if char == "/" and rest[:i] in names]
            if cuts:
                known.setdefault(rest[: cuts[-1]], []).append((doc_id, url))
        return known

    def article_not_due(self, board: Board, url: str, pdfs: list[tuple[str, str]]) -> list | None:
        """Whether an article's asset list is not due: it answered within ``revalidate_after`` — every PDF it named
        when last read has its document and answered within it (the list is read with them: it is due when the
        first of them is) — and neither the list nor a URL beside its PDFs failed on its last try (a PDF of the list
        that is no document yet). Then it is not read in this run: its outcome (unchanged, no status, the reason
        saying when it answered) and its PDFs' requests (logged not due, never sent) instead; its PDFs stay listed
        (the board's listing still names them: nothing is withdrawn). None when it is due."""
        quarantined = self.quarantined or set()
        if (
            not pdfs
            or url in quarantined
            or not all(self.known.not_due(pdf_url, self.revalidate_after) for _, pdf_url in pdfs)
            or any(pdf_url.rsplit("/", 1)[0] in self.quarantined_folders for _, pdf_url in pdfs)
        ):
            return None
        answered = min(self.known.confirmed[pdf_url] for _, pdf_url in pdfs)
        self.discovered += 1
        self.crawler.stats.inc_value("mendel/boards/article_lists_not_due")
        elements = [
            self.outcome(
                url,
                "unchanged",
                reason=(
                    f"not due: the article's asset list answered with its {len(pdfs)} PDF(s)"
                    f" {answered:%Y-%m-%d %H:%M} UTC; read again {self.revalidate_after.days} days after"
                ),
            )
        ]
        for doc_id, pdf_url in pdfs:
            self.listed(board.url, doc_id)
            self.files_seen.add(pdf_url)
            elements.append(self.document_request(pdf_url, self.parse_site_pdf))  # not due: logged, never sent
        return elements

    def parse_article_assets(self, response, board: Board, article: str):
        refs = response.json()
        if not isinstance(refs, list):
            yield self.reject_listing(response, "article assets are not a JSON list")
            return
        if self.quarantined and response.url in self.quarantined:
            # It failed on its last try and answers again: not held for a failed list any more (article_not_due).
            self.quarantined.discard(response.url)
            yield ListingAnswered(source=self.source, url=response.url)
        site = board.key.removeprefix(API_KEY_PREFIX)
        for ref in refs:
            if not isinstance(ref, dict) or not str(ref.get("name", "")).lower().endswith(".pdf"):
                continue
            url = self.fetch_url(response.urljoin(ref.get("url") or ""))
            if not ref.get("url") or url in self.files_seen:
                continue
            self.files_seen.add(url)
            file_name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or ref["name"]
            doc_id = f"{site}:{article}/{file_name}"
            self.listed(board.url, doc_id)
            yield self.document_request(  # an article's PDF: counted unless not due, never deferred
                url,
                self.parse_site_pdf,
                meta={"mendel_budget": "file", "mendel_published": board.url},
                cb_kwargs={"board": board, "doc_id": doc_id, "file": file_name},
            )

    def parse_site_pdf(self, response, board: Board, doc_id: str, file: str):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        if not response.body.startswith(b"%PDF"):
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"expected a PDF, got {media_type(response) or 'unknown type'}",
            )
            return
        yield FetchedDocument(
            source=self.source,
            doc_id=doc_id,
            url=response.url,
            body=response.body,
            content_type="application/pdf",
            # the file's own name is all the site calls it (its asset list gives nothing else), never a title built
            title=f"{file} ({board.name})" if board.name else file,
            doc_type="municipal_document",
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={"board_key": board.key},
            listing=board.url,
        )
