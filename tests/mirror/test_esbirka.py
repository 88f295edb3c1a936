"""The mirror starts whatever its corpus holds: a corrupt PDF (a real act cut short), an empty PDF and a DOCX that
is no zip among the e-Sbírka files are listed without text with a logged reason (the crawl then quarantines them),
and the rest is served."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import requests

from mirror.server import MirrorThread, default_corpus_root

CORPUS = default_corpus_root()
API = "/esel-esbir-daver"
BAD_FILES = {
    "esbirka/pdf/301-2024.pdf": (CORPUS / "esbirka" / "pdf" / "87-2024.pdf").read_bytes()[:3000],  # cut short
    "esbirka/pdf/302-2024.pdf": b"",
    "esbirka/docx/Sb_2024_303_IZ.docx": b"not a zip archive",
}


def _corpus_with_bad_files(root: Path) -> Path:
    """The bundled corpus as links, file by file under esbirka/, plus the bad files."""
    root.mkdir()
    for top in CORPUS.iterdir():
        if top.name != "esbirka":
            (root / top.name).symlink_to(top)
    for path in (CORPUS / "esbirka").rglob("*"):
        if path.is_file():
            link = root / path.relative_to(CORPUS)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    for name, data in BAD_FILES.items():
        (root / name).write_bytes(data)
    return root


def _listed_numbers(base_url: str, year: int) -> set[int]:
    payload = requests.post(f"{base_url}{API}/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich", json=year).json()
    return {
        int(info["staleUrl"].split("/sb/")[1].split("/")[1])
        for month in payload["dokumentySbirkyVMesici"]
        for sada in month["sbirkyDokumentuSbirky"]
        for info in sada["dokumentySbirkyRejstrikInfo"]
    }


def test_a_corrupt_pdf_in_the_corpus_is_logged_not_a_crash(tmp_path, caplog):
    root = _corpus_with_bad_files(tmp_path / "corpus")
    with caplog.at_level(logging.WARNING, logger="mirror.esbirka"), MirrorThread(root) as mirror:
        numbers = _listed_numbers(mirror.base_url, 2024)
    assert 87 in numbers
    logged = {record.getMessage().split(" unreadable")[0].removeprefix("mirror: ") for record in caplog.records}
    assert logged == set(BAD_FILES)
    assert any("PdfminerException" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_each_bad_file_alone_leaves_the_mirror_serving(name, tmp_path):
    root = tmp_path / "corpus"
    _corpus_with_bad_files(root)
    for other in set(BAD_FILES) - {name}:
        (root / other).unlink()
    with MirrorThread(root) as mirror:
        assert 87 in _listed_numbers(mirror.base_url, 2024)
