"""Scale mode of the mirror: many notice boards built from the real Kadaň feed, for tests and benchmarks.

``ScaleBoards(corpus_root, count)`` describes ``count`` boards, each on a host of its own (``deska-0001.mirror.test``
…), every 10th a JavaScript board, the others OFN feeds listed in the mirror's NKOD catalogue. Deterministic and
GENERATED, not real: the real feed's structure, notices recombined from parts of different real Kadaň notices,
attachments the real Blešno PDFs, made-up host names, IČO, board names, notice ids and file numbers.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import yaml

from .municipal import JS_BOARD_API, JS_BOARD_PATH, MIRROR_HOST_SUFFIX, board_api, js_board_page
from .responses import FileDigests, Response, file_response, html_response, json_response

SEED = "mendel-scale-v1"
JS_EVERY = 10  # every 10th board is a JavaScript board
MIN_NOTICES, MAX_NOTICES = 3, 25
FEED_PATH = "/uredni-deska.jsonld"
FILES_PREFIX = "/filemanager/files/"
HTML_LIST_PATH = "/mirror/scale/html-boards.json"
_FILE = re.compile(r"^/filemanager/files/(\d+)[.]pdf$")


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

    @property
    def feed_url(self) -> str:
        return f"http://{self.host}{FEED_PATH}"

    @property
    def page_url(self) -> str:
        return f"http://{self.host}{JS_BOARD_PATH}"

    @property
    def url(self) -> str:
        """The board's published entry point: its feed, or its page for a JavaScript board."""
        return self.page_url if self.javascript else self.feed_url


class ScaleBoards:
    def __init__(self, corpus_root: Path, count: int, digests: FileDigests | None = None):
        if count < 0:
            raise ValueError("scale: the number of boards cannot be negative")
        base = Path(corpus_root) / "municipal"
        kadan = json.loads((base / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
        self.context = kadan["@context"]
        self.source_notices = [n for n in kadan["informace"] if isinstance(n, dict)]
        self.pdfs = sorted((base / "blesno").glob("*/*.pdf"))
        if not self.pdfs or len(self.source_notices) < MAX_NOTICES:
            raise ValueError(f"scale mode needs the Kadaň feed and the Blešno PDFs under {base}")
        self.digests = digests or FileDigests()
        self.boards = [
            ScaleBoard(
                index=i,
                host=f"deska-{i + 1:04d}{MIRROR_HOST_SUFFIX}",
                ico=ico_with_check_digit(7_100_000 + i),
                name=f"Testovací obec {i + 1:04d}",
                javascript=(i % JS_EVERY == JS_EVERY - 1),
            )
            for i in range(count)
        ]
        self.by_host = {b.host: b for b in self.boards}

    @property
    def ofn_boards(self) -> list[ScaleBoard]:
        return [b for b in self.boards if not b.javascript]

    @property
    def js_boards(self) -> list[ScaleBoard]:
        return [b for b in self.boards if b.javascript]

    # ---------------------------------------------------------------- content

    @lru_cache(maxsize=4096)  # noqa: B019 (one scale mirror per process)
    def content(self, index: int) -> tuple[list[dict], dict[str, Path]]:
        """(notices in OFN form, attachment file id → sample PDF) of one board."""
        board = self.boards[index]
        rng = random.Random(f"{SEED}:{index}")
        count = rng.randint(MIN_NOTICES, MAX_NOTICES)
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

    def attachment(self, board: ScaleBoard, file_id: str) -> Path | None:
        return self.content(board.index)[1].get(file_id)

    # ---------------------------------------------------------------- serving

    def handle_board(self, board: ScaleBoard, path: str) -> Response | None:
        m = _FILE.match(path)
        if m:
            pdf = self.attachment(board, m.group(1))
            return file_response(pdf, "application/pdf", self.digests) if pdf else None
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
