"""ČÚZK RÚIAN: the exchange-format (VFR) files of chosen municipalities and the state-wide change batches.

The VDP link list (``/vdp/ruian/vymennyformat/seznamlinku?...``, plain text, one URL a line) names the current
files: per municipality ``vf.cr=U&vf.up=OB&vf.ds=K&vf.uo=O&ob.kod={kód}`` (``vf.uo=A`` for all ~6,258), and the
daily changes ``vf.cr=Z&vf.up=ST&vf.ds=K``. Each file is stored as it is (gzip / zip of the XML); its header
(read by streaming, :func:`mendel.registers.ruian.read_header`) gives the title and date. ``doc_id``: a municipality's full
file is one document whose versions are the snapshots (``ruian:OB_564729_UKSH``); a change batch is a document of
its own (``ruian:20140706_ST_ZKSH``). Records come out of a stored file with :func:`mendel.registers.ruian.iter_records`.
"""

from __future__ import annotations

from urllib.parse import urlencode

import scrapy

from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider, media_type, rebase_url, response_header
from mendel.registers import ruian

LIST_PATH = "/vdp/ruian/vymennyformat/seznamlinku"
# The form's fixed fields: stav k (S = current), vlastnosti uzlu (Z = základní, with original boundaries H).
_FORM = [("vf.pu", "S"), ("_vf.pu", "on"), ("_vf.pu", "on")]
_FORM_TAIL = [
    ("vf.vu", "Z"),
    ("_vf.vu", "on"),
    ("_vf.vu", "on"),
    ("vf.vu", "H"),
    ("_vf.vu", "on"),
    ("_vf.vu", "on"),
    ("search", "Vyhledat"),
]


def link_list_url(base_url: str, *, changes: bool = False, obec: str | None = None) -> str:
    """The VDP link-list URL for one municipality's full file (``obec='*'``: all of them) or the change files."""
    if changes:
        fields = _FORM + [("vf.cr", "Z"), ("vf.up", "ST"), ("vf.ds", "K")] + _FORM_TAIL
    else:
        scope = [("vf.uo", "A")] if obec in (None, "*") else [("vf.uo", "O"), ("ob.kod", obec)]
        fields = _FORM + [("vf.cr", "U"), ("vf.up", "OB"), ("vf.ds", "K")] + _FORM_TAIL + scope
    return f"{base_url.rstrip('/')}{LIST_PATH}?{urlencode(fields)}"


def vfr_title(header: dict, name: str) -> str:
    info = ruian.parse_file_name(name) or {}
    when = info.get("date") or (header.get("Datum") or "")[:10]
    batch = "úplná data" if header.get("TypDavky") == "Plna" else "změnová data"
    if header.get("obec_nazev"):
        subject = f"obec {header['obec_nazev']} ({header.get('obec_kod')})"
    elif info.get("scope") == "ST":
        subject = "celý stát"
    else:
        subject = header.get("TypSouboru") or name
    return f"RÚIAN výměnný formát: {subject}, {batch} k {when}"


class RuianSpider(MendelSpider):
    name = "ruian"
    source = "ruian"

    def __init__(self, base_url: str, obce: str = "", changes: bool | str = True, rebase: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.obce = [o.strip() for o in str(obce).split(",") if o.strip()]
        self.changes = changes if isinstance(changes, bool) else str(changes).strip().lower() in ("1", "true", "yes")
        self.rebase = rebase or None
        self.seen: set[str] = set()

    async def start(self):
        lists = [link_list_url(self.base_url, obec=obec) for obec in self.obce]
        if self.changes:
            lists.append(link_list_url(self.base_url, changes=True))
        for url in lists:
            yield scrapy.Request(url, callback=self.parse_link_list, errback=self.on_listing_error)

    def parse_link_list(self, response):
        for line in response.text.splitlines():
            link = line.strip()
            if not link.startswith(("http://", "https://")):
                continue
            url = rebase_url(link, self.rebase)
            if url in self.seen:
                continue
            self.seen.add(url)
            name = link.rsplit("/", 1)[-1]
            yield self.document_request(url, self.parse_file, cb_kwargs={"name": name})

    def parse_file(self, response, name: str):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        try:
            header = ruian.read_header(response.body)
        except ruian.VfrError as exc:
            yield self.outcome(response.url, "quarantined", status=response.status, reason=f"not a VFR file: {exc}")
            return
        info = ruian.parse_file_name(name) or {}
        declared = media_type(response)
        yield FetchedDocument(
            source=self.source,
            doc_id=ruian.doc_id_for_file(name),
            url=response.url,
            body=response.body,
            content_type=declared if declared not in ("", "application/octet-stream") else "application/x-gzip",
            title=vfr_title(header, name),
            doc_type="ruian_vfr",
            published=info.get("date") or (header.get("Datum") or "")[:10] or None,
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={
                "file": name,
                "file_type": header.get("TypSouboru"),
                "batch": header.get("TypDavky"),
                "obec_kod": header.get("obec_kod"),
                "previous_file": header.get("PredchoziSoubor"),
            },
        )
