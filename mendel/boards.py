"""The register of municipal notice boards (úřední desky) that the board crawl works through.

Two sources, merged into one list of :class:`Board`:

- **Catalogue boards** from the national open-data catalogue (NKOD): the datasets that conform to the open formal
  norm "Úřední desky" 2021-07-20, read with one SPARQL query (``GET {nkod}/sparql?query=…``, paged with
  LIMIT/OFFSET) that returns each dataset's distributions with their ``dcat:downloadURL`` and format. One
  distribution a dataset is crawled (JSON-LD first, then JSON, CSV, XML); the board key is its download URL. A
  JSON-LD distribution is an ``ofn`` board; any other format an ``export`` (a publisher's own layout, read by the
  crawl's export readers or quarantined notice by notice).
- **Listed boards** from a maintained list (``mendel/data/html_boards.yaml``, or the file/URL named by
  ``MENDEL_HTML_BOARDS``): ``html`` boards with per-site extraction rules (``javascript: true`` marks boards whose
  notices a script inserts, crawled through Chromium), key ``html:{id}``; and ``article_api`` sites, whose
  documents a REST backend lists (article ids → each article's files: obec Blešno's site), key ``api:{id}``.

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
BOARD_SOURCE = "boards"  # the crawl source whose documents the boards own
HTML_KEY_PREFIX = "html:"
API_KEY_PREFIX = "api:"
LISTED_KINDS = {"html": HTML_KEY_PREFIX, "article_api": API_KEY_PREFIX}  # kind in the maintained list → key prefix
FILE_TYPES = "http://publications.europa.eu/resource/authority/file-type/"
# Which distribution of a catalogue dataset is crawled: the standard's JSON-LD, then the publishers' own formats.
FORMAT_PREFERENCE = ("JSON_LD", "JSON", "CSV", "XML")
NKOD_PAGE_SIZE = 1000
# Every HTML board needs to say where a notice row is and what its title is; the rest is optional.
REQUIRED_RULES = ("board", "row", "title")
KNOWN_RULES = REQUIRED_RULES + ("ready", "url", "posted", "until", "reference", "file_mark", "attachments",
                                "attachment_url", "attachment_name")

# One query for the whole register: datasets conforming to the OFN, each distribution with its download URL and
# format, the publisher's name and the dataset's territory (RÚIAN IRIs: a municipality's names its kód obce).
NKOD_BOARDS_QUERY = """\
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
SELECT DISTINCT ?dataset ?publisher ?publisherName ?downloadURL ?format ?spatial
WHERE {
  ?dataset a dcat:Dataset ;
    dcterms:conformsTo <%(ofn)s> ;
    dcterms:publisher ?publisher ;
    dcat:distribution ?distribution .
  ?distribution dcat:downloadURL ?downloadURL .
  OPTIONAL { ?distribution dcterms:format ?format }
  OPTIONAL { ?publisher foaf:name ?publisherName . FILTER(LANG(?publisherName) = "cs") }
  OPTIONAL { ?dataset dcterms:spatial ?spatial }
}
ORDER BY ?dataset ?downloadURL
LIMIT %(limit)d OFFSET %(offset)d
"""
RUIAN_OBEC = "https://linked.cuzk.cz/resource/ruian/obec/"


class RegistryError(RuntimeError):
    """The register could not be read (catalogue unreachable, an answer that is not SPARQL JSON, a bad list)."""


@dataclass(frozen=True)
class Board:
    key: str  # the Dagster partition key: a catalogue board's download URL, html:{id} or api:{id}
    kind: str  # "ofn" | "export" (catalogue) | "html" | "article_api" (maintained list)
    url: str  # the feed or export (catalogue), the board page (HTML), the article index (API), as published
    name: str | None = None
    publisher_ico: str | None = None
    javascript: bool = False
    rules: dict = field(default_factory=dict)
    dataset: str | None = None  # the NKOD dataset IRI
    format: str | None = None  # a catalogue board's distribution format (EU file type: JSON_LD, JSON, CSV, XML)
    # Where the board belongs (mendel.municipalities.place_boards): the municipality's kód obce and name, its
    # okres and kraj; a regional body has only its kraj. Its notices inherit them.
    obec_kod: str | None = None
    obec: str | None = None
    okres: str | None = None
    kraj: str | None = None

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
        boards.setdefault(url, Board(
            key=url, kind="ofn" if file_type in (None, "JSON_LD") else "export", url=url,
            name=(row.get("publisherName") or {}).get("value"),
            publisher_ico=_ico_from_publisher((row.get("publisher") or {}).get("value")), dataset=dataset,
            format=file_type, obec_kod=codes[0] if len(codes) == 1 else None))
    return list(boards.values())


def _bindings(payload) -> list[dict]:
    try:
        return list(payload["results"]["bindings"])
    except (KeyError, TypeError) as exc:
        raise RegistryError(f"not a SPARQL JSON result: missing {exc}") from exc


def fetch_nkod_boards(sparql_url: str, page_size: int = NKOD_PAGE_SIZE, timeout: float = 60.0) -> list[Board]:
    """Every board in the catalogue behind ``sparql_url``: all pages read, then one board a dataset."""
    rows: list[dict] = []
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
        page = _bindings(payload)
        rows += page
        if len(page) < page_size:
            return boards_from_bindings(rows)
        offset += page_size


# ---------------------------------------------------------------- the maintained list (HTML boards, site APIs)

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
        kind = entry.get("kind") or "html"
        if kind not in LISTED_KINDS:
            raise RegistryError(f"{label}: unknown kind {kind!r} (one of {sorted(LISTED_KINDS)})")
        rules = entry.get("rules") or {}
        if kind == "html":
            missing = [r for r in REQUIRED_RULES if not rules.get(r)]
            unknown = sorted(set(rules) - set(KNOWN_RULES))
            if missing or unknown:
                problems = ([f"rules missing {missing}"] if missing else []) + (
                    [f"unknown rules {unknown}"] if unknown else [])
                raise RegistryError(f"{label}: {', '.join(problems)}")
        elif rules:
            raise RegistryError(f"{label}: an {kind} site has no extraction rules")
        boards.append(Board(key=f"{LISTED_KINDS[kind]}{entry['id']}", kind=kind, url=entry["url"],
                            name=entry.get("name"), publisher_ico=str(entry["publisher_ico"]) if entry.get(
                                "publisher_ico") else None, javascript=bool(entry.get("javascript")),
                            rules={k: str(v) for k, v in rules.items()},
                            obec_kod=str(entry["obec_kod"]) if entry.get("obec_kod") else None))
    return boards


def load_html_boards(location: str) -> list[Board]:
    try:
        value = yaml.safe_load(_read_list(location))  # JSON is YAML too: the mirror serves its list as JSON
    except yaml.YAMLError as exc:
        raise RegistryError(f"HTML board list {location}: {exc}") from exc
    return html_boards_from(value, location)


# ---------------------------------------------------------------- the whole register

def load_registry(settings) -> list[Board]:
    """All boards for ``settings`` (a :class:`mendel.config.Settings`): NKOD's boards, then the maintained list."""
    boards: dict[str, Board] = {}
    for board in fetch_nkod_boards(settings.base_url("nkod") + "/sparql") + load_html_boards(settings.html_boards):
        if settings.profile == "production" and board.on_mirror:
            continue
        boards.setdefault(board.key, board)
    return list(boards.values())


