"""The national list of notice boards, built from the registers of the sample corpus — never typed by hand.

One row per municipality of MPSV's code list (``registry/mpsv_ciselnik_obce.jsonld``, 6,258), one per other board of
the edesky.cz register dump (regions, city districts, offices: ``registry/edesky_boards_2024-05.sql``) and one per
municipal website no single municipality could be tied to. Each row says, where the registers know it:

- the municipality (kód obce, okres, kraj: :mod:`mendel.registers.municipalities`);
- its website (``registry/obecni_weby_cms_2023-11.csv``: the row of the one municipality of that name, or the site
  whose domain spells the name) and the CMS that site runs, hence the rule set that reads its board
  (``mendel/data/board_rules_by_cms.yaml``);
- its board page (``registry/desk_links_2019.json``: the links a 2019 crawl found on 628 sites);
- its OFN feed, when a catalogue read (the register crawl's ``catalogue.jsonl``) is given;
- where every value came from (``provenance``: file and row).

``mendel boards build-list`` writes it to ``mendel/data/boards_national.v1.tsv`` and prints :func:`summary`. The board
finder (:mod:`mendel.crawl.boards.finding`) starts from its rows; a board it finds enters the register only once a
first read yields notices (:mod:`mendel.crawl.boards.candidates`).
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from mendel.crawl.boards.board import Board
from mendel.crawl.boards.cms_rules import (
    UNKNOWN_CMS,
    UNLISTED_SITE,
    WEBSITES_SOURCE,
    CmsRules,
    load_cms_rules,
    load_websites,
    site_domain,
)
from mendel.crawl.boards.finding import BOARD_PATH, NOTICE_PATH
from mendel.data import DATA_DIR
from mendel.registers.municipalities import KINDS, Municipality, fold, key, read_data, register

NATIONAL_FILE = DATA_DIR / "boards_national.v1.tsv"
MPSV_SOURCE = Path("registry") / "mpsv_ciselnik_obce.jsonld"
EDESKY_SOURCE = Path("registry") / "edesky_boards_2024-05.sql"
DESK_LINKS_SOURCE = Path("registry") / "desk_links_2019.json"
# Words a municipal site's domain puts before or after the municipality's name (obec-lhota.cz, mestokadan.cz).
DOMAIN_AFFIXES = ("obecni-urad", "obecniurad", "mestys", "mesto", "obec", "ou", "mu", "urad")
# "Obec Čistá", "Statutární město Opava": the kind of municipality before its name.
KIND_PREFIX = re.compile(r"^(" + "|".join(sorted(KINDS, key=len, reverse=True)) + r")\s+(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class NationalBoard:
    key: str  # obec:{kód obce} | edesky:{urad id} | site:{domain}
    name: str
    obec_kod: str = ""
    okres: str = ""
    kraj: str = ""
    website: str = ""  # the site's domain, as the websites list writes it
    website_from: str = ""  # weby:name | weby:domain | desk_links
    board_url: str = ""
    board_url_from: str = ""  # desk_links_2019
    cms: str = ""  # a key of board_rules_by_cms.yaml, unknown (listed, no CMS named) or unlisted; '' without a site
    rule_set: str = ""  # cms:{key}@{version} when that CMS has one
    ofn_feed: str = ""  # the OFN feed a catalogue read names for the municipality
    edesky: str = ""  # the municipality's boards in the edesky register (their pages there), |-joined
    # Where the row's values came from, "; "-joined: mpsv:{kód} (the code list), edesky:{urad id} (the dump's table
    # urad), weby:{line} (the websites list's CSV line), desk_links:{id} (the 2019 links), catalogue:{dataset}.
    provenance: str = ""

    @property
    def found_by(self) -> str:
        """How the row's board is known: its page (desk links), its site only, a feed only, or nothing."""
        if self.board_url:
            return f"board_url:{self.board_url_from}"
        if self.website:
            return f"website:{self.website_from}"
        if self.ofn_feed:
            return "ofn_feed"
        return "nothing"


