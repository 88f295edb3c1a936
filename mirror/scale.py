"""Scale mode of the mirror: many notice boards built from the real Kadaň feed, for tests and benchmarks.

``ScaleBoards(corpus_root, count)`` describes ``count`` boards, each on a host of its own (``deska-0001.mirror.test``
…), every 10th a JavaScript board, the others OFN feeds listed in the mirror's NKOD catalogue. With a
:class:`ScaleMix` instead of a count, a share of the boards are HTML boards in the mirror-made layouts of the CMS
families that have a rule set (Public4u, SumavaNet: :data:`mirror.municipal.CMS_LAYOUTS`, the page at
``/uredni-deska/``), some of them hosted by shared hosting providers (``deska-0001.hosting-1.mirror.test``), and no
JavaScript board. Deterministic and GENERATED, not real: the real feed's structure, notices recombined from parts of
different real Kadaň notices, attachments the real Blešno PDFs, made-up host names, IČO, board names, notice ids and
file numbers.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import yaml

from .municipal import (
    CMS_BOARD_PATH,
    CMS_LAYOUTS,
    JS_BOARD_API,
    JS_BOARD_PATH,
    MIRROR_HOST_SUFFIX,
    board_api,
    js_board_page,
)
from .responses import FileDigests, Response, file_response, html_response, json_response

SEED = "mendel-scale-v1"
JS_EVERY = 10  # every 10th board is a JavaScript board
MIN_NOTICES, MAX_NOTICES = 3, 25
FEED_PATH = "/uredni-deska.jsonld"
FILES_PREFIX = "/filemanager/files/"
HTML_LIST_PATH = "/mirror/scale/html-boards.json"
_FILE = re.compile(r"^/filemanager/files/(\d+)[.]pdf$")


HTML_LAYOUTS = ("public4u", "sumavanet")  # the CMS families with a rule set, in turn


@dataclass(frozen=True)
class ScaleMix:
    """What scale mode generates: ``count`` boards; ``html_share`` of them HTML boards (none JavaScript then),
    ``shared_share`` of those on ``providers`` shared hosting providers; ``notices`` per board (min, max)."""

    count: int
    html_share: float = 0.0
    shared_share: float = 0.0
    providers: int = 0
    notices: tuple[int, int] = (MIN_NOTICES, MAX_NOTICES)

    def __bool__(self) -> bool:
        return self.count > 0


def _spread(index: int, share: float) -> bool:
    """Whether item ``index`` is one of an evenly spread ``share`` of items."""
    return int((index + 1) * share) > int(index * share)


def ico_with_check_digit(first_seven: int) -> str:
    """An 8-digit IČO whose last digit is the check digit (weights 8…2, mod 11)."""
    digits = f"{first_seven:07d}"
    remainder = sum(int(d) * w for d, w in zip(digits, range(8, 1, -1))) % 11
    return digits + str((11 - remainder) % 10)


@dataclass(frozen=True)
class ScaleBoard:
    index: int  # 0-based
    host: str
    ico: str
    name: str
    javascript: bool
    layout: str | None = None  # an HTML board's CMS family (HTML_LAYOUTS)
    provider: str | None = None  # the shared hosting provider's domain that hosts it

    @property
    def feed_url(self) -> str:
        return f"http://{self.host}{FEED_PATH}"

    @property
    def page_url(self) -> str:
        return f"http://{self.host}{JS_BOARD_PATH}"

    @property
    def html(self) -> bool:
        return self.layout is not None

    @property
    def html_url(self) -> str:
        return f"http://{self.host}{CMS_BOARD_PATH}"

    @property
    def url(self) -> str:
        """The board's published entry point: its feed, its page for a JavaScript board or an HTML one."""
        return self.html_url if self.html else self.page_url if self.javascript else self.feed_url