def boards_for_keys(keys, settings, conn=None) -> tuple[list[Board], list[str]]:
    """The boards behind partition keys, without asking NKOD: as the register table has them (``conn``: what the
    ``board_registry`` asset last read, places included); otherwise a catalogue key is its feed URL and listed keys
    are looked up in the maintained list. Returns (boards, keys that name no known board)."""
    keys = list(dict.fromkeys(keys))
    known = {b.key: b for b in registered_boards(conn, keys)} if conn is not None else {}
    listed = {}
    if any(k.startswith(tuple(LISTED_KINDS.values())) and k not in known for k in keys):
        listed = {b.key: b for b in load_html_boards(settings.html_boards)}
    boards, unknown = [], []
    for key in keys:
        if key in known:
            boards.append(known[key])
        elif key.startswith(tuple(LISTED_KINDS.values())):
            if key in listed:
                boards.append(listed[key])
            else:
                unknown.append(key)
        elif key.startswith(("http://", "https://")):
            boards.append(Board(key=key, kind="ofn", url=key))
        else:
            unknown.append(key)
    return boards, unknown


# ---------------------------------------------------------------- the register table (board_registry asset)

@dataclass(frozen=True)
class RegisterChange:
    added: list[str]  # keys new in the register
    removed: list[str]  # keys the register no longer names
    withdrawn: list[str]  # doc ids of the removed boards' documents, now withdrawn
    kept: int


