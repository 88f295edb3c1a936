"""The register of municipal notice boards (úřední desky) that the board crawl works through.

Two sources, merged into one list of :class:`Board`:

- **OFN boards** from the national open-data catalogue (NKOD): the datasets that conform to the open formal norm
  "Úřední desky" 2021-07-20, read with one SPARQL query (``GET {nkod}/sparql?query=…``, paged with LIMIT/OFFSET)
  that returns each dataset's JSON-LD distribution and its ``dcat:downloadURL``. The board key is that download URL.
- **HTML boards** from a maintained list (``mendel/data/html_boards.yaml``, or the file/URL named by
  ``MENDEL_HTML_BOARDS``) with per-site extraction rules; ``javascript: true`` marks boards whose notices a
  script inserts (crawled through Chromium). The board key is ``html:{id}``.

Hosts under ``.mirror.test`` (RFC 2606: never a real host) are the local mirror's made-up board sites; they are
dropped from the register in the production profile.

Each notice a board lists is stored as a document of its own and linked to its attachment documents in
``notice_attachments`` (:func:`record_notice_links`).
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

OFN_BOARDS = "https://ofn.gov.cz/úřední-desky/2021-07-20/"
JSON_LD_FORMAT = "http://publications.europa.eu/resource/authority/file-type/JSON_LD"
MIRROR_HOST_SUFFIX = ".mirror.test"
HTML_KEY_PREFIX = "html:"
NKOD_PAGE_SIZE = 1000
# Every HTML board needs to say where a notice row is and what its title is; the rest is optional.
REQUIRED_RULES = ("board", "row", "title")
KNOWN_RULES = REQUIRED_RULES + ("ready", "url", "posted", "until", "reference", "file_mark", "attachments",
                                "attachment_url", "attachment_name")

# One query for the whole register: datasets conforming to the OFN with a JSON-LD distribution to download.
NKOD_BOARDS_QUERY = """\
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
SELECT DISTINCT ?dataset ?title ?publisher ?publisherName ?downloadURL
WHERE {
  ?dataset a dcat:Dataset ;
    dcterms:conformsTo <%(ofn)s> ;
    dcterms:title ?title ;
    dcterms:publisher ?publisher ;
    dcat:distribution ?distribution .
  ?distribution dcterms:format <%(format)s> ;
    dcat:downloadURL ?downloadURL .
  OPTIONAL { ?publisher foaf:name ?publisherName . FILTER(LANG(?publisherName) = "cs") }
  FILTER(LANG(?title) = "cs")
}
ORDER BY ?downloadURL ?dataset
LIMIT %(limit)d OFFSET %(offset)d
"""


class RegistryError(RuntimeError):
    """The register could not be read (catalogue unreachable, an answer that is not SPARQL JSON, a bad list)."""


@dataclass(frozen=True)
class Board:
    key: str  # the Dagster partition key: an OFN board's download URL, or html:{id}
    kind: str  # "ofn" | "html"
    url: str  # the feed (OFN) or the board page (HTML), as the site publishes it
    name: str | None = None
    publisher_ico: str | None = None
    javascript: bool = False
    rules: dict = field(default_factory=dict)
    dataset: str | None = None  # the NKOD dataset IRI

    @property
    def host(self) -> str:
        return (urllib.parse.urlsplit(self.url).hostname or "").lower()

    @property
    def on_mirror(self) -> bool:
        return self.host.endswith(MIRROR_HOST_SUFFIX)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, value: dict) -> "Board":
        return cls(**{k: value[k] for k in cls.__dataclass_fields__ if k in value})


# ---------------------------------------------------------------- NKOD (OFN boards)

def nkod_query(limit: int = NKOD_PAGE_SIZE, offset: int = 0) -> str:
    return NKOD_BOARDS_QUERY % {"ofn": OFN_BOARDS, "format": JSON_LD_FORMAT, "limit": limit, "offset": offset}


def _ico_from_publisher(iri: str | None) -> str | None:
    # Publishers are RPP bodies: …/orgán-veřejné-moci/{IČO}
    tail = urllib.parse.unquote((iri or "").rstrip("/").rsplit("/", 1)[-1])
    return tail if tail.isdigit() and len(tail) == 8 else None


def boards_from_sparql(payload: dict) -> list[Board]:
    """SPARQL JSON results of :data:`NKOD_BOARDS_QUERY` → boards (one per download URL)."""
    try:
        bindings = payload["results"]["bindings"]
    except (KeyError, TypeError) as exc:
        raise RegistryError(f"not a SPARQL JSON result: missing {exc}") from exc
    boards: dict[str, Board] = {}
    for row in bindings:
        url = (row.get("downloadURL") or {}).get("value")
        if not url or url in boards:
            continue
        publisher = (row.get("publisher") or {}).get("value")
        boards[url] = Board(key=url, kind="ofn", url=url, name=(row.get("publisherName") or {}).get("value"),
                            publisher_ico=_ico_from_publisher(publisher), dataset=(row.get("dataset") or {}).get("value"))
    return list(boards.values())


def fetch_nkod_boards(sparql_url: str, page_size: int = NKOD_PAGE_SIZE, timeout: float = 60.0) -> list[Board]:
    """Every OFN board in the catalogue behind ``sparql_url``, page by page."""
    boards: dict[str, Board] = {}
    offset = 0
    while True:
        query = urllib.parse.urlencode({"query": nkod_query(page_size, offset)})
        request = urllib.request.Request(f"{sparql_url}?{query}",
                                         headers={"Accept": "application/sparql-results+json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except (OSError, ValueError) as exc:
            raise RegistryError(f"NKOD query failed at offset {offset}: {type(exc).__name__}: {exc}") from exc
        page = payload.get("results", {}).get("bindings", []) if isinstance(payload, dict) else []
        for board in boards_from_sparql(payload):
            boards.setdefault(board.key, board)
        if len(page) < page_size:
            return list(boards.values())
        offset += page_size


# ---------------------------------------------------------------- the maintained list of HTML boards

def _read_list(location: str) -> str:
    if location.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(location, timeout=60) as response:
                return response.read().decode("utf-8")
        except OSError as exc:
            raise RegistryError(f"HTML board list {location}: {exc}") from exc
    try:
        return Path(location).read_text(encoding="utf-8")
    except OSError as exc:
        raise RegistryError(f"HTML board list {location}: {exc}") from exc


def html_boards_from(value, where: str = "HTML board list") -> list[Board]:
    """Parsed list (``{"boards": [...]}``) → boards; a malformed entry is an error naming it."""
    entries = value.get("boards") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        raise RegistryError(f"{where}: expected a mapping with a 'boards' list")
    boards = []
    for number, entry in enumerate(entries):
        label = f"{where}, board #{number} ({entry.get('id') if isinstance(entry, dict) else repr(entry)})"
        if not isinstance(entry, dict) or not entry.get("id") or not entry.get("url"):
            raise RegistryError(f"{label}: needs 'id' and 'url'")
        rules = entry.get("rules") or {}
        missing = [r for r in REQUIRED_RULES if not rules.get(r)]
        unknown = sorted(set(rules) - set(KNOWN_RULES))
        if missing or unknown:
            problems = ([f"rules missing {missing}"] if missing else []) + ([f"unknown rules {unknown}"] if unknown else [])
            raise RegistryError(f"{label}: {', '.join(problems)}")
        boards.append(Board(key=f"{HTML_KEY_PREFIX}{entry['id']}", kind="html", url=entry["url"],
                            name=entry.get("name"), publisher_ico=str(entry["publisher_ico"]) if entry.get(
                                "publisher_ico") else None, javascript=bool(entry.get("javascript")),
                            rules={k: str(v) for k, v in rules.items()}))
    return boards


def load_html_boards(location: str) -> list[Board]:
    try:
        value = yaml.safe_load(_read_list(location))  # JSON is YAML too: the mirror serves its list as JSON
    except yaml.YAMLError as exc:
        raise RegistryError(f"HTML board list {location}: {exc}") from exc
    return html_boards_from(value, location)


# ---------------------------------------------------------------- the whole register

def load_registry(settings) -> list[Board]:
    """All boards for ``settings`` (a :class:`mendel.config.Settings`): NKOD's OFN boards, then the HTML list."""
    boards: dict[str, Board] = {}
    for board in fetch_nkod_boards(settings.base_url("nkod") + "/sparql") + load_html_boards(settings.html_boards):
        if settings.profile == "production" and board.on_mirror:
            continue
        boards.setdefault(board.key, board)
    return list(boards.values())


