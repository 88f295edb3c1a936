"""HELD-OUT gold: the provisions the Nejvyšší soud's database attaches to its decisions (``Dotčené předpisy``).

The decisions of ``sample_corpus/courts/ns_full/`` carry in their header the provisions the court's database lists
for each (``§ 448 odst. 1 písm. a) tr. ř., § 173 odst. 1 písm. d) tr. ř.``; the Sbírka's three decisions call the
field ``Předpisy``). No rule of the recogniser was written against these decisions: this set is held out, to see
how the rules tuned on the lower courts' lists (``ner_eval.court_metadata``, the development set) carry over to
another court and another list. Run it to measure, never to choose a rule.

The header is read as the mirror reads these files (``mendel.records.ns_text_files``), split into items as the NS
pages' header is (``mendel.extract.court_pages.listed_values``) and each item read as the citator reads the court's
own witness (``mendel.citator.court_links``: the abbreviations spelled out, then the recogniser): an (act, §) pair per
item, the act by its canonical citation. Items that give no pair (an act the acts table does not know, a provision
without an act) are counted and listed, never guessed. The recogniser then reads the decision text without the
header (a header block a text carries again, its own or a second decision's, is taken out too) and is scored by
``court_metadata.score_decisions``: recall of the listed pairs, recall of the listed pairs the text writes (the act
named and the § written anywhere in the text, in any form that measure knows), the share of predicted pairs listed,
per agenda, register and category and for the most listed acts, and the misses by kind.

    python -m ner_eval.ns_header_gold [--json] [--misses N]
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mendel.core.config import SAMPLE_CORPUS
from mendel.czech.dates import find_numeric_date
from ner_eval.court_metadata import (
    MISS_KINDS,
    CourtScore,
    LawNorms,
    Pair,
    Tally,
    law_norms,
    run_scorer,
    score_decisions,
)

DECISIONS_DIR = SAMPLE_CORPUS / "courts" / "ns_full"
COURT = "Nejvyšší soud"
# The registers of the criminal agenda (trestní); every other register of these decisions is civil or commercial.
CRIMINAL_REGISTERS = frozenset({"Tdo", "Tz", "Tcu", "Tvo", "Td", "Tul", "Tpjn", "Tmo", "Ntd", "T", "To", "Tm", "Nt"})


@dataclass(frozen=True)
class NsDecision:
    file_number: str
    court: str
    text: str  # the decision without its header
    listed: frozenset[Pair]
    unread: tuple[str, ...]  # listed items that gave no (act, §) pair
    decision_type: str
    category: str  # Kategorie rozhodnutí (A–E) or Druh, "" where the header gives none
    register: str  # of the file number: Tz, Cdo, …
    source: str  # file name
    decided: dt.date | None = None  # Datum rozhodnutí

    @property
    def agenda(self) -> str:
        if not self.register:
            return "?"
        return "trestní" if self.register in CRIMINAL_REGISTERS else "civilní"

    def groups(self) -> dict[str, str]:
        return {
            "type": self.decision_type or "–",
            "agenda": self.agenda,
            "register": self.register or "?",
            "category": self.category or "–",
        }


@dataclass
class HeaderLoad:
    files: int = 0
    decisions: int = 0  # files with a file number
    listing: int = 0  # of them with a list of provisions
    items: int = 0  # listed items
    articles: int = 0  # pairs of an article (čl.), not scored: the development gold scores § alone
    unread: list[dict] = field(default_factory=list)  # items that gave no pair: file, item
    header_blocks_in_text: list[str] = field(default_factory=list)  # files whose text repeats a header: taken out

    @property
    def unread_with_section(self) -> int:
        """Unread items that name a § (each at most one pair): the conservative figure counts them as missed."""
        return sum(1 for u in self.unread if re.search(r"§\s*\d", u["item"]))

    def as_dict(self) -> dict:
        return {
            "files": self.files,
            "decisions": self.decisions,
            "listing": self.listing,
            "items": self.items,
            "articles_not_scored": self.articles,
            "unread": len(self.unread),
            "unread_with_section": self.unread_with_section,
            "unread_items": self.unread,
            "header_blocks_in_text": self.header_blocks_in_text,
        }


def _register(file_number: str) -> str:
    from mendel.law.identifiers import parse_file_number
    from mendel.ner.decisions import REGISTER_SPELLING

    parsed = parse_file_number(file_number)
    return REGISTER_SPELLING.get(parsed.register.upper(), parsed.register) if parsed else ""


def listed_pairs(items: list[str]) -> tuple[list[set[Pair]], int]:
    """Each item's (act, §) pairs as the citator reads the court's list, and how many article pairs were left out."""
    from mendel.citator.court_links import head, item_targets, spelled_out
    from mendel.ner import recognise

    pairs, articles = [], 0
    for entities in recognise([spelled_out(item) for item in items]) if items else []:
        found = set()
        for target in item_targets(entities):
            if target.provision.startswith("§ "):
                found.add((target.key, head(target.provision)))
            else:
                articles += 1
        pairs.append(found)
    return pairs, articles


def without_header_blocks(text: str) -> tuple[str, int]:
    """The text without the header blocks it carries (a file repeating its own header, or a second decision's):
    the lines the NS site's header reader takes as two or more fields."""
    from mendel.records.ns_text_files import NS_HEADER, site_header

    starts = tuple(f"{label}:" for label in NS_HEADER)
    lines, kept, blocks, at = text.split("\n"), [], 0, 0
    while at < len(lines):
        if lines[at].startswith(starts):
            header, length = site_header(lines[at:])
            if len(header) >= 2:
                blocks, at = blocks + 1, at + length
                continue
        kept.append(lines[at])
        at += 1
    return "\n".join(kept), blocks


def load_decisions(paths: Iterable[Path] | None = None) -> tuple[list[NsDecision], HeaderLoad]:
    """The decisions whose header lists provisions (default: every file of ``DECISIONS_DIR``), their listed pairs,
    and what reading the lists left unread."""
    from mendel.extract.court_pages import PROVISION_LABELS, listed_values
    from mendel.records.ns_text_files import read_text_file

    paths = sorted(DECISIONS_DIR.glob("*.txt")) if paths is None else sorted(Path(p) for p in paths)
    load = HeaderLoad(files=len(paths))
    read = []
    for path in paths:
        file = read_text_file(path)
        fields = dict(file.header)
        if not fields.get("Spisová značka"):
            continue
        load.decisions += 1
        items = listed_values(next((fields[label] for label in PROVISION_LABELS if fields.get(label)), None))
        if not items:
            continue
        text, blocks = without_header_blocks(file.text)
        if blocks:
            load.header_blocks_in_text.append(path.name)
        read.append((path.name, fields, items, text))
    load.listing = len(read)
    all_items = [item for _, _, items, _ in read for item in items]
    load.items = len(all_items)
    item_pairs, load.articles = listed_pairs(all_items)
    decisions, at = [], 0
    for name, fields, items, text in read:
        pairs, unread = set(), []
        for item, found in zip(items, item_pairs[at : at + len(items)]):
            pairs |= found
            if not found:
                unread.append(item)
                load.unread.append({"file": name, "item": item})
        at += len(items)
        number = fields["Spisová značka"]
        decisions.append(
            NsDecision(
                number,
                fields.get("Soud") or COURT,
                text,
                frozenset(pairs),
                tuple(unread),
                (fields.get("Typ rozhodnutí") or "").capitalize(),
                fields.get("Kategorie rozhodnutí") or fields.get("Druh") or "",
                _register(number),
                name,
                find_numeric_date(fields.get("Datum rozhodnutí")),  # as the spider reads the field
            )
        )
    return decisions, load


def gold_digest(decisions: Iterable[NsDecision]) -> str:
    """A digest of the gold pairs, to show two runs scored the same gold (its reading uses the recogniser)."""
    digest = hashlib.sha256()
    for decision in sorted(decisions, key=lambda d: d.source):
        digest.update(f"{decision.source}\0{sorted(decision.listed)}\n".encode())
    return digest.hexdigest()[:12]


@dataclass
class HeldOut:
    score: CourtScore
    load: HeaderLoad
    digest: str

    @property
    def conservative_recall(self) -> float:
        """Recall with every unread item that names a § counted as a listed pair missed."""
        listed = self.score.overall.listed + self.load.unread_with_section
        return self.score.overall.found / listed if listed else 1.0

    def as_dict(self, examples: int = 5) -> dict:
        return {
            "held_out": True,
            "gold_digest": self.digest,
            **self.score.as_dict(examples),
            "conservative_recall": round(self.conservative_recall, 4),
            "by_group": {
                name: {value: t.as_dict() for value, t in sorted(tallies.items())}
                for name, tallies in sorted(self.score.by_group.items())
            },
            "load": self.load.as_dict(),
        }


def evaluate(paths: Iterable[Path] | None = None, norms: LawNorms | None = None) -> HeldOut:
    """The recogniser on the held-out decisions; by default each read as the nightly recogniser reads a decision,
    with its date (``law_norms``)."""
    decisions, load = load_decisions(paths)
    if norms is None:
        decided = {decision.text: decision.decided for decision in decisions}
        norms = lambda texts: law_norms(texts, [decided.get(text) for text in texts])  # noqa: E731
    score = score_decisions(decisions, norms, groups=NsDecision.groups)
    return HeldOut(score, load, gold_digest(decisions))


def _row(name: str, t: Tally) -> str:
    decisions = t.decisions or ""  # an act's tally counts no decisions
    return (
        f"{name[:36]:<36} {decisions:>5} {t.listed:>6} {t.found:>6} {t.recall:>7.3f}"
        f" {t.predicted:>6} {t.precision_share:>7.3f}"
    )


def format_report(result: HeldOut, examples: int = 3) -> str:
    score, load = result.score, result.load
    header = f"{'HELD-OUT: NS Dotčené předpisy':<36} {'dec':>5} {'listed':>6} {'found':>6} {'recall':>7}"
    header += f" {'pred':>6} {'share':>7}"
    written = score.written
    lines = [
        header,
        _row("all decisions", score.overall),
        f"{'  of them written in the text':<36} {'':>5} {written.listed:>6} {written.found:>6} {written.recall:>7.3f}",
        f"{'  unread items as misses':<36} {'':>5} {score.overall.listed + load.unread_with_section:>6}"
        f" {score.overall.found:>6} {result.conservative_recall:>7.3f}",
    ]
    groups = {"court": score.by_court, **score.by_group}
    for name, tallies in groups.items():
        lines += ["", f"per {name}:"]
        lines += [_row(value, t) for value, t in sorted(tallies.items(), key=lambda item: (-item[1].listed, item[0]))]
    lines += ["", "ten most listed acts:"] + [_row(act, t) for act, t in score.top_acts()]
    lines += ["", "misses by kind:"]
    for kind, found in score.misses.items():
        lines.append(f"  {kind:<20} {len(found):>5}  {MISS_KINDS[kind]}")
        for miss in found[:examples]:
            lines.append(f"      {miss['act']} {miss['section']} ({miss['decision']}): {miss['context'][:150]}")
    lines += [
        "",
        f"read: {load.files} files, {load.decisions} decisions, {load.listing} with a list of {load.items} items;"
        f" {load.articles} article pairs not scored; {len(load.unread)} items unread"
        f" ({load.unread_with_section} naming a §); gold {result.digest}",
    ]
    lines += [f"  unread: {u['item']} ({u['file']})" for u in load.unread]
    lines += [f"  a header block taken out of the text: {name}" for name in load.header_blocks_in_text]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return run_scorer(argv, evaluate, format_report, "decision files (default: every file of ns_full)")


if __name__ == "__main__":
    sys.exit(main())