def register_boards(conn, boards: list[Board]) -> RegisterChange:
    """The register as read now, in full, into ``boards``: new boards are added, known ones updated, and a board
    the register no longer names is marked removed — its documents (those it owns: ``documents.listing`` is its
    URL) are withdrawn, never deleted. A removed board that comes back is active again."""
    boards = list({b.key: b for b in boards}.values())
    keys = [b.key for b in boards]
    with conn.transaction():
        active = {k for (k,) in conn.execute("SELECT key FROM boards WHERE removed_at IS NULL")}
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO boards (key, kind, url, name, publisher_ico, obec_kod, obec, okres, kraj, spec)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, url = EXCLUDED.url, name = EXCLUDED.name,"
                "  publisher_ico = EXCLUDED.publisher_ico, obec_kod = EXCLUDED.obec_kod, obec = EXCLUDED.obec,"
                "  okres = EXCLUDED.okres, kraj = EXCLUDED.kraj, spec = EXCLUDED.spec, seen_at = now(),"
                "  removed_at = NULL",
                [(b.key, b.kind, b.url, b.name, b.publisher_ico, b.obec_kod, b.obec, b.okres, b.kraj,
                  json.dumps(b.to_dict(), ensure_ascii=False)) for b in boards])
        removed = conn.execute(
            "UPDATE boards SET removed_at = now() WHERE removed_at IS NULL AND NOT (key = ANY(%s))"
            " RETURNING key, url", (keys,)).fetchall()
        # A URL another active board still reads keeps its documents.
        gone_urls = sorted({url for _, url in removed} - {b.url for b in boards})
        withdrawn = [d for (d,) in conn.execute(
            "UPDATE documents SET status = 'withdrawn' WHERE source = %s AND listing = ANY(%s) AND status = 'active'"
            " RETURNING doc_id", (BOARD_SOURCE, gone_urls))] if gone_urls else []
    return RegisterChange(added=[k for k in keys if k not in active], removed=sorted(k for k, _ in removed),
                          withdrawn=sorted(withdrawn), kept=len(active & set(keys)))


def registered_boards(conn, keys=None) -> list[Board]:
    """The boards the register names now (``keys``: only these), in the order they were registered."""
    rows = conn.execute("SELECT spec FROM boards WHERE removed_at IS NULL AND (%s::text[] IS NULL OR key = ANY(%s))"
                        " ORDER BY registered_at, key", (list(keys) if keys is not None else None,
                                                         list(keys) if keys is not None else None)).fetchall()
    return [Board.from_dict(spec) for (spec,) in rows]


def document_places(conn) -> dict[str, dict]:
    """doc_id → {kraj, okres, obec} for the board documents whose board has a place (what the bundle shows and
    search filters by); a board's notices and attachments inherit its place."""
    rows = conn.execute(
        "SELECT DISTINCT ON (d.doc_id) d.doc_id, b.kraj, b.okres, b.obec FROM documents d"
        " JOIN boards b ON b.url = d.listing WHERE d.source = %s AND (b.kraj IS NOT NULL OR b.obec IS NOT NULL)"
        " ORDER BY d.doc_id, b.removed_at DESC NULLS FIRST", (BOARD_SOURCE,)).fetchall()
    return {doc_id: {k: v for k, v in (("kraj", kraj), ("okres", okres), ("obec", obec)) if v}
            for doc_id, kraj, okres, obec in rows}


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
