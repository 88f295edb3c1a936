"""Municipal sources for the local mirror: the Kadaň OFN notice-board feed and obec Blešno's PDFs.

Served paths:

- ``GET /1ad1f16beff952576ae7ddd76a91e163`` → ``municipal/kadan_uredni_deska.json`` unchanged (the feed's real
  download URL on www.mesto-kadan.cz, as used by michalskop/uredni-desky-github); alias
  ``/kadan/uredni-deska.json``. The feed's attachment URLs (``/filemanager/files/{n}.pdf``) are not in the
  corpus and answer 404; the feed bytes are never rewritten.
- ``GET /assets/articles/{page-slug}/{file}.pdf`` → ``municipal/blesno/{text,scanned}/{page-slug}__{file}.pdf``
  (the real static path of the obec Blešno site, tomkre/obec-blesno); ``GET /assets/articles/`` is a
  mirror-only HTML index linking every PDF.
"""

from __future__ import annotations

import html
from pathlib import Path

from .responses import FileDigests, Response, file_response, html_response

KADAN_FEED_PATHS = ("/1ad1f16beff952576ae7ddd76a91e163", "/kadan/uredni-deska.json")
BLESNO_PREFIX = "/assets/articles/"


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
        return None

    def blesno_index(self) -> Response:
        items = "\n".join(f'<li><a href="{html.escape(p)}">{html.escape(p[len(BLESNO_PREFIX):])}</a></li>'
                          for p in sorted(self.blesno))
        return html_response('<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
                             "<title>Obec Blešno - dokumenty (zrcadlo)</title></head><body>\n"
                             f"<ul>\n{items}\n</ul>\n</body></html>\n")
