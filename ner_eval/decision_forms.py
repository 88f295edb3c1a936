"""DECISION_REF canonical forms measured on real citation strings whose canonical form comes from elsewhere.

Every string below is written by a court or a dataset, and its canonical file number is read from a second,
independent field (never from the string itself):

- ``ús_docket``: the Ústavní soud file numbers of the ConCo citation dataset (``docket_number``, ``II. US 866/16``)
  against the name of the decision's file (``2-866-16_2.txt``; ``Pl-…`` plenary, ``St-…`` plenary opinion);
- ``ús_cited``: the ÚS numbers ÚS decisions cite (``ConCo-ref-ConCo-unlinked.csv``) that name, by senate, number and
  year, a decision whose file the dataset has;
- ``ns_cited``: Nejvyšší soud numbers ÚS decisions cite, against the file of the decision they are linked to
  (``rozhodnuti-30_Cdo_85_2005.txt``);
- ``nss_cited``: Nejvyšší správní soud numbers likewise (``0041_7Afs_130_…_prevedeno.txt``);
- ``court_reference``: the reference numbers of the 1,500 lower-court decisions of the ministry's open data
  (``JednaciCislo``, ``52 C 99/2024-53``) against the decision's ECLI (``ECLI:CZ:MSBR:2025:52.C.99.2024.1``).

ECLI and file number both ways, on the same 1,500 decisions: ``ecli_to_number``, the file number
``mendel.ner.decisions.file_number_of_ecli`` reads from the ECLI against the reference number without its list
number; ``number_to_ecli``, the ECLI ``ecli_of_file_number`` builds from the reference number and the ECLI's court,
year and ordinal against the ECLI.

The canonical form (``ner_eval/GUIDELINES.md``, DECISION_REF; ``mendel.law.identifiers.canonical_file_number``): the
Ústavní soud's years in two digits, every other court's in four.

    python -m ner_eval.decision_forms [--json] [--misses N]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator

from lxml import etree

from mendel.core.config import SAMPLE_CORPUS
from mendel.law.identifiers import CONSTITUTIONAL, PLENARY_OPINION, FileNumber, canonical_file_number

CITATIONS_DIR = SAMPLE_CORPUS / "courts" / "citations"
DECISIONS_DIR = SAMPLE_CORPUS / "courts" / "justice_opendata"
ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV"}

# One string -> the norms of its DECISION_REF mentions.
DecisionNorms = Callable[[list[str]], list[list[str]]]


def _rows(name: str) -> list[dict]:
    raw = (CITATIONS_DIR / name).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # ConCo-ref-rest.csv is in windows-1250
        text = raw.decode("cp1250")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip().lstrip("s") if h.strip() == "ssource_file" else h.strip() for h in next(reader)]
    return [dict(zip(header, (v.strip() for v in row))) for row in reader if row]


_US_FILE = re.compile(r"^(?P<senate>Pl|St|[1-4])-(?P<num>\d+)-(?P<year>\d{2}|\d{4})(?:_\d+)?\.txt$")


def _us_canonical(source_file: str) -> str | None:
    m = _US_FILE.match(source_file)
    if not m:
        return None
    register = PLENARY_OPINION if m["senate"] == "St" else CONSTITUTIONAL
    senate = ROMAN.get(m["senate"], "Pl")
    return canonical_file_number(FileNumber(register, int(m["num"]), m["year"], senate))


_NS_FILE = re.compile(
    r"^rozhodnuti-(?:(?P<senate>\d+)_)?(?P<reg>[A-Za-zČŘŠŽčřšž]+)_(?P<num>\d+)_(?P<year>\d{2,4})_?\.txt$"
)
_NSS_FILE = re.compile(r"^(?P<num>\d{4})_?(?P<senate>\d{1,2})(?P<reg>[A-Za-z]+?)_*(?P<year>\d{2})")


def _ns_canonical(source_file: str) -> str | None:
    m = _NS_FILE.match(source_file)
    if not m:
        return None
    register = {"NSCR": "NSČR"}.get(m["reg"], m["reg"])
    return canonical_file_number(FileNumber(register, int(m["num"]), m["year"], str(int(m["senate"] or 0) or "")))


def _nss_canonical(source_file: str) -> str | None:
    m = _NSS_FILE.match(source_file)
    if not m:
        return None
    return canonical_file_number(FileNumber(m["reg"], int(m["num"]), m["year"], str(int(m["senate"]) or "")))


_ECLI_NUMBER = re.compile(
    r"^ECLI:CZ:[A-Z0-9]+:\d{4}:(?P<senate>\d+)\.(?P<reg>[A-Za-z]+)\.(?P<num>\d+)\.(?P<year>\d{4})\.\d+$"
)


def _loose_us_key(text: str) -> tuple[str, bool, int, int] | None:
    """Senate, opinion or not, number and two-digit year of an ÚS number however written (``IV. US 2127/2012``)."""
    m = re.fullmatch(r"\s*(Pl|IV|III|II|I|[1-4])\s*\.?\s*[ÚU]S\s*(-?\s*st\.)?\s*(\d+)\s*/\s*(\d{2}|\d{4})\s*", text)
    if not m:
        return None
    senate = ROMAN.get(m.group(1), m.group(1))
    return senate, bool(m.group(2)), int(m.group(3)), int(m.group(4)) % 100


def _holds(written: str, canonical: str) -> bool:
    """Whether the string writes the senate, number and year of the decision it is linked to: a link that fails
    this is the dataset's error (``3 As 35/2006-87`` linked to ``7 As 28/2012``) or a cut string (``Ads 6/2005``
    for ``3 Ads 6/2005``, ``32 Cdo 4176/201``), and no recogniser could give the canonical form."""
    groups = [int(g) for g in re.findall(r"\d+", written)]
    *parts, year = (int(g) for g in re.findall(r"\d+", canonical.split("ÚS")[-1] if "ÚS" in canonical else canonical))
    years = {g % 100 for g in groups if g < 100 or 1900 <= g < 2100}
    return all(part in groups for part in parts) and year % 100 in years


def real_strings() -> dict[str, list[tuple[str, str]]]:
    """(string as written, canonical form) per kind, each pair once."""
    kinds: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
    us_known: dict[tuple[str, int, int], str] = {}
    for name in sorted(p.name for p in CITATIONS_DIR.glob("ConCo-*.csv")):
        for row in _rows(name):
            canonical = _us_canonical(row.get("source_file", ""))
            if canonical and row.get("docket_number"):
                kinds["ús_docket"][(row["docket_number"], canonical)] = None
                if key := _loose_us_key(canonical):
                    us_known[key] = canonical
    for row in _rows("ConCo-ref-ConCo-unlinked.csv"):
        key = _loose_us_key(row["reference"])
        if key in us_known:
            kinds["ús_cited"][(row["reference"], us_known[key])] = None
    for name, kind, canonical_of in (
        ("ConCo-ref-SupCo.csv", "ns_cited", _ns_canonical),
        ("ConCo-ref-SupAdmCo.csv", "nss_cited", _nss_canonical),
    ):
        for row in _rows(name):
            canonical = canonical_of(row.get("source_file2", ""))
            if canonical:
                kinds[kind][(row["reference"], canonical)] = None
    for path in sorted(DECISIONS_DIR.glob("*.xml")):
        root = etree.parse(str(path), etree.XMLParser(recover=True, resolve_entities=False, no_network=True)).getroot()
        for record in root.iter("Dokument"):
            reference, ecli = (record.findtext("JednaciCislo") or "").strip(), (record.findtext("ECLI") or "").strip()
            m = _ECLI_NUMBER.match(ecli)
            if reference and m:
                canonical = f"{int(m['senate'])} {m['reg']} {int(m['num'])}/{m['year']}"
                kinds["court_reference"][(reference, canonical)] = None
    return {kind: list(pairs) for kind, pairs in sorted(kinds.items())}


def measured_strings() -> tuple[dict[str, list[tuple[str, str]]], dict[str, int]]:
    """``real_strings`` without the pairs whose string does not hold its linked decision's number (counted)."""
    kept, left_out = {}, {}
    for kind, pairs in real_strings().items():
        kept[kind] = [(w, c) for w, c in pairs if _holds(w, c)]
        left_out[kind] = len(pairs) - len(kept[kind])
    return kept, left_out


