"""Court decision pages read by their own markup, before any generic HTML reader: Nejvyšší soud's decision page
(rozhodnuti.nsoud.cz, IBM Domino) and Ústavní soud's NALUS text page (``GetText.aspx``).

- **Nejvyšší soud**: the header fields in ``td.left-part`` / ``td.right-part`` rows (Soud, Spisová značka, Datum
  rozhodnutí, ECLI where the court gives one, Typ rozhodnutí, Heslo, Dotčené předpisy, Kategorie rozhodnutí, …),
  the decision text in ``div#obsah``.
- **NALUS**: file number and date in ``#lblRegistrySign`` (``II.ÚS 549/06 ze dne 29. 11. 2006``), the form in
  ``#lblDecisionForm``, the collection reference and popular name beside them, the text in ``td.DocContent``: the
  introduction, the výrok (from the first ``<b>``), the odůvodnění (from its heading line), and any dissent after
  ``<hr/>``.

A page's text is its header fields as "Label: value" lines and then the decision text, with the výrok, odůvodnění
and dissent under headings of their own where the page marks them. The provisions a header lists (Dotčené
předpisy) are metadata, not text: the citator links them as the court's own witness (the recogniser reading them
back out of the header would only echo it).
"""

from __future__ import annotations

import bisect
import html as html_lib
import re
from dataclasses import dataclass, field

from mendel.extract.normalize import normalize_with_map

