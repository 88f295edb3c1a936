"""ČÚZK RÚIAN exchange-format (VFR) files for the local mirror.

Served paths (real layout of vdp.cuzk.cz / vdp.cuzk.gov.cz as used by ctu-geoforall-lab/gdal-vfr and other
downloaders):

- ``GET /vymenny_format/soucasna/{name}`` → a bundled ``cuzk/ruian/*.xml.gz`` file, bytes unchanged
  (``application/x-gzip``). ``{name}`` is the file's real name, read from its own header
  (``vf:Metadata xlink:href=".../20140331_OB_564729_UKSH.xml"`` → ``20140331_OB_564729_UKSH.xml.gz``): in 2014,
  when these files were issued, VFR files were ``.xml.gz`` (gdal-vfr:
  ``/vymenny_format/soucasna/{date}_{type}.xml.gz``); today's are ``.xml.zip`` and the spider reads both.
- ``GET /vdp/ruian/vymennyformat/seznamlinku?...`` → the plain-text link list (one absolute URL per line,
  ``\\r\\n``-separated, on the real host ``https://vdp.cuzk.gov.cz``), filtered like the real form:
  ``vf.cr`` = ``U`` (úplná, full) / ``Z`` (změnová, changes), ``vf.up`` = ``OB`` / ``ST``, ``vf.ds`` = ``K`` / ``Z``
  (kompletní / základní data set), ``vf.uo`` = ``A`` (all municipalities) or ``O`` with ``ob.kod``. Absent
  parameters do not filter; other parameters (``vf.vu``, ``_vf.*``, ``search``) are ignored.

The bundled files: ``OB_UKSH.xml.gz`` = ``20140331_OB_564729_UKSH`` (obec Děčany, full data) and
``ST_ZKSH.xml.gz`` = ``20140706_ST_ZKSH`` (a state-wide daily change batch).
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
