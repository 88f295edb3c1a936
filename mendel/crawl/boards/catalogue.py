"""Catalogue boards: the national open-data catalogue's (NKOD's) notice-board datasets.

The datasets that conform to the open formal norm "Úřední desky" 2021-07-20 are read with one SPARQL query
(:func:`nkod_query`, paged with LIMIT/OFFSET) that returns each dataset's distributions with their
``dcat:downloadURL`` and format. One distribution a dataset is crawled (JSON-LD first, then JSON, CSV, XML); the
board key is its download URL. A JSON-LD distribution is an ``ofn`` board; any other format an ``export`` (a
publisher's own layout, read by the crawl's export readers or quarantined notice by notice).

The pages are fetched by the register crawl (``python -m crawlers.register_crawl``: the crawl's own HTTP stack and
politeness), which writes each page's rows as a JSON line; :func:`read_catalogue` turns them into boards.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

from mendel.crawl.boards.board import Board, RegistryError

OFN_BOARDS = "https://ofn.gov.cz/úřední-desky/2021-07-20/"
JSON_LD_FORMAT = "http://publications.europa.eu/resource/authority/file-type/JSON_LD"
FILE_TYPES = "http://publications.europa.eu/resource/authority/file-type/"
# Which distribution of a catalogue dataset is crawled: the standard's JSON-LD, then the publishers' own formats.
FORMAT_PREFERENCE = ("JSON_LD", "JSON", "CSV", "XML")
NKOD_PAGE_SIZE = 1000
SPARQL_PATH = "/sparql"
RUIAN_OBEC = "https://linked.cuzk.cz/resource/ruian/obec/"

# One query for the whole register: datasets conforming to the OFN, each distribution with its download URL and
# format, the publisher's name and the dataset's territory (RÚIAN IRIs: a municipality's names its kód obce).
NKOD_BOARDS_QUERY = """\
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
SELECT DISTINCT ?dataset ?publisher ?publisherName ?downloadURL ?format ?spatial ?page
WHERE {
  ?dataset a dcat:Dataset ;
    dcterms:conformsTo <%(ofn)s> ;
    dcterms:publisher ?publisher ;
    dcat:distribution ?distribution .
  ?distribution dcat:downloadURL ?downloadURL .
  OPTIONAL { ?distribution dcterms:format ?format }
  OPTIONAL { ?publisher foaf:name ?publisherName . FILTER(LANG(?publisherName) = "cs") }
  OPTIONAL { ?dataset dcterms:spatial ?spatial }
  OPTIONAL { ?dataset dcat:landingPage ?page }
}
ORDER BY ?dataset ?downloadURL
LIMIT %(limit)d OFFSET %(offset)d
"""


def nkod_query(limit: int = NKOD_PAGE_SIZE, offset: int = 0) -> str:
    return NKOD_BOARDS_QUERY % {"ofn": OFN_BOARDS, "format": JSON_LD_FORMAT, "limit": limit, "offset": offset}


def _ico_from_publisher(iri: str | None) -> str | None:
    # Publishers are RPP bodies: …/orgán-veřejné-moci/{IČO}
    tail = urllib.parse.unquote((iri or "").rstrip("/").rsplit("/", 1)[-1])
    return tail if tail.isdigit() and len(tail) == 8 else None


def _format_rank(file_type: str | None) -> int:
    return FORMAT_PREFERENCE.index(file_type) if file_type in FORMAT_PREFERENCE else len(FORMAT_PREFERENCE)


def boards_from_bindings(bindings: list[dict]) -> list[Board]:
    """Rows of :data:`NKOD_BOARDS_QUERY` (all pages) → boards: one per dataset, its preferred distribution."""
    datasets: dict[str, dict] = {}
    for row in bindings:
        url = (row.get("downloadURL") or {}).get("value")
        dataset = (row.get("dataset") or {}).get("value") or url
        if not url:
            continue
        entry = datasets.setdefault(dataset, {"distributions": {}, "spatial": set(), "row": row})
        file_type = (row.get("format") or {}).get("value", "").removeprefix(FILE_TYPES) or None
        entry["distributions"].setdefault(url, file_type)
        spatial = (row.get("spatial") or {}).get("value", "")
        if spatial.startswith(RUIAN_OBEC):
            entry["spatial"].add(spatial.removeprefix(RUIAN_OBEC))
        if not entry["row"].get("publisherName") and row.get("publisherName"):
            entry["row"] = row
    boards: dict[str, Board] = {}
    for dataset, entry in datasets.items():
        url, file_type = min(entry["distributions"].items(), key=lambda d: (_format_rank(d[1]), d[0]))
        row = entry["row"]
        codes = sorted(entry["spatial"])
        boards.setdefault(
            url,
            Board(
                key=url,
                kind="ofn" if file_type in (None, "JSON_LD") else "export",
                url=url,
                name=(row.get("publisherName") or {}).get("value"),
                publisher_ico=_ico_from_publisher((row.get("publisher") or {}).get("value")),
                dataset=dataset,
                format=file_type,
                obec_kod=codes[0] if len(codes) == 1 else None,
                page=(row.get("page") or {}).get("value"),
            ),
        )
    return list(boards.values())


def sparql_url(settings) -> str:
    """The catalogue's SPARQL endpoint for ``settings`` (a :class:`mendel.core.config.Settings`)."""
    return settings.base_url("nkod") + SPARQL_PATH


def page_bindings(payload) -> list[dict]:
    """The rows of one SPARQL JSON answer."""
    try:
        return list(payload["results"]["bindings"])
    except (KeyError, TypeError) as exc:
        raise RegistryError(f"not a SPARQL JSON result: missing {exc}") from exc


def read_catalogue(path: Path | str) -> list[Board]:
    """The boards of a complete catalogue read: the register crawl's pages (JSON lines ``{"offset", "rows",
    "last"}``), all of them up to the last one; a read that stopped before its last page is an error."""
    pages = []
    try:
        with Path(path).open(encoding="utf-8") as lines:
            pages = [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError) as exc:
        raise RegistryError(f"catalogue pages {path}: {exc}") from exc
    pages.sort(key=lambda page: page["offset"])
    if not pages or not pages[-1].get("last"):
        raise RegistryError(f"catalogue pages {path}: the catalogue was not read to its last page")
    return boards_from_bindings([row for page in pages for row in page["rows"]])