PROVISION_LABELS = ("Dotčené předpisy", "Předpisy")  # the NS site's, and the Sbírka's
_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?([-\w.:]+)""", re.IGNORECASE)
_REASONING = re.compile(r"^[ \t]*O\s*d\s*ů\s*v\s*o\s*d\s*n\s*ě\s*n\s*í[ \t]*[.:]?[ \t]*$", re.MULTILINE)
_SIGN = re.compile(r"^\s*(?P<number>.+?)(?:\s+#\d+)?\s+ze dne\s+(?P<date>\d{1,2}\.\s*\d{1,2}\.\s*\d{4})\s*$")
VERDICT_MARK, DISSENT_MARK = "\x01", "\x02"
_MARKERS = tuple(
    m.encode(e) for m in ('id="obsah"', 'id="lblRegistrySign"') for e in ("utf-8", "utf-16-le", "utf-16-be")
)


@dataclass
class DecisionPage:
    site: str  # nsoud | nalus
    fields: dict[str, str]  # the page's header fields by their labels, values as shown
    text: str  # normalised: header lines, then the decision
    headings: list[tuple[int, str]] = field(default_factory=list)  # (offset into text, label)
    title: str | None = None


def _decoded(data: bytes, charset: str | None) -> str:
    from mendel.extract.text import decode_text

    if not charset:
        meta = _META_CHARSET.search(data[:4096])
        charset = meta.group(1).decode("ascii", "replace") if meta else None
    return decode_text(data, charset)[0]


def _text_of(fragment: str) -> str:
    """Markup to text: ``<br>`` and block ends as new lines, tags dropped, entities resolved."""
    fragment = re.sub(r"(?i)<br\s*/?>|</(?:p|div|tr|li|h\d)>", "\n", fragment)
    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment))


def _inner(page: str, start_pattern: str, end_tag: str) -> str | None:
    """The markup inside the first element opened by ``start_pattern`` (a regex ending at its start tag's ``>``),
    to its matching ``end_tag`` (nesting of the same tag counted)."""
    opened = re.search(start_pattern, page, re.IGNORECASE)
    if opened is None:
        return None
    depth, position = 1, opened.end()
    tags = re.compile(rf"<(/?){end_tag}\b[^>]*>", re.IGNORECASE)
    for tag in tags.finditer(page, position):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return page[position : tag.start()]
    return page[position:]


def _span(page: str, element_id: str) -> str:
    found = re.search(rf'<span[^>]*\bid="{element_id}"[^>]*>(.*?)</span>', page, re.IGNORECASE | re.DOTALL)
    return " ".join(_text_of(found.group(1)).split()) if found else ""


def _assemble(site: str, fields: dict[str, str], body: str, title: str | None) -> DecisionPage:
    """Header lines (every field but the listed provisions) and the body; the body's marks become headings."""
    header = "\n".join(f"{label}: {' '.join(value.split())}" for label, value in fields.items() if value)
    header = "\n".join(line for line in header.splitlines() if not line.startswith(PROVISION_LABELS))
    raw = (header + "\n\n" if header else "") + body
    marks: list[tuple[int, str]] = []
    cleaned = []
    for piece in re.split(f"([{VERDICT_MARK}{DISSENT_MARK}])", raw):
        if piece == VERDICT_MARK:
            marks.append((sum(map(len, cleaned)), "Výrok"))
        elif piece == DISSENT_MARK:
            marks.append((sum(map(len, cleaned)), "Odlišné stanovisko"))
        else:
            cleaned.append(piece)
    raw = "".join(cleaned)
    if site == "nalus":
        reasoning = _REASONING.search(raw, marks[0][0] if marks else len(header))
        if reasoning:
            marks.append((reasoning.start(), "Odůvodnění"))
    text, mapping = normalize_with_map(raw)
    headings = sorted((bisect.bisect_left(mapping, offset), label) for offset, label in marks if offset < len(raw))
    return DecisionPage(site, fields, text, [(o, label) for o, label in headings if o < len(text)], title)


def nsoud_page(page: str) -> DecisionPage | None:
    if 'id="obsah"' not in page or "left-part" not in page:
        return None
    fields: dict[str, str] = {}
    for row in re.finditer(r"<tr[^>]*>(.*?)</tr>", page, re.IGNORECASE | re.DOTALL):
        label = re.search(r'<td[^>]*class="left-part"[^>]*>(.*?)</td>', row.group(1), re.IGNORECASE | re.DOTALL)
        value = re.search(r'<td[^>]*class="right-part"[^>]*>(.*?)</td>', row.group(1), re.IGNORECASE | re.DOTALL)
        if label and value:
            name = " ".join(_text_of(label.group(1)).split()).rstrip(":").strip()
            lines = [" ".join(line.split()) for line in _text_of(value.group(1)).splitlines()]
            if name:
                fields[name] = "\n".join(line for line in lines if line)
    body = _inner(page, r'<div[^>]*\bid="obsah"[^>]*>', "div")
    if body is None:
        return None
    title = re.search(r"<title[^>]*>(.*?)</title>", page, re.IGNORECASE | re.DOTALL)
    return _assemble("nsoud", fields, _text_of(body), " ".join(_text_of(title.group(1)).split()) if title else None)


def nalus_page(page: str) -> DecisionPage | None:
    if 'id="lblRegistrySign"' not in page:
        return None
    content = _inner(page, r'<td[^>]*class="DocContent"[^>]*>', "td")
    if content is None:
        return None
    content = re.sub(r"(?i)<b>", VERDICT_MARK + "<b>", content, count=1)
    content = re.sub(r"(?i)<hr\s*/?>", DISSENT_MARK, content, count=1)
    sign = _SIGN.match(_span(page, "lblRegistrySign"))
    fields = {
        "Spisová značka": sign.group("number") if sign else _span(page, "lblRegistrySign"),
        "Datum rozhodnutí": sign.group("date") if sign else "",
        "Forma rozhodnutí": _span(page, "lblDecisionForm"),
        "Paralelní citace": _span(page, "lblParallelQuotation"),
        "Populární název": _span(page, "lblPopularName"),
    }
    form = fields["Forma rozhodnutí"].capitalize() or "Rozhodnutí"
    title = f"{form} Ústavního soudu sp. zn. {fields['Spisová značka']}".strip()
    return _assemble("nalus", fields, _text_of(content), title)


def listed_values(value: str | None) -> list[str]:
    """A header field listing several provisions, as the page shows them (one a line, or comma-separated before a
    provision mark): ``§ 36 odst. 2 tr. ř., § 216 tr. ř.`` → two; ``§ 1 odst. 1, 2 …`` stays one."""
    parts = re.split(r"\n|,\s*(?=§|čl\.|Čl\.|článek)", value or "")
    return [" ".join(p.split()) for p in parts if p.strip()]


def keyword_values(value: str | None) -> list[str]:
    """A header field of keywords (Heslo, Hesla): comma- or line-separated, a bracketed note kept with its word."""
    parts = re.split(r"\n|,\s*(?![^\[]*\])", value or "")
    return [" ".join(p.split()) for p in parts if p.strip()]


def decision_page(data: bytes, charset: str | None = None) -> DecisionPage | None:
    """The page as a court decision of a site this module knows; None for any other HTML."""
    if not any(marker in data for marker in _MARKERS):
        return None
    page = _decoded(data, charset)
    return nsoud_page(page) or nalus_page(page)
