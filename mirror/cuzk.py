"""ČÚZK RÚIAN exchange-format (VFR) files for the local mirror, at their real paths on vdp.cuzk.gov.cz: the bundled
``cuzk/ruian/*.xml.gz`` files bytes unchanged under the names their own headers give, and the plain-text link list
(``/vdp/ruian/vymennyformat/seznamlinku``) filtered as the real form filters it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

from mendel.registers.ruian import VfrError, parse_file_name, read_header

from .responses import FileDigests, Response, file_response, text_response

FILES_PREFIX = "/vymenny_format/soucasna/"
LIST_PATHS = ("/vdp/ruian/vymennyformat/seznamlinku",)
REAL_HOST = "https://vdp.cuzk.gov.cz"
GZIP = "application/x-gzip"


def served_name(path: Path) -> str | None:
    """The real file name of a bundled VFR file, from the metadata link in its header."""
    try:
        header = read_header(path, peek_obec=False)
    except VfrError:
        return None
    href = header.get("metadata") or ""
    base = href.rsplit("/", 1)[-1]
    if not base.endswith(".xml") or parse_file_name(base) is None:
        return None
    return base + ".gz"


class CuzkSite:
    def __init__(self, corpus_root: Path, digests: FileDigests):
        self.digests = digests
        self.files: dict[str, Path] = {}
        for path in sorted((Path(corpus_root) / "cuzk" / "ruian").glob("*.xml.gz")):
            name = served_name(path)
            if name:
                self.files[name] = path

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        if path.startswith(FILES_PREFIX):
            file = self.files.get(path[len(FILES_PREFIX) :])
            return file_response(file, GZIP, self.digests) if file else None
        if path in LIST_PATHS:
            return self.link_list(query)
        return None

    def link_list(self, query: str) -> Response:
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        lines = []
        for name in sorted(self.files, reverse=True):
            info = parse_file_name(name)
            suffix = info["type"].rsplit("_", 1)[-1]  # UKSH, ZKSH...
            if params.get("vf.cr") and params["vf.cr"] != suffix[0]:
                continue
            if params.get("vf.up") and params["vf.up"] != info["scope"]:
                continue
            if params.get("vf.ds") and params["vf.ds"] != suffix[1]:
                continue
            if params.get("vf.uo") == "O" and info["obec"] != params.get("ob.kod"):
                continue
            lines.append(f"{REAL_HOST}{FILES_PREFIX}{name}")
        return text_response("".join(line + "\r\n" for line in lines))