def court_eclis() -> list[tuple[str, str]]:
    """(reference number, ECLI) of every decision of the open data, each pair once."""
    pairs: dict[tuple[str, str], None] = {}
    for path in sorted(DECISIONS_DIR.glob("*.xml")):
        root = etree.parse(str(path), etree.XMLParser(recover=True, resolve_entities=False, no_network=True)).getroot()
        for record in root.iter("Dokument"):
            reference, ecli = (record.findtext("JednaciCislo") or "").strip(), (record.findtext("ECLI") or "").strip()
            if reference and ecli:
                pairs[(reference, ecli)] = None
    return list(pairs)


def ecli_both_ways() -> dict:
    """How many ECLIs give their decision's file number, and how many file numbers give their ECLI back."""
    from mendel.ner.decisions import ecli_of_file_number, file_number_of_ecli

    pairs = court_eclis()
    to_number = to_ecli = 0
    for reference, ecli in pairs:
        number = file_number_of_ecli(ecli)
        to_number += number is not None and number.text == re.sub(r"\s*-\s*\d+$", "", reference)
        court, year, core = ecli.split(":")[2], int(ecli.split(":")[3]), ecli.split(":")[4]
        if number is not None:
            to_ecli += ecli_of_file_number(number, court, year, core.rsplit(".", 1)[1]) == ecli
    return {
        "ecli_to_number": {"pairs": len(pairs), "right": to_number, "share": round(to_number / len(pairs), 4)},
        "number_to_ecli": {"pairs": len(pairs), "right": to_ecli, "share": round(to_ecli / len(pairs), 4)},
    }