COLUMNS = tuple(f.name for f in fields(NationalBoard))


# ---------------------------------------------------------------- reading the registry files


def dump_rows(sql: str, table: str) -> list[dict]:
    """The rows of one ``COPY public.{table} (…) FROM stdin;`` block of a PostgreSQL text dump."""
    start = sql.index(f"COPY public.{table} (")
    header, body = sql[start:].split("\n", 1)
    columns = [c.strip() for c in header[header.index("(") + 1 : header.index(")")].split(",")]
    unescape = {"\\t": "\t", "\\n": "\n", "\\\\": "\\"}
    return [
        dict(
            zip(
                columns,
                (
                    None if v == "\\N" else re.sub(r"\\[tn\\]", lambda m: unescape[m.group(0)], v)
                    for v in line.split("\t")
                ),
            )
        )
        for line in body.split("\n\\.\n", 1)[0].splitlines()
    ]


def visible(text: str | None) -> str:
    """Text without invisible marks (the edesky dump has U+200E in names), spaces collapsed."""
    return " ".join(re.sub(r"[\u200b-\u200f\u2060\ufeff]", "", text or "").split())


def name_key(name: str) -> str:
    """A name's comparison key, dashes written alike (``Brandýs nad Labem – Stará Boleslav``)."""
    return key(re.sub(r"\s*[-\u2013\u2014]\s*", "-", name))


def mpsv_codes(corpus: Path) -> dict[str, tuple[str, str]]:
    """kód obce → (name, okres code) of MPSV's code list."""
    value = json.loads((corpus / MPSV_SOURCE).read_text(encoding="utf-8"))
    return {
        item["kod"]: ((item.get("nazev") or {}).get("cs", ""), str(item.get("okres", "")).removeprefix("Okres/"))
        for item in value["polozky"]
    }


def domain_names(municipalities: list[Municipality]) -> dict[str, list[Municipality]]:
    """A municipality's name as a domain spells it (``Lázně Bělohrad`` → ``laznebelohrad``) → the municipalities."""
    spelled: dict[str, list[Municipality]] = defaultdict(list)
    for m in municipalities:
        spelled[re.sub(r"[^a-z0-9]", "", fold(m.name).lower())].append(m)
    return spelled


def municipality_of_domain(domain: str, spelled: dict[str, list[Municipality]]) -> Municipality | None:
    """The one municipality whose name the domain's first label spells, alone or with an office word around it."""
    label = re.sub(r"[^a-z0-9]", "", domain.split(".", 1)[0].lower())
    forms = {label}
    for affix in DOMAIN_AFFIXES:
        plain = affix.replace("-", "")
        forms |= {label.removeprefix(plain), label.removesuffix(plain)}
    found = {m.code: m for form in forms if form for m in spelled.get(form, [])}
    return next(iter(found.values())) if len(found) == 1 else None


def edesky_municipalities(known, name: str, okres: str) -> list[Municipality]:
    """The municipalities an edesky board's name and okres fit: by the register's board names, else by kind and name
    (edesky writes a name several municipalities share with their okres: ``Obec Čistá (Svitavy)``)."""

    def in_okres(m: Municipality, okres: str) -> bool:
        return not okres or key(m.okres) == key(okres) or key(m.okres).startswith(key(okres) + "-")

    found = [m for m in known.by_board_name.get(key(name), []) if in_okres(m, okres)]
    if found:
        return found
    hinted = re.match(r"^(.*?)\s*(?:\(([^()]+)\)|\bokres\s+(.+))$", name)
    if hinted:
        name, okres = hinted.group(1), hinted.group(2) or hinted.group(3)
    match = KIND_PREFIX.match(name)
    plain = match.group(2) if match else name
    return [m for m in known.by_name.get(key(plain), []) if in_okres(m, okres)]


