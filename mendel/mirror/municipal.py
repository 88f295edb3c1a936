"""Municipal sources for the local mirror: the Kadaň OFN notice-board feed and obec Blešno's PDFs.

Served paths:

- ``GET /1ad1f16beff952576ae7ddd76a91e163`` → ``municipal/kadan_uredni_deska.json`` unchanged (the feed's real
  download URL on www.mesto-kadan.cz, as used by michalskop/uredni-desky-github); alias
  ``/kadan/uredni-deska.json``. The feed's attachment URLs (``/filemanager/files/{n}.pdf``) are not in the
  corpus and answer 404; the feed bytes are never rewritten.
- ``GET /assets/articles/{page-slug}/{file}.pdf`` → ``municipal/blesno/{text,scanned}/{page-slug}__{file}.pdf``
  (the real static path of the obec Blešno site, tomkre/obec-blesno); ``GET /assets/articles/`` is a
  mirror-only HTML index linking every PDF.
- The same files through the site's REST backend (``ArticleController`` / ``ArticleAssetsController`` of
  tomkre/obec-blesno, which its Angular front end calls):

  - ``GET /articles/ids?prefix={p}`` → JSON list of the article ids starting with ``p`` (the mirror knows the
    articles that have bundled PDFs); without ``prefix`` → 404, as Spring maps it to the unknown article ``ids``
  - ``GET /articles/{id}/assets?type=references`` → JSON ``[{"name": file, "url": url}]``, ``url`` =
    ``http://{Host}/articles/{id}/assets/{file}`` (absolute, built from the request's Host header as Spring's
    ``UriComponentsBuilder`` does); ``[]`` for an unknown article
  - ``GET /articles/{id}/assets/{file}.pdf`` → the PDF (``application/pdf``; file names ``[-a-z0-9]+.pdf``)
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, quote

from .responses import FileDigests, Response, file_response, html_response, json_response

KADAN_FEED_PATHS = ("/1ad1f16beff952576ae7ddd76a91e163", "/kadan/uredni-deska.json")
BLESNO_PREFIX = "/assets/articles/"
ARTICLE_IDS_PATH = "/articles/ids"
_ARTICLE_ASSETS = re.compile(r"^/articles/([^/]+)/assets$")
_ARTICLE_PDF = re.compile(r"^/articles/([^/]+)/assets/([-a-z0-9]+[.]pdf)$")


class MunicipalSite:
    def __init__(self, corpus_root: Path, digests: FileDigests):
        self.digests = digests
        base = Path(corpus_root) / "municipal"
        self.kadan_feed = base / "kadan_uredni_deska.json"
        self.blesno: dict[str, Path] = {}
        for kind in ("text", "scanned"):
            for pdf in sorted((base / "blesno" / kind).glob("*.pdf")):
                slug, sep, name = pdf.name.partition("__")
                if sep:
                    self.blesno[f"{BLESNO_PREFIX}{slug}/{name}"] = pdf

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        if path in KADAN_FEED_PATHS and self.kadan_feed.exists():
            return file_response(self.kadan_feed, "application/json", self.digests)
        if path == BLESNO_PREFIX.rstrip("/") or path == BLESNO_PREFIX:
            return self.blesno_index()
        pdf = self.blesno.get(path)
        if pdf is not None:
            return file_response(pdf, "application/pdf", self.digests)
        if path.startswith("/articles/"):
            return self.blesno_api(path, query, headers)
        return None

    # ---------------------------------------------------------------- obec Blešno REST backend

    def articles(self) -> dict[str, list[str]]:
        """Article id → its bundled PDF file names."""
        found: dict[str, list[str]] = {}
        for key in sorted(self.blesno):
            slug, name = key[len(BLESNO_PREFIX):].split("/", 1)
            found.setdefault(slug, []).append(name)
        return found

    def blesno_api(self, path: str, query: str, headers) -> Response | None:
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        if path == ARTICLE_IDS_PATH:
            if "prefix" not in params:
                return None
            return json_response([slug for slug in self.articles() if slug.startswith(params["prefix"])])
        m = _ARTICLE_ASSETS.match(path)
        if m and params.get("type") == "references":
            host = (headers.get("Host") if headers is not None else None) or "localhost"
            slug = m.group(1)
            return json_response([{"name": name, "url": f"http://{host}/articles/{quote(slug)}/assets/{quote(name)}"}
                                  for name in self.articles().get(slug, [])])
        m = _ARTICLE_PDF.match(path)
        if m:
            pdf = self.blesno.get(f"{BLESNO_PREFIX}{m.group(1)}/{m.group(2)}")
            return file_response(pdf, "application/pdf", self.digests) if pdf else None
        return None

    def blesno_index(self) -> Response:
        items = "\n".join(f'<li><a href="{html.escape(p)}">{html.escape(p[len(BLESNO_PREFIX):])}</a></li>'
                          for p in sorted(self.blesno))
        return html_response('<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
                             "<title>Obec Blešno - dokumenty (zrcadlo)</title></head><body>\n"
                             f"<ul>\n{items}\n</ul>\n</body></html>\n")
