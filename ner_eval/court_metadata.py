"""Gold nobody here wrote: the court system's own list of the provisions each decision mentions.

The Ministry of Justice's open data (``sample_corpus/courts/justice_opendata/``) gives, for every published decision
of a district or regional court, ``ZminenaUstanoveni``: the (act, §) pairs the decision mentions, as the court's
system lists them (``§ 142 z. č. 99/1963 Sb.``). Scored here: the recall of those pairs within the recogniser's
LAW_REF norms (every element of a chain counts), and the share of the recogniser's (act, §) pairs that the list
holds, overall, per court and per act, with the misses sorted by kind.

    python -m ner_eval.court_metadata [--json] [--misses N]

The exports are read with a recovering parser: two are not well-formed at one point each and ``export-sample.xml``
is cut off after its fourth record (which repeats ``export-1-100000.xml``). What the parser dropped or repaired and
every record skipped (incomplete, or a repeat of one already read) is counted in ``LoadReport``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from mendel.core.config import SAMPLE_CORPUS
from mendel.law.identifiers import act_citation

DECISIONS_DIR = SAMPLE_CORPUS / "courts" / "justice_opendata"
LISTED = "ZmineneUstanovení"  # sic: the export's element name carries the accent
REQUIRED = ("JednaciCislo", "Soud")
TEXT_PARTS = ("Vyrok", "Oduvodneni")  # a record with neither has no text to score

Pair = tuple[str, str]  # ("99/1963 Sb.", "§ 142")
# One text -> the norms of its LAW_REF mentions, every element of a chain included.
LawNorms = Callable[[Sequence[str]], list[list[str]]]
# One decision -> the groups it is tallied in beside its court: {"agenda": "trestní", "category": "A"}.
Groups = Callable[[object], dict[str, str]]


@dataclass(frozen=True)
class Decision:
    file_number: str  # JednaciCislo as published
    court: str
    ecli: str
    text: str  # Vyrok and Oduvodneni
    listed: frozenset[Pair]
    source: str  # export file


@dataclass
class LoadReport:
    files: int = 0
    records: int = 0  # <Dokument> elements the parser returned
    parse_errors: dict[str, list[str]] = field(default_factory=dict)  # file -> "line N: message"
    skipped_incomplete: int = 0
    skipped_repeated: int = 0
    decisions: int = 0

    def as_dict(self) -> dict:
        return {
            "files": self.files,
            "records": self.records,
            "decisions": self.decisions,
            "skipped_incomplete": self.skipped_incomplete,
            "skipped_repeated": self.skipped_repeated,
            "parse_errors": self.parse_errors,
        }


_LISTED_SECTION = re.compile(r"§+\s*(?P<items>[^§]*?)\s*(?=§|$)")
_LISTED_ACT = re.compile(r"(?P<num>\d{1,4})\s*/\s*(?P<year>\d{4})\s*Sb\.?\s*$")
_SECTION_NUMBER = re.compile(r"^\s*(\d{1,5}[a-zA-Z]{0,2})(?![\w/])")
_BARE_NUMBERS = re.compile(r"^\s*\d{1,5}[a-zA-Z]{0,2}(?:\s*,\s*\d{1,5}[a-zA-Z]{0,2})+\s*,?\s*$")


def parse_listed(value: str) -> list[Pair]:
    """``§ 142 z. č. 99/1963 Sb.`` -> [("99/1963 Sb.", "§ 142")]; ``§ 2,§ 3 …`` and ``§ 5,6 …`` give two pairs;
    sub-units (``odst.``, ``písm.``) are dropped; a value with no act or no § gives none."""
    value = " ".join(value.split())
    act = _LISTED_ACT.search(value)
    if not act:
        return []
    citation = act_citation(act["num"], act["year"])
    provisions = re.split(r"\s+(?:z\.|vyhl\.|nař\.)\s", value[: act.start()])[0]
    pairs = []
    for section in _LISTED_SECTION.finditer(provisions):
        items = section["items"].rstrip(", ")
        numbers = re.findall(r"\d{1,5}[a-zA-Z]{0,2}", items) if _BARE_NUMBERS.match(items) else []
        if not numbers and (first := _SECTION_NUMBER.match(items)):
            numbers = [first.group(1)]
        pairs += [(citation, f"§ {number.lower()}") for number in numbers]
    return pairs


def _text(element, tag: str) -> str:
    return (element.findtext(tag) or "").strip()


def load_decisions(paths: Iterable[Path] | None = None) -> tuple[list[Decision], LoadReport]:
    """Every decision of the exports (default: all of ``DECISIONS_DIR``), each once, and what reading them cost."""
    paths = sorted(DECISIONS_DIR.glob("*.xml")) if paths is None else sorted(Path(p) for p in paths)
    report = LoadReport(files=len(paths))
    decisions: list[Decision] = []
    seen: set[tuple[str, str]] = set()
    for path in paths:
        parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False, no_network=True)
        root = etree.parse(str(path), parser).getroot()
        errors = [f"line {e.line}: {e.message}" for e in parser.error_log]
        if errors:
            report.parse_errors[path.name] = list(dict.fromkeys(errors))
        records = root.findall("Dokument") if root is not None else []
        report.records += len(records)
        for record in records:
            text = "\n\n".join(t for t in (_text(record, tag) for tag in TEXT_PARTS) if t)
            if not text or any(not _text(record, tag) for tag in REQUIRED) or record.find("ZminenaUstanoveni") is None:
                report.skipped_incomplete += 1
                continue
            key = (_text(record, "Soud"), _text(record, "JednaciCislo"))
            if key in seen:
                report.skipped_repeated += 1
                continue
            seen.add(key)
            listed = frozenset(pair for item in record.iter(LISTED) for pair in parse_listed(item.text or ""))
            decisions.append(Decision(key[1], key[0], _text(record, "ECLI"), text, listed, path.name))
    report.decisions = len(decisions)
    return decisions, report


# --------------------------------------------------------------------------
# The recogniser's pairs
# --------------------------------------------------------------------------

_PROVISION_SECTION = re.compile(r"^§\s*(\d{1,5}[a-z]{0,2})\b")


def law_norms(texts: Sequence[str], decided: Sequence | None = None) -> list[list[str]]:
    """The LAW_REF norms of each text by ``mendel.ner.recognise``, a chain's elements each with its own norm;
    ``decided``: each text's decision date, as the nightly recogniser reads a decision (a code's shared form names
    the code in force then)."""
    from mendel.ner import recognise
    from mendel.ner.document_acts import DocumentActs

    documents = None if decided is None else [DocumentActs(decided=day) for day in decided]
    return [
        [norm for entity in entities if entity.label == "LAW_REF" for norm in _entity_norms(entity)]
        for entities in recognise(list(texts), documents=documents)
    ]


def _entity_norms(entity) -> list[str]:
    elements = getattr(entity, "elements", ())
    if elements:
        return [element.norm for element in elements if element.norm]
    return [entity.norm] if entity.norm else []


def pairs_of_norm(norm: str) -> tuple[str | None, str] | None:
    """``99/1963 Sb. § 142 odst. 1`` -> ("99/1963 Sb.", "§ 142"); ``§ 5`` -> (None, "§ 5"); None without a §."""
    from mendel.ner.rules import split_law_ref_norm

    act, provision = split_law_ref_norm(norm)
    m = _PROVISION_SECTION.match(provision or "")
    if not m:
        return None
    return act, f"§ {m.group(1)}"


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------

MISS_KINDS = {
    "without_act": "the § was recognised, with no act",
    "other_act": "the § was recognised, with another act",
    "in_a_list": "the number stands in a provision list after another §, not recognised",
    "after_section_mark": "'§ N' is in the text, not recognised",
    "in_a_range": "the number lies inside a range the text writes ('§ 45 až § 50'), not recognised",
    "not_in_text": "the text never writes the number after a § or in a provision list",
}


@dataclass
class Tally:
    listed: int = 0
    found: int = 0  # listed pairs the recogniser has
    predicted: int = 0  # the recogniser's (act, §) pairs
    predicted_listed: int = 0  # of those, listed
    decisions: int = 0

    @property
    def recall(self) -> float:
        return self.found / self.listed if self.listed else 1.0

    @property
    def precision_share(self) -> float:
        return self.predicted_listed / self.predicted if self.predicted else 1.0

    def as_dict(self) -> dict:
        return {
            "decisions": self.decisions,
            "listed": self.listed,
            "found": self.found,
            "recall": round(self.recall, 4),
            "predicted": self.predicted,
            "predicted_listed": self.predicted_listed,
            "precision_share": round(self.precision_share, 4),
        }


@dataclass
class CourtScore:
    overall: Tally
    by_court: dict[str, Tally]
    by_act: dict[str, Tally]
    misses: dict[str, list[dict]]  # kind -> examples (all of them; the report shows a few)
    load: LoadReport | None = None
    # the listed pairs whose act and § the decision's text writes (the act by number or by a name or abbreviation
    # of the acts table, the § after a § mark, in a provision list or inside a range), and how many of them were found: what
    # is left when the lists' own errors and provisions the text does not cite are set aside
    written: Tally = field(default_factory=Tally)
    by_group: dict[str, dict[str, Tally]] = field(default_factory=dict)  # grouping -> its value -> tally

    def top_acts(self, n: int = 10) -> list[tuple[str, Tally]]:
        return sorted(self.by_act.items(), key=lambda item: (-item[1].listed, item[0]))[:n]

    def as_dict(self, examples: int = 5) -> dict:
        return {
            **self.overall.as_dict(),
            "written_in_text": {
                "listed": self.written.listed,
                "found": self.written.found,
                "recall": round(self.written.recall, 4),
            },
            "load": self.load.as_dict() if self.load else None,
            "by_court": {court: t.as_dict() for court, t in sorted(self.by_court.items())},
            "top_acts": {act: t.as_dict() for act, t in self.top_acts()},
            "misses": {kind: len(found) for kind, found in self.misses.items()},
            "miss_examples": {kind: found[:examples] for kind, found in self.misses.items()},
        }


def _miss_kind(text: str, pair: Pair, predicted: set[tuple[str | None, str]]) -> tuple[str, int]:
    act, section = pair
    acts = {a for a, s in predicted if s == section}
    if None in acts:
        kind = "without_act"
    elif acts:
        kind = "other_act"
    else:
        kind = "not_in_text"
    after_mark, in_list, in_range = _where_written(text, section[2:])
    where = after_mark or in_list or in_range
    if kind == "not_in_text" and where:
        kind = "after_section_mark" if after_mark else "in_a_list" if in_list else "in_a_range"
    return kind, where.start() if where else -1


# "§ 45 až § 50", "§§ 45–50", "§ 45 až 50": the inner sections are cited too (the recogniser's ranges,
# mendel.ner.provisions, expand at most this many steps)
_RANGE = re.compile(r"§§?\s*(\d{1,5})\s*(?:\s(?:a\s+)?až\s|[-–])\s*(?:§\s*)?(\d{1,5})(?![\w/])")
MAX_RANGE_STEPS = 30


def _where_written(text: str, section: str) -> tuple[re.Match | None, re.Match | None, re.Match | None]:
    """Where the text writes a section: after a § mark (a thousand set apart or not), as a later number of a
    provision list, inside a range."""
    number = re.escape(section)
    if re.fullmatch(r"[1-3]\d{3}[a-z]*", section):  # "§ 2 395": the thousands set apart
        number = rf"{section[0]}[ \t\u00a0]?{re.escape(section[1:])}"
    after_mark = re.search(rf"§§?\s*{number}(?![\w/])", text, re.IGNORECASE)
    in_list = re.search(rf"§[^.;§]{{0,80}}?(?:,|\ba\b|\baž\b|[-–])\s*{number}(?![\w/])", text)
    in_range = None
    if section.isdigit():
        in_range = next(
            (
                m
                for m in _RANGE.finditer(text)
                if int(m[1]) < int(section) < int(m[2]) and int(m[2]) - int(m[1]) <= MAX_RANGE_STEPS
            ),
            None,
        )
    return after_mark, in_list, in_range


def _named_acts(text: str) -> set[str]:
    """The acts a text names by number ("99/1963", "89/2012") or by a name or abbreviation of the acts table."""
    from mendel.ner.acts import gazetteer

    numbers = {f"{int(n)}/{y}" for n, y in re.findall(r"(?<![\d/])(\d{1,4})\s*/\s*((?:19|20)\d{2})(?!\d)", text)}
    return numbers | {m.citation.split(" ")[0] for m in gazetteer().finditer(text)}


def _written(text: str, pair: Pair, named: set[str]) -> bool:
    return any(_where_written(text, pair[1][2:])) and pair[0].split(" ")[0] in named


def score_decisions(
    decisions: Sequence[Decision], norms: LawNorms | None = None, batch: int = 64, groups: Groups | None = None
) -> CourtScore:
    """Recall of the listed pairs, share of predicted pairs listed: overall, per court, per act, per ``groups``
    (each decision's groups beside its court); misses by kind."""
    norms = norms or law_norms
    overall, by_court, by_act, written = Tally(), defaultdict(Tally), defaultdict(Tally), Tally()
    by_group: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    misses: dict[str, list[dict]] = {kind: [] for kind in MISS_KINDS}
    for first in range(0, len(decisions), batch):
        chunk = decisions[first : first + batch]
        for decision, found_norms in zip(chunk, norms([d.text for d in chunk])):
            predicted = {p for p in (pairs_of_norm(n) for n in found_norms) if p is not None}
            with_act = {p for p in predicted if p[0] is not None}
            in_groups = [by_group[name][value] for name, value in (groups(decision) if groups else {}).items()]
            for tally in (overall, by_court[decision.court], *in_groups):
                tally.decisions += 1
            named = _named_acts(decision.text)
            for pair in sorted(decision.listed):
                hit = pair in with_act
                is_written = _written(decision.text, pair, named)
                if is_written:
                    written.listed += 1
                    written.found += hit
                for tally in (overall, by_court[decision.court], by_act[pair[0]], *in_groups):
                    tally.listed += 1
                    tally.found += hit
                if not hit:
                    kind, at = _miss_kind(decision.text, pair, predicted)
                    context = decision.text[max(0, at - 60) : at + 100] if at >= 0 else ""
                    misses[kind].append(
                        {
                            "decision": decision.file_number,
                            "court": decision.court,
                            "act": pair[0],
                            "section": pair[1],
                            "written": is_written,
                            "context": " ".join(context.split()),
                        }
                    )
            for pair in with_act:
                listed = pair in decision.listed
                for tally in (overall, by_court[decision.court], by_act[pair[0]], *in_groups):
                    tally.predicted += 1
                    tally.predicted_listed += listed
    grouped = {name: dict(tallies) for name, tallies in by_group.items()}
    return CourtScore(overall, dict(by_court), dict(by_act), misses, written=written, by_group=grouped)


def format_report(result: CourtScore, examples: int = 3) -> str:
    def row(name: str, t: Tally) -> str:
        return f"{name[:44]:<44} {t.listed:>6} {t.found:>6} {t.recall:>7.3f} {t.predicted:>6} {t.precision_share:>7.3f}"

    header = f"{'':<44} {'listed':>6} {'found':>6} {'recall':>7} {'pred':>6} {'share':>7}"
    written = result.written
    lines = [
        header,
        row("all decisions", result.overall),
        f"{'  of them written in the text (act and §)':<44} {written.listed:>6} {written.found:>6} {written.recall:>7.3f}",
        "",
        "per court:",
    ]
    lines += [row(court, t) for court, t in sorted(result.by_court.items())]
    lines += ["", "ten most listed acts:"] + [row(act, t) for act, t in result.top_acts()]
    lines += ["", "misses by kind:"]
    for kind, found in result.misses.items():
        lines.append(f"  {kind:<20} {len(found):>5}  {MISS_KINDS[kind]}")
        for miss in found[:examples]:
            lines.append(f"      {miss['act']} {miss['section']} ({miss['decision']}): {miss['context'][:150]}")
    if result.load:
        load = result.load
        lines += [
            "",
            f"read: {load.files} files, {load.records} records, {load.decisions} decisions;"
            f" skipped {load.skipped_incomplete} incomplete, {load.skipped_repeated} repeated",
        ]
        lines += [f"  {name}: {'; '.join(errors)}" for name, errors in sorted(load.parse_errors.items())]
    return "\n".join(lines)


def evaluate(paths: Iterable[Path] | None = None, norms: LawNorms | None = None) -> CourtScore:
    decisions, load = load_decisions(paths)
    result = score_decisions(decisions, norms)
    result.load = load
    return result


def run_scorer(argv: list[str] | None, evaluate, format_report, paths_help: str) -> int:
    """The command line of a court-list scorer (this one, ``ns_header_gold``): files, ``--json``, ``--misses``."""
    parser = argparse.ArgumentParser(description=sys.modules[evaluate.__module__].__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help=paths_help)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", type=int, default=3, help="examples shown per kind of miss")
    args = parser.parse_args(argv)
    result = evaluate(args.paths or None)
    if args.json:
        print(json.dumps(result.as_dict(examples=args.misses), ensure_ascii=False, indent=1))
    else:
        print(format_report(result, examples=args.misses))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_scorer(argv, evaluate, format_report, "export files (default: every file of the sample)")


if __name__ == "__main__":
    sys.exit(main())
