"""An act's e-Sbírka metadata as a record document (``act_metadata``): citation and title, promulgation, the day
it takes effect, every version (znění) with its dates and the acts that amended it, and the acts it amends itself,
read from ``act_versions``. One document per act, ``act-metadata:{ELI}``, grounded to the e-Sbírka API record of
the act."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from urllib.parse import quote

import psycopg

from mendel.czech.dates import WORDED_DATE_PATTERN, date_of_match
from mendel.czech.wording import both_dates, full_stop, worded_date
from mendel.law.commencement import ANNOUNCED_VERSION, commencement, is_promulgated_text
from mendel.records.model import ACT_METADATA, RecordDocument

ESBIRKA_SOURCE = "esbirka"

# Act types by how titles start, with the gender of "nabyl/nabyla/nabylo" účinnosti.
ACT_TYPES = (
    ("ústavní zákon", "m"),
    ("zákonné opatření", "n"),
    ("nařízení vlády", "n"),
    ("zákon", "m"),
    ("nařízení", "n"),
    ("vyhláška", "f"),
    ("sdělení", "n"),
    ("usnesení", "n"),
    ("nález", "m"),
    ("rozhodnutí", "n"),
    ("opatření", "n"),
    ("dekret", "m"),
)
# the verb forms a sentence about the act needs, by its gender
_VERBS = {
    "m": {"took_effect": "nabyl", "was": "byl", "ending": "", "amended": "byl změněn (novelizován)"},
    "f": {"took_effect": "nabyla", "was": "byla", "ending": "a", "amended": "byla změněna (novelizována)"},
    "n": {"took_effect": "nabylo", "was": "bylo", "ending": "o", "amended": "bylo změněno (novelizováno)"},
}
_VERSION_KINDS = {
    "AKTUALNI": "aktuální znění",
    "MINULE": "dřívější znění",
    "BUDOUCI": "budoucí znění",
    "VYHLASENE": "vyhlášené znění",
}
HEADING_PAGES = 2
_ADOPTED = re.compile(r"\bze\s+dne\s+" + WORDED_DATE_PATTERN, re.IGNORECASE)


def act_type(*titles: str | None) -> tuple[str, str]:
    """(type in lower case, gender) from the first title that starts with a known type; ("předpis", "m")."""
    for title in titles:
        start = (title or "").strip().lower()
        for name, gender in ACT_TYPES:
            if start.startswith(name):
                return name, gender
    return "předpis", "m"


def adoption_date(heading: str | None) -> date | None:
    """The "ze dne 18. prosince 2025" line under an act's heading in its promulgated text (its date of adoption);
    ``heading``: the text's first pages (a Sbírka PDF has a cover page before the act)."""
    match = _ADOPTED.search(heading or "")
    return date_of_match(match) if match else None


def api_record_url(stale_url: str, known_urls: list[str]) -> str:
    """The e-Sbírka API record of the act (``…/dokumenty-sbirky/%2Fsb%2F2025%2F573``), on the API host the crawl
    used (from a fragments page or download URL it fetched)."""
    for url in known_urls:
        for marker in ("/dokumenty-sbirky/", "/souborove-dokumenty/"):
            if marker in (url or ""):
                return f"{url.split(marker)[0]}/dokumenty-sbirky/{quote(stale_url, safe='')}"
    return f"https://www.e-sbirka.cz{stale_url}"


def _version_line(version: dict) -> str:
    # the number e-Sbírka gives the version, when it gave one (a count of the stored versions is no such number)
    label = f"znění č. {version['version_number']}" if version["version_number"] else "znění"
    if version["version"] == ANNOUNCED_VERSION:
        label += " (vyhlášené znění, původní text)"
    elif version["version_kind"] in _VERSION_KINDS:
        label += f" ({_VERSION_KINDS[version['version_kind']]})"
    dates = []
    if version["effective_from"]:
        dates.append(f"účinné od {both_dates(version['effective_from'])}")
    if version["effective_to"]:
        dates.append(f"do {both_dates(version['effective_to'])}")
    line = f"- {label}" + (", " + " ".join(dates) if dates else "")
    if version["version_eli"]:
        line += f"; ELI {version['version_eli']}"
    amended = [a.get("citation") for a in version["amended_by"] or [] if a.get("citation")]
    if amended:
        line += "; změny provedl " + ("předpis " if len(amended) == 1 else "předpisy ") + ", ".join(amended)
    return full_stop(line)


