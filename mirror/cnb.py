"""Česká národní banka (www.cnb.cz) for the local mirror: the four regulatory listing pages, from the real index of
ČNB sources in ``cnb/coverage.json`` and ``cnb/ingest-state.json``.

The corpus has no ČNB documents, only that index: the listings link the real document URLs, with titles and years
DERIVED from the URLs' file names (the index has no titles). A listed document is answered with real bytes only
when ``cnb/documents/`` has a file of that name, and is 404 otherwise.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from .responses import FileDigests, Response, file_response, html_response

SITE = "https://www.cnb.cz"
BENCHMARKS_ID = "CNB_DOHLEDOVE_BENCHMARKY"
ENFORCEMENT_ID = "CNB_ENFORCEMENT"
KIND_TITLES = {
    "dohledovy_benchmark": "Dohledový benchmark",
    "dohledove_sdeleni": "Dohledové sdělení",
    "dohledove-sdeleni": "Dohledové sdělení",
    "informace-dohledu": "Informace dohledu",
}
MIME = {".pdf": "application/pdf", ".html": "text/html; charset=utf-8"}


@dataclass(frozen=True)
class ListedDocument:
    url: str  # the real absolute URL
    title: str
    year: int | None
    category: str

    @property
    def path(self) -> str:
        return urlsplit(self.url).path


@dataclass(frozen=True)
class Listing:
    source_id: str
    name: str
    description: str
    url: str
    documents: tuple[ListedDocument, ...]

    @property
    def path(self) -> str:
        return urlsplit(self.url).path


def title_from_url(url: str) -> tuple[str, int | None]:
    """(title, year) from a document URL's file name or slug; the name as written when no pattern fits."""
    name = PurePosixPath(urlsplit(url).path.rstrip("/")).name
    stem = re.sub(r"\.pdf$", "", name)
    m = re.match(r"^(dohledovy_benchmark|dohledove_sdeleni)_(\d{4})_(\d{2})$", stem)
    if m:
        return f"{KIND_TITLES[m.group(1)]} č. {int(m.group(3))}/{m.group(2)}", int(m.group(2))
    m = re.match(r"^(dohledove-sdeleni|informace-dohledu)-c\.-(\d+)-(\d{4})-(.+)$", stem)
    if m:
        rest = m.group(4).replace("-", " ")
        return f"{KIND_TITLES[m.group(1)]} č. {m.group(2)}/{m.group(3)} – {rest}", int(m.group(3))
    return stem.replace("-", " ").replace("_", " "), None


def load_listings(corpus_root: Path) -> list[Listing]:
    base = Path(corpus_root) / "cnb"
    coverage_path, state_path = base / "coverage.json", base / "ingest-state.json"
    if not coverage_path.exists():
        return []
    coverage = json.loads(coverage_path.read_text(encoding="utf-8"))
    state = json.loads(state_path.read_text(encoding="utf-8")) if state_path.exists() else {}
    listings = []
    for book in coverage.get("sourcebooks", []):
        url = book.get("source_url") or ""
        if not url.startswith(SITE):
            continue
        if book.get("id") == BENCHMARKS_ID:
            urls = state.get("completedBenchmarkUrls", [])
        elif book.get("id") == ENFORCEMENT_ID:
            urls = [u for u in state.get("completedEnforcementUrls", []) if u.rstrip("/") != url.rstrip("/")]
        else:
            urls = []
        documents = tuple(ListedDocument(u, *title_from_url(u), book["id"]) for u in urls if u.startswith(SITE))
        listings.append(Listing(book["id"], book.get("name") or "", book.get("description") or "", url, documents))
    return listings


class CnbSite:
    @staticmethod
    def holds_documents(corpus_root: Path) -> bool:
        """Whether the corpus has bytes for any listed document (the crawl checks' "no documents in the demo")."""
        files_dir = Path(corpus_root) / "cnb" / "documents"
        return files_dir.is_dir() and any(p.is_file() for p in files_dir.iterdir())

    def __init__(self, corpus_root: Path, digests: FileDigests):
        self.corpus_root = Path(corpus_root)
        self.digests = digests
        self.listings = {listing.path: listing for listing in load_listings(self.corpus_root)}
        self.documents = {d.path: d for listing in self.listings.values() for d in listing.documents}
        self.files_dir = self.corpus_root / "cnb" / "documents"
        self._mtime = max((p.stat().st_mtime for p in (self.corpus_root / "cnb").glob("*.json")), default=None)

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        listing = self.listings.get(path) or self.listings.get(path + "/")
        if listing is not None:
            return self.listing_page(listing)
        document = self.documents.get(path)
        if document is not None:
            return self.document(document)
        return None

    def listing_page(self, listing: Listing) -> Response:
        items = []
        for d in listing.documents:
            date = f' <span class="date">{d.year}</span>' if d.year else ""
            items.append(
                f'<li data-category="{html.escape(d.category)}"><a href="{html.escape(d.path)}">'
                f"{html.escape(d.title)}</a>{date}</li>"
            )
        if items:
            content = '<ul class="document-list">\n' + "\n".join(items) + "\n</ul>"
        else:
            content = (
                '<p class="mirror-note">Index ČNB v ukázkovém korpusu (coverage.json) k tomuto seznamu neuvádí '
                "žádné dokumenty.</p>"
            )
        body = (
            f'<div class="page-cnt">\n<h1>{html.escape(listing.name)}</h1>\n'
            f'<p class="perex">{html.escape(listing.description)}</p>\n{content}\n</div>'
        )
        page = (
            f'<!DOCTYPE html>\n<html lang="cs"><head><meta charset="utf-8" /><title>{html.escape(listing.name)}'
            f" | Česká národní banka</title></head><body>\n{body}\n</body></html>\n"
        )
        return html_response(page, last_modified=self._mtime)

    def document(self, document: ListedDocument) -> Response | None:
        name = unquote(PurePosixPath(document.path.rstrip("/")).name)
        candidate = self.files_dir / name
        if not name or not candidate.is_file():
            return None  # the corpus has no bytes for it: 404
        return file_response(candidate, MIME.get(candidate.suffix.lower(), "application/octet-stream"), self.digests)