def board_page(site_url: str, links: list[str]) -> str | None:
    """The board's own page among the links a crawler found on a site: the one most often linked whose address says
    board and not one notice; None when only the home page or notices' pages were found."""
    pages = Counter()
    for link in links:
        url = urljoin(site_url if "//" in site_url else f"http://{site_url}/", link.strip())
        path = unquote(urlsplit(url).path or "/") + (f"?{urlsplit(url).query}" if urlsplit(url).query else "")
        if BOARD_PATH.search(path) and not NOTICE_PATH.search(path):
            pages[url] += 1
    if not pages:
        return None
    return min(pages, key=lambda url: (-pages[url], len(url), url))


# ---------------------------------------------------------------- building


def build(corpus: Path, catalogue: list[Board] | None = None, cms_rules: CmsRules | None = None) -> list[NationalBoard]:
    """The national list from the registry files under ``corpus`` (the sample corpus); ``catalogue``: the boards a
    catalogue read named (:func:`mendel.crawl.boards.catalogue.read_catalogue`), to fill in OFN feeds."""
    from mendel.registers.municipalities import place_boards

    cms_rules = cms_rules or load_cms_rules()
    websites = load_websites()
    municipalities = read_data()
    known = register()
    codes = mpsv_codes(corpus)
    by_code = {m.code: m for m in municipalities}
    rows: dict[str, dict] = {}
    for code in sorted(codes, key=int):
        m = by_code.get(code)
        name = m.name if m else codes[code][0]
        rows[f"obec:{code}"] = {
            "key": f"obec:{code}",
            "name": name,
            "obec_kod": code,
            "okres": m.okres if m else "",
            "kraj": m.kraj if m else "",
            "provenance": [f"mpsv:{code}"],
        }

    # The edesky register: a municipality's boards by their name and okres, the other boards as rows of their own.
    sql = (corpus / EDESKY_SOURCE).read_text(encoding="utf-8")
    for board in dump_rows(sql, "urad"):
        name = visible(board["nazev"])
        okres = visible(board.get("okres")).removeprefix("Okres ")
        candidates = edesky_municipalities(known, name, okres)
        row_key = f"obec:{candidates[0].code}" if len(candidates) == 1 else f"edesky:{board['id']}"
        if row_key not in rows:
            rows[row_key] = {"key": row_key, "name": name, "okres": okres, "kraj": board.get("kraj") or ""}
            rows[row_key]["provenance"] = []
        row = rows[row_key]
        row["edesky"] = "|".join(filter(None, [row.get("edesky"), board["url"]]))
        row["provenance"].append(f"edesky:{board['id']}")

    # The websites list: a row of the one municipality of that name, else of the one whose name the domain spells.
    spelled = domain_names(municipalities)
    by_name: dict[str, list[Municipality]] = defaultdict(list)
    for m in municipalities:
        by_name[name_key(m.name)].append(m)
    site_rows: dict[str, str] = {}  # domain → row key
    with (corpus / WEBSITES_SOURCE).open(encoding="utf-8", newline="") as handle:
        listed = [(number, r) for number, r in enumerate(csv.DictReader(handle), start=2) if r["url"].strip()]
    # Official sites first: a municipality named by several rows keeps its official one.
    for number, site in sorted(listed, key=lambda item: (item[1]["is_official"] != "1", item[0])):
        domain = site_domain(site["url"].strip())
        if domain in site_rows:
            continue
        named = by_name.get(name_key(site["name"]), [])
        if len(named) == 1:
            m, how = named[0], "weby:name"
        else:
            m, how = municipality_of_domain(domain, spelled), "weby:domain"
            if m is not None and name_key(m.name) != name_key(site["name"]):
                m = None  # the domain spells another municipality than the row names
        row_key = f"obec:{m.code}" if m else f"site:{domain}"
        row = rows.setdefault(row_key, {"key": row_key, "name": " ".join(site["name"].split()), "provenance": []})
        if row.get("website"):
            continue  # the municipality has its site already (an official one, or an earlier row)
        row.update(website=domain, website_from=how if m else "weby:unplaced")
        row["provenance"].append(f"weby:{number}")
        site_rows[domain] = row_key

    # The 2019 crawl's board links, by the site they were found on.
    for entry in json.loads((corpus / DESK_LINKS_SOURCE).read_text(encoding="utf-8")):
        domain = site_domain(entry["city-web"])
        row_key = site_rows.get(domain)
        if row_key is None:
            m = municipality_of_domain(domain, spelled)
            row_key = f"obec:{m.code}" if m else f"site:{domain}"
            row = rows.setdefault(row_key, {"key": row_key, "name": domain, "provenance": []})
            if not row.get("website"):
                row.update(website=domain, website_from="desk_links")
                site_rows[domain] = row_key
        row = rows[row_key]
        page = board_page(entry["city-web"], entry.get("desk") or [])
        row["provenance"].append(f"desk_links:{entry['id']}")
        if page and not row.get("board_url"):
            row.update(board_url=page, board_url_from="desk_links_2019")

    # OFN feeds of a catalogue read, by the municipality each board is placed in.
    if catalogue:
        placed, _ = place_boards([b for b in catalogue if b.kind == "ofn"])
        for board in placed:
            row = rows.get(f"obec:{board.obec_kod}") if board.obec_kod else None
            if row is not None and not row.get("ofn_feed"):
                row["ofn_feed"] = board.url
                row["provenance"].append(f"catalogue:{board.dataset or board.url}")

    out = []
    for row in rows.values():
        cms = cms_rules.identify(websites.get(row["website"])) if row.get("website") else ""
        system = cms_rules.system(cms) if cms not in ("", UNKNOWN_CMS, UNLISTED_SITE) else None
        out.append(
            NationalBoard(
                **{k: v for k, v in row.items() if k != "provenance"},
                cms=cms,
                rule_set=f"cms:{cms}@{cms_rules.version}" if system is not None and system.rules else "",
                provenance="; ".join(dict.fromkeys(row["provenance"])),
            )
        )
    return sorted(out, key=lambda b: (b.key.split(":", 1)[0] != "obec", b.key))


