"""What a notice board of the register is: :class:`Board`, its kinds and keys, and the register's error.

A board is a catalogue board (NKOD's ``ofn`` feeds and publishers' own ``export`` layouts, key: the download URL)
or a board of the maintained list (``html`` boards, key ``html:{id}``; ``article_api`` sites, key ``api:{id}``).
"""

from __future__ import annotations

import urllib.parse
from dataclasses import asdict, dataclass, field

BOARD_SOURCE = "boards"  # the crawl source whose documents the boards own
HTML_KEY_PREFIX = "html:"
API_KEY_PREFIX = "api:"
LISTED_KINDS = {"html": HTML_KEY_PREFIX, "article_api": API_KEY_PREFIX}  # kind in the maintained list → key prefix
CATALOGUE_KINDS = ("ofn", "export")
# Names that never resolve on the Internet (RFC 2606, RFC 6761): a board on one is not crawled in production.
RESERVED_SUFFIXES = (".test", ".example", ".invalid", ".localhost")


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
    page: str | None = None  # the board's page (catalogue dcat:landingPage): the region its address names places it
    # Where the board belongs (mendel.crawl.boards.placing): the municipality's kód obce and name, its okres and
    # kraj; a regional body has only its kraj. Its notices inherit them.
    obec_kod: str | None = None
    obec: str | None = None
    okres: str | None = None
    kraj: str | None = None
    placed_by: str | None = None  # what placed it: municipality | name | page | body (numbers) | site (page host)
    # A board of a public body no municipality runs (a police directorate, the ministry), linked by its notices'
    # file numbers (mendel.registers.public_bodies): the unit's name, its scope (national | regional) and code (KRPA);
    # its notices inherit the body as they inherit the place. Without any place, why (``unplaced``: "{kind}: {words}").
    body: str | None = None
    body_scope: str | None = None
    body_code: str | None = None
    unplaced: str | None = None
    # HTML boards: the municipality's website domain (default: the board URL's host without "www."), the CMS the
    # websites list names for it (mendel/data/board_rules_by_cms.yaml keys, "unknown", "unlisted"), where its
    # rules come from ("cms:{key}@{version}" or "list": the entry's own) and, without rules, why.
    site: str | None = None
    cms: str | None = None
    rules_from: str | None = None
    no_rules: str | None = None

    @property
    def host(self) -> str:
        return (urllib.parse.urlsplit(self.url).hostname or "").lower()

    @property
    def on_reserved_name(self) -> bool:
        """Its host is a name reserved for tests and examples, which no real site has."""
        return self.host.rstrip(".").endswith(RESERVED_SUFFIXES)

    @property
    def is_catalogue(self) -> bool:
        return self.kind in CATALOGUE_KINDS

    @property
    def readable(self) -> bool:
        """Whether the crawl reads it: a catalogue board, a site API, or an HTML board with extraction rules."""
        return self.kind in (*CATALOGUE_KINDS, "article_api") or bool(self.rules)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, value: dict) -> "Board":
        return cls(**{k: value[k] for k in cls.__dataclass_fields__ if k in value})