def decision_norms(texts: list[str]) -> list[list[str]]:
    from mendel.ner import recognise

    return [[e.norm for e in entities if e.label == "DECISION_REF" and e.norm] for entities in recognise(texts)]


def _shape(text: str) -> str:
    return re.sub(r"[a-zá-ž]+", "a", re.sub(r"[A-ZÁ-Ž]+", "A", re.sub(r"\d+", "9", text.strip())))


def measure(norms: DecisionNorms | None = None) -> dict:
    """Share of real strings whose DECISION_REF norm is their canonical form, per kind and overall."""
    norms = norms or decision_norms
    result: dict = {"kinds": {}, "misses_by_shape": {}}
    total = canonical_total = 0
    shapes: Counter = Counter()
    examples: dict[str, list] = defaultdict(list)
    strings, left_out = measured_strings()
    result["left_out"] = left_out
    for kind, pairs in strings.items():
        found = norms([written for written, _ in pairs])
        canonical = 0
        for (written, expected), got in zip(pairs, found):
            if expected in got:
                canonical += 1
            else:
                shape = f"{kind}: {_shape(written)}"
                shapes[shape] += 1
                if len(examples[shape]) < 3:
                    examples[shape].append({"written": written, "expected": expected, "got": got})
        result["kinds"][kind] = {
            "strings": len(pairs),
            "canonical": canonical,
            "share": round(canonical / len(pairs), 4),
        }
        total += len(pairs)
        canonical_total += canonical
    result.update(strings=total, canonical=canonical_total, share=round(canonical_total / total, 4) if total else 1.0)
    result["misses_by_shape"] = {shape: {"count": n, "examples": examples[shape]} for shape, n in shapes.most_common()}
    cited = [row for kind, row in result["kinds"].items() if kind != "ús_docket"]
    cited_canonical, cited_total = sum(r["canonical"] for r in cited), sum(r["strings"] for r in cited)
    result["cited"] = {
        "strings": cited_total,
        "canonical": cited_canonical,
        "share": round(cited_canonical / cited_total, 4),
    }
    result["ecli"] = ecli_both_ways()
    return result


def _lines(result: dict, misses: int) -> Iterator[str]:
    yield f"DECISION_REF canonical: {result['canonical']}/{result['strings']} = {result['share']:.4f}"
    cited = result["cited"]
    yield f"  strings decisions cite (all but ús_docket): {cited['canonical']}/{cited['strings']} = {cited['share']:.4f}"
    for kind, row in result["ecli"].items():
        yield f"  {kind:<16} {row['right']:>6}/{row['pairs']:<6} {row['share']:.4f}"
    for kind, row in result["kinds"].items():
        yield (
            f"  {kind:<16} {row['canonical']:>6}/{row['strings']:<6} {row['share']:.4f}"
            f"  ({result['left_out'][kind]} left out: the string lacks the linked number)"
        )
    for shape, row in list(result["misses_by_shape"].items())[:misses]:
        yield f"  miss {row['count']:>4} {shape}: {row['examples'][:2]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", type=int, default=15, help="shapes of missed strings shown")
    args = parser.parse_args(argv)
    result = measure()
    print(json.dumps(result, ensure_ascii=False, indent=1) if args.json else "\n".join(_lines(result, args.misses)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