def act_name(act: dict, versions: list[dict]) -> tuple[str, str, str, str]:
    """(type, gender, "Vyhláška č. 573/2025 Sb.", its subject "o změně …" or '') of an act."""
    kind, gender = act_type(act.get("title"), *(v["title"] for v in versions))
    subject = act.get("title") or next((v["title"] for v in versions if v["title"]), "")
    if subject.lower().startswith(kind):  # "Vyhláška o změně …" → "o změně …"
        subject = subject[len(kind) :].strip(" ,")
    return kind, gender, f"{kind.capitalize()} č. {act['citation']}", subject


def act_metadata_pages(act: dict, versions: list[dict], amends: list[str]) -> list[str]:
    """An act's e-Sbírka metadata as Czech text."""
    kind, gender, named, subject = act_name(act, versions)
    # The citation stands once in the text (and in the title): a short record repeating it would outrank the
    # act's own provisions for every query that names the act.
    lines = [
        full_stop(f"Údaje e-Sbírky o předpisu {named}" + (f", {subject}" if subject else "")),
        f"ELI {act['eli']}.",
    ]
    verbs = _VERBS[gender]
    announced = next((v["announced"] for v in versions if v["announced"]), None)
    if announced:
        lines.append(
            f"Vyhlášení: {kind} {verbs['was']} vyhlášen{verbs['ending']} ve Sbírce dne "
            f"{both_dates(announced)} (datum vyhlášení)."
        )
        # a Czech act is valid (platný) from the day it is promulgated; people also say "platí" for in effect
        lines.append(f"Platnost: {kind} {verbs['took_effect']} platnosti dnem vyhlášení, {worded_date(announced)}.")
    if act.get("adopted"):
        lines.append(f"Datum přijetí (ze dne): {both_dates(act['adopted'])}, podle textu předpisu.")
    dated = [v["effective_from"] for v in versions if v["effective_from"]]
    effective = commencement(
        [(v["version"], v["effective_from"], v["version_number"]) for v in versions],
        is_promulgated_text(act.get("doc_type")),
    )
    if effective:
        lines.append(
            f"Účinnost: {kind} {verbs['took_effect']} účinnosti dnem {both_dates(effective)}"
            f" (den nabytí účinnosti, datum účinnosti)."
        )
    elif dated:  # only later wordings are stored: the earliest of them is no commencement
        lines.append(
            f"Účinnost: nejstarší uložené znění je účinné od {both_dates(min(dated))}; kdy {kind} "
            f"{verbs['took_effect']} účinnosti, uložená znění neuvádějí."
        )
    ends = [v["effective_to"] for v in versions if v["effective_to"]]
    if ends and all(v["effective_to"] for v in versions if v["effective_from"]):
        lines.append(f"Poslední evidované znění je účinné do {both_dates(max(ends))}.")
    lines.append("")
    ordered = sorted(versions, key=lambda v: (v["effective_from"] or date.min, v["version"]))
    lines.append(f"Znění předpisu uložená z e-Sbírky ({len(ordered)}):")
    lines += [_version_line(v) for v in ordered]
    lines.append("")
    amending = list(dict.fromkeys(a["citation"] for v in ordered for a in v["amended_by"] or [] if a.get("citation")))
    if amending:
        lines.append(
            full_stop(
                f"Novely: {kind} {verbs['amended']} "
                + ("předpisem " if len(amending) == 1 else "předpisy ")
                + ", ".join(amending)
            )
        )
    elif effective:  # the versions run from the original wording: none of them names an amending act
        lines.append("Novely: e-Sbírka u tohoto předpisu neeviduje žádný novelizující předpis.")
    else:
        lines.append("Novely: uložená znění žádný novelizující předpis neuvádějí.")
    if amends:
        lines.append(full_stop("Tento předpis mění (novelizuje): " + ", ".join(amends)))
    lines.append("")
    lines.append(f"Zdroj: e-Sbírka, záznam předpisu {act['stale_url']} (API dokumenty-sbirky) a jeho znění.")
    return ["\n".join(lines)]