def boards_for_keys(keys, settings) -> tuple[list[Board], list[str]]:
    """The boards behind partition keys, without asking NKOD: an OFN key is its feed URL; HTML keys are looked up
    in the maintained list. Returns (boards, keys that name no known board)."""
    keys = list(dict.fromkeys(keys))
    html = {}
    if any(k.startswith(HTML_KEY_PREFIX) for k in keys):
        html = {b.key: b for b in load_html_boards(settings.html_boards)}
    boards, unknown = [], []
    for key in keys:
        if key.startswith(HTML_KEY_PREFIX):
            if key in html:
                boards.append(html[key])
            else:
                unknown.append(key)
        elif key.startswith(("http://", "https://")):
            boards.append(Board(key=key, kind="ofn", url=key))
        else:
            unknown.append(key)
    return boards, unknown


def write_boards_file(boards, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([b.to_dict() for b in boards], ensure_ascii=False), encoding="utf-8")
    return path


def read_boards_file(path: str | Path) -> list[Board]:
    value = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(value, list):
        raise RegistryError(f"{path}: expected a JSON list of boards")
    return [Board.from_dict(v) for v in value]


# ---------------------------------------------------------------- notice ↔ attachment links

def record_notice_links(conn, board: str, links) -> int:
    """``links``: (notice doc_id, [(attachment doc_id, name), …]) for the notices a board lists in this read.
    Each notice's links are replaced as a whole (its attachments in order); returns the rows written."""
    links = list(links)
    if not links:
        return 0
    rows = [(notice, position, attachment, name, board)
            for notice, attachments in links for position, (attachment, name) in enumerate(attachments)]
    with conn.transaction():
        conn.execute("DELETE FROM notice_attachments WHERE notice_doc_id = ANY(%s)", ([n for n, _ in links],))
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO notice_attachments (notice_doc_id, position, attachment_doc_id, name, board)"
                            " VALUES (%s, %s, %s, %s, %s)", rows)
    return len(rows)