class ScaleBoards:
    def __init__(self, corpus_root: Path, count: "int | ScaleMix", digests: FileDigests | None = None):
        mix = count if isinstance(count, ScaleMix) else ScaleMix(count)
        count, self.mix = mix.count, mix
        if count < 0:
            raise ValueError("scale: the number of boards cannot be negative")
        base = Path(corpus_root) / "municipal"
        kadan = json.loads((base / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
        self.context = kadan["@context"]
        self.source_notices = [n for n in kadan["informace"] if isinstance(n, dict)]
        self.pdfs = sorted((base / "blesno").glob("*/*.pdf"))
        if not self.pdfs or len(self.source_notices) < max(MAX_NOTICES, mix.notices[1]):
            raise ValueError(f"scale mode needs the Kadaň feed and the Blešno PDFs under {base}")
        self.digests = digests or FileDigests()
        self.boards, html, shared = [], 0, 0
        for i in range(count):
            layout = provider = None
            if _spread(i, mix.html_share):
                layout = HTML_LAYOUTS[(html // 2) % len(HTML_LAYOUTS)]  # in turn, pairs apart from the shared ones
                if mix.providers and _spread(html, mix.shared_share):
                    provider = f"hosting-{shared % mix.providers + 1}{MIRROR_HOST_SUFFIX}"
                    shared += 1
                html += 1
            self.boards.append(
                ScaleBoard(
                    index=i,
                    host=f"deska-{i + 1:04d}.{provider}" if provider else f"deska-{i + 1:04d}{MIRROR_HOST_SUFFIX}",
                    ico=ico_with_check_digit(7_100_000 + i),
                    name=f"Testovací obec {i + 1:04d}",
                    javascript=not mix.html_share and i % JS_EVERY == JS_EVERY - 1,
                    layout=layout,
                    provider=provider,
                )
            )
        self.by_host = {b.host: b for b in self.boards}

    @property
    def ofn_boards(self) -> list[ScaleBoard]:
        return [b for b in self.boards if not b.javascript and not b.html]

    @property
    def html_boards(self) -> list[ScaleBoard]:
        return [b for b in self.boards if b.html]

    @property
    def js_boards(self) -> list[ScaleBoard]:
        return [b for b in self.boards if b.javascript]

    # ---------------------------------------------------------------- content

    @lru_cache(maxsize=4096)  # noqa: B019 (one scale mirror per process)
    def content(self, index: int) -> tuple[list[dict], dict[str, Path]]:
        """(notices in OFN form, attachment file id → sample PDF) of one board."""
        board = self.boards[index]
        rng = random.Random(f"{SEED}:{index}")
        count = rng.randint(*self.mix.notices)
        pool = range(len(self.source_notices))
        titles, refs, dates = rng.sample(pool, count), rng.sample(pool, count), rng.sample(pool, count)
        notices, files = [], {}
        for j in range(count):
            named, referenced, dated = (
                self.source_notices[titles[j]],
                self.source_notices[refs[j]],
                self.source_notices[dates[j]],
            )
            notice_id = f"{index + 1:04d}{j + 1:03d}"
            notice = {
                "typ": named["typ"],
                "iri": f"http://{board.host}/zdroj/uredni-deska/informace/{notice_id}",
                "url": f"http://{board.host}/uredni-deska/informace/{notice_id}",
                "název": named["název"],
                "popis": named.get("popis", {"cs": ""}),
                "vyvěšení": dated["vyvěšení"],
                "relevantní_do": dated["relevantní_do"],
            }
            for key in ("číslo_jednací", "spisová_značka"):
                if key in referenced:
                    notice[key] = referenced[key]
            notice["agenda"] = named.get("agenda", [])
            documents = []
            for m, document in enumerate(named.get("dokument") or []):
                file_id = f"{notice_id}{m + 1}"
                files[file_id] = self.pdfs[rng.randrange(len(self.pdfs))]
                documents.append(
                    {
                        "typ": document.get("typ", "Digitální objekt"),
                        "název": document.get("název"),
                        "url": f"http://{board.host}{FILES_PREFIX}{file_id}.pdf",
                    }
                )
            notice["dokument"] = documents
            notices.append(notice)
        return notices, files

    def feed(self, board: ScaleBoard) -> dict:
        notices, _ = self.content(board.index)
        return {
            "@context": self.context,
            "typ": "Úřední deska",
            "iri": f"http://{board.host}/zdroj/uredni-deska",
            "stránka": board.page_url,
            "provozovatel": {"typ": "Osoba", "ičo": board.ico},
            "informace": notices,
        }

    def html_notices(self, board: ScaleBoard) -> list[dict]:
        """The board's notices as an HTML board lists them (what mirror.municipal.CMS_LAYOUTS render)."""
        from mendel.czech.dates import iso, ofn_instant_date

        return [
            {
                "title": (n["název"] or {}).get("cs", ""),
                "posted": iso(ofn_instant_date(n.get("vyvěšení"))),
                "until": iso(ofn_instant_date(n.get("relevantní_do"))),
                "url": n["url"],
                "files": [((d.get("název") or {}).get("cs") or "", d["url"]) for d in n["dokument"]],
            }
            for n in self.content(board.index)[0]
        ]

    def attachment(self, board: ScaleBoard, file_id: str) -> Path | None:
        return self.content(board.index)[1].get(file_id)

    # ---------------------------------------------------------------- serving

    def handle_board(self, board: ScaleBoard, path: str) -> Response | None:
        m = _FILE.match(path)
        if m:
            pdf = self.attachment(board, m.group(1))
            return file_response(pdf, "application/pdf", self.digests) if pdf else None
        if board.html and path == CMS_BOARD_PATH:
            return html_response(CMS_LAYOUTS[board.layout](board.name, self.html_notices(board)))
        if board.javascript and path == JS_BOARD_PATH:
            return html_response(js_board_page(board.name, board.ico))
        if board.javascript and path == JS_BOARD_API:
            return json_response(board_api(self.content(board.index)[0]))
        if not board.javascript and path == FEED_PATH:
            return json_response(self.feed(board), content_type="application/ld+json")
        return None

    def handle_mirror_path(self, method: str, path: str) -> Response | None:
        if method in ("GET", "HEAD") and path == HTML_LIST_PATH:
            return json_response(self.html_list())
        return None

    @cached_property
    def js_rules(self) -> dict:
        # One layout for every generated JavaScript board: the rules of the maintained list's kadan-js entry.
        from mendel.core.config import HTML_BOARDS_FILE

        listing = yaml.safe_load(HTML_BOARDS_FILE.read_text(encoding="utf-8"))
        return next(b["rules"] for b in listing["boards"] if b["id"] == "kadan-js")

    def html_list(self) -> dict:
        return {
            "boards": [
                {
                    "id": b.host.removesuffix(MIRROR_HOST_SUFFIX),
                    "name": b.name,
                    "url": b.page_url,
                    "publisher_ico": b.ico,
                    "javascript": True,
                    "rules": self.js_rules,
                }
                for b in self.js_boards
            ]
        }