# ---------------------------------------------------------------- the table


def write_table(boards: list[NationalBoard], path: Path = NATIONAL_FILE) -> Path:
    with Path(path).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
        writer.writerow(COLUMNS)
        writer.writerows([asdict(b)[c] for c in COLUMNS] for b in boards)
    return Path(path)


def read_table(path: Path = NATIONAL_FILE) -> list[NationalBoard]:
    with Path(path).open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\")
        return [NationalBoard(**{c: row[c] or "" for c in COLUMNS}) for row in reader]


def summary(boards: list[NationalBoard], top: int = 10) -> dict:
    """What the list knows: rows, municipalities, boards with a known page, a CMS rule set, an OFN feed, nothing;
    rows by how their board is known; the commonest CMS families by municipalities."""
    municipal = [b for b in boards if b.obec_kod]
    families = Counter(b.cms for b in municipal if b.cms not in ("", UNKNOWN_CMS, UNLISTED_SITE))
    return {
        "rows": len(boards),
        "municipalities": len(municipal),
        "other_boards": sum(1 for b in boards if b.key.startswith("edesky:")),
        "unplaced_sites": sum(1 for b in boards if b.key.startswith("site:")),
        "with_board_url": sum(1 for b in boards if b.board_url),
        "with_website": sum(1 for b in boards if b.website),
        "with_cms": sum(1 for b in boards if b.cms not in ("", UNKNOWN_CMS, UNLISTED_SITE)),
        "with_rule_set": sum(1 for b in boards if b.rule_set),
        "with_ofn_feed": sum(1 for b in boards if b.ofn_feed),
        "in_edesky": sum(1 for b in boards if b.edesky),
        "without_anything": sum(1 for b in boards if b.found_by == "nothing"),
        "found_by": dict(Counter(b.found_by for b in boards).most_common()),
        "top_cms_by_municipalities": dict(families.most_common(top)),
    }