def act_metadata_documents(conn: psycopg.Connection) -> list[RecordDocument]:
    """One ``act_metadata`` document per act with versions in ``act_versions`` (whose text is not withdrawn)."""
    rows = conn.execute(
        "SELECT v.doc_id, v.version, v.stale_url, v.citation, v.title, v.version_kind, v.announced, v.effective_from,"
        " v.effective_to, v.version_eli, v.amended_by, v.version_number, v.page_etags, v.published_at,"
        " d.title, d.url, d.published, d.doc_type, (SELECT string_agg(p.text, E'\n' ORDER BY p.page_no) FROM pages p"
        "  WHERE p.version_id = d.current_version_id AND p.page_no <= %s)"
        " FROM act_versions v LEFT JOIN documents d ON d.doc_id = v.doc_id"
        " WHERE coalesce(d.status, 'active') = 'active' ORDER BY v.doc_id, v.version",
        (HEADING_PAGES,),
    ).fetchall()
    acts: dict[str, dict] = {}
    versions: dict[str, list[dict]] = defaultdict(list)
    keys = (
        "version",
        "stale_url",
        "citation",
        "title",
        "version_kind",
        "announced",
        "effective_from",
        "effective_to",
        "version_eli",
        "amended_by",
        "version_number",
        "page_etags",
        "published_at",
    )
    for row in rows:
        doc_id, values = row[0], dict(zip(keys, row[1:14]))
        doc_title, doc_url, doc_published, doc_type, heading_pages = row[14:]
        versions[doc_id].append(values)
        acts.setdefault(
            doc_id,
            {
                "eli": doc_id,
                "title": doc_title,
                "url": doc_url,
                "published": doc_published,
                "heading_pages": heading_pages,
                "doc_type": doc_type,
                "citation": values["citation"],
            },
        )
    amended_acts: dict[str, list[str]] = defaultdict(list)  # amending act ELI -> citations of acts it changed
    for doc_id, act_versions in versions.items():
        for version in act_versions:
            for amending in version["amended_by"] or []:
                if amending.get("eli") and acts[doc_id]["citation"] not in amended_acts[amending["eli"]]:
                    amended_acts[amending["eli"]].append(acts[doc_id]["citation"])
    documents = []
    for doc_id, act in acts.items():
        act_versions = versions[doc_id]
        stale_url = min((v["stale_url"] for v in act_versions), key=len).split("#")[0]
        stale_url = "/".join(stale_url.split("/")[:4])  # /sb/2025/573 without the version date
        known = [act["url"]] + [url for v in act_versions for url in sorted(v["page_etags"] or {})]
        act["api_url"], act["stale_url"] = api_record_url(stale_url, known), stale_url
        act["adopted"] = adoption_date(act["heading_pages"])
        _, _, named, subject = act_name(act, act_versions)
        documents.append(
            RecordDocument(
                doc_id=f"act-metadata:{doc_id}",
                source=ESBIRKA_SOURCE,
                kind=ACT_METADATA,
                url=act["api_url"],
                title=f"{named}" + (f", {subject}" if subject else "") + " – údaje e-Sbírky (účinnost, znění, novely)",
                record=f"esbirka:{stale_url}",
                pages=act_metadata_pages(act, act_versions, amended_acts.get(doc_id, [])),
                sources=[
                    {
                        "doc_id": doc_id,
                        "url": act["api_url"],
                        "act_url": act["url"],
                        "versions": [v["version"] for v in act_versions],
                    }
                ],
                published=act["published"].isoformat() if act["published"] else None,
            )
        )
    return documents
