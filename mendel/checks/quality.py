"""Data quality of extracted documents: Great Expectations suites over documents, pages and sections.

The extracted corpus becomes three pandas frames of derived columns (the page text itself stays out):

* documents - one row per document: its id, page count, letters and the share of Czech-specific letters;
* pages - one row per page: number, expected number (its position), whether it has text, the first
  mojibake found (a snippet) and, for OCR'd pages, the confidence;
* sections - one row per section: kind, depth, page and character span, the document's page count and
  text length.

Each frame is validated by an expectation suite built from `quality_thresholds.yaml`; every expectation
there is `hard` (the blocking asset check fails) or `soft` (a warning). `validate_documents()` checks
`ExtractedDocument`s, `validate_database()` the current extracted versions in PostgreSQL; both return a
`QualityReport` whose `check_metadata(severity)` is what the Dagster checks attach. Great Expectations
takes seconds to import, so it is imported only when a validation runs.

`review_database()` turns hard failures into per-document quarantine: every document whose current version
fails a hard expectation is recorded in `quality_quarantine` with the failed expectations and the offending
rows, its chunks go and the chunk stage skips it; the hard check blocks only when the failing share of new
versions (never checked before) exceeds `quarantine.max_new_failing_share`, and then nothing is recorded.

The review is incremental: each version's share of every expectation (its rows, missing rows, failing rows and
first examples) is stored when it is validated (tables `quality_reviews`, `quality_review_results`), and only the
live versions without a share by the current review version (`review_version()`: thresholds, this code, Great
Expectations' release) since their extraction are validated; the corpus-level results are sums in SQL over the
live versions, exactly what a validation of the whole corpus gives (`review_database(..., incremental=False)`,
tests/mendel/checks/test_quality_incremental.py). A run where nothing changed loads no Great Expectations at all.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

import yaml

from mendel.data import DATA_DIR
from mendel.extract.model import PAGE_SEPARATOR
from mendel.extract.normalize import meaningful_chars

log = logging.getLogger("mendel.checks.quality")
THRESHOLDS_PATH = DATA_DIR / "quality_thresholds.yaml"
SEVERITIES = ("hard", "soft")

_CZECH_LETTERS = frozenset("áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ")
_SNIPPET = 20  # characters either side of a mojibake match


def load_thresholds(path: str | Path | None = None) -> dict:
    with open(path or THRESHOLDS_PATH, encoding="utf-8") as handle:
        thresholds = yaml.safe_load(handle)
    for suite in ("documents", "pages", "sections"):
        for name, rule in thresholds.get(suite, {}).items():
            if rule.get("severity") not in SEVERITIES:
                raise ValueError(f"{suite}.{name}: severity must be one of {SEVERITIES}, not {rule.get('severity')!r}")
    return thresholds


# --- frames --------------------------------------------------------------------------------------


@dataclass
class Frames:
    documents: list[dict] = field(default_factory=list)
    pages: list[dict] = field(default_factory=list)
    sections: list[dict] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)  # doc_id -> the version validated (database only)
    new: set[str] = field(default_factory=set)  # doc_ids whose version is checked for the first time


def czech_share(letters: int, czech: int) -> float:
    return czech / letters if letters else 0.0


def _mojibake(text: str, patterns: list[re.Pattern]) -> str | None:
    first = None
    for pattern in patterns:
        match = pattern.search(text)
        if match and (first is None or match.start() < first.start()):
            first = match
    if first is None:
        return None
    start, end = max(0, first.start() - _SNIPPET), first.end() + _SNIPPET
    return " ".join(text[start:end].split())


class FrameBuilder:
    """Adds one document at a time (its pages and sections in order), keeping only derived columns."""

    def __init__(self, thresholds: dict):
        pages = thresholds["pages"]
        self.patterns = [re.compile(p) for p in pages["no_mojibake"]["patterns"]]
        self.min_chars = int(pages["non_empty_text_share"]["min_meaningful_chars"])
        self.min_letters = int(thresholds["documents"]["czech_character_share"]["min_letters"])
        self.frames = Frames()

    def add(self, doc_id: str, pages: Sequence, sections: Sequence = ()) -> None:
        """`pages`: objects with page_no, text, is_ocr, ocr_confidence (extract.model.Page or rows alike);
        `sections`: objects with kind, label, depth, page_start, page_end, char_start, char_end."""
        letters = czech = text_length = 0
        for position, page in enumerate(pages, start=1):
            text = page.text or ""
            text_length += len(text) + (len(PAGE_SEPARATOR) if position > 1 else 0)
            page_letters = sum(1 for ch in text if ch.isalpha())
            letters += page_letters
            czech += sum(1 for ch in text if ch in _CZECH_LETTERS)
            self.frames.pages.append(
                {
                    "doc_id": doc_id,
                    "page_key": f"{doc_id} p. {page.page_no}",
                    "page_no": int(page.page_no),
                    "expected_page_no": position,
                    "has_text": meaningful_chars(text) >= self.min_chars,
                    "mojibake": _mojibake(text, self.patterns),
                    "ocr_confidence": float(page.ocr_confidence)
                    if page.is_ocr and page.ocr_confidence is not None
                    else None,
                }
            )
        self.frames.documents.append(
            {
                "doc_id": doc_id,
                "pages": len(pages),
                "letters": letters,
                "czech_share": round(czech_share(letters, czech), 4) if letters >= self.min_letters else None,
            }
        )
        for section in sections:
            self.frames.sections.append(
                {
                    "doc_id": doc_id,
                    "section_key": f"{doc_id} {section.label}",
                    "kind": section.kind,
                    "depth": int(section.depth),
                    "page_start": int(section.page_start),
                    "page_end": int(section.page_end),
                    "page_count": len(pages),
                    "char_start": int(section.char_start),
                    "char_end": int(section.char_end),
                    "text_length": text_length,
                }
            )


def frames_from_documents(documents: Iterable[tuple[str, Any]], thresholds: dict) -> Frames:
    """Frames of (doc_id, ExtractedDocument) pairs."""
    builder = FrameBuilder(thresholds)
    for doc_id, document in documents:
        builder.add(doc_id, document.pages, document.sections)
    return builder.frames


@dataclass(frozen=True)
class _PageRow:
    page_no: int
    text: str
    is_ocr: bool
    ocr_confidence: float | None


@dataclass(frozen=True)
class _SectionRow:
    kind: str
    label: str
    depth: int
    page_start: int
    page_end: int
    char_start: int
    char_end: int


_LIVE_UNQUARANTINED = (
    " WHERE d.status = 'active'"
    " AND NOT EXISTS (SELECT 1 FROM quality_quarantine q WHERE q.version_id = d.current_version_id)"
)
# Composed once here from constants: the sections and the pages of live, unquarantined documents' current versions
# (all of them, or those of the versions in %(versions)s).
_ONLY_VERSIONS = " AND d.current_version_id = ANY(%(versions)s)"
_LIVE_SECTIONS_TEMPLATE = (
    "SELECT d.doc_id, s.kind, s.label, s.depth, s.page_start, s.page_end, s.char_start, s.char_end"
    " FROM documents d JOIN sections s ON s.version_id = d.current_version_id" + _LIVE_UNQUARANTINED + "{only}"
    " ORDER BY d.doc_id, s.char_start, s.depth, s.section_id"
)
_LIVE_PAGES_TEMPLATE = (
    "SELECT d.doc_id, d.current_version_id, v.quality_checked_at IS NULL, p.page_no, p.text, p.is_ocr,"
    " p.ocr_confidence FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
    " JOIN pages p ON p.version_id = d.current_version_id" + _LIVE_UNQUARANTINED + "{only}"
    " ORDER BY d.doc_id, p.page_no"
)
# by whether only the versions in %(versions)s are read
_LIVE_SECTIONS = {only: _LIVE_SECTIONS_TEMPLATE.format(only=_ONLY_VERSIONS if only else "") for only in (False, True)}
_LIVE_PAGES = {only: _LIVE_PAGES_TEMPLATE.format(only=_ONLY_VERSIONS if only else "") for only in (False, True)}


def frames_from_database(conn, thresholds: dict, versions: Sequence[int] | None = None) -> Frames:
    """Frames of the current extracted version of every active, unquarantined document that has pages (or of
    those whose current version is in ``versions``), streamed one document at a time so that no more than one
    document's text is held."""
    only = versions is not None
    params = None if versions is None else {"versions": list(versions)}
    builder = FrameBuilder(thresholds)
    sections: dict[str, list[_SectionRow]] = {}
    for doc_id, *row in conn.execute(_LIVE_SECTIONS[only], params):
        sections.setdefault(doc_id, []).append(_SectionRow(*row))
    current: str | None = None
    pages: list[_PageRow] = []
    with conn.cursor() as cursor:
        for doc_id, version_id, is_new, *row in cursor.stream(_LIVE_PAGES[only], params):
            if doc_id != current:
                if current is not None:
                    builder.add(current, pages, sections.get(current, ()))
                current, pages = doc_id, []
                builder.frames.versions[doc_id] = version_id
                if is_new:
                    builder.frames.new.add(doc_id)
            pages.append(_PageRow(*row))
        if current is not None:
            builder.add(current, pages, sections.get(current, ()))
    return builder.frames


# --- suites --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    suite: str
    name: str
    severity: str
    expectation: Any  # a great_expectations.expectations.Expectation


def _plan(thresholds: dict) -> list[Planned]:
    import great_expectations.expectations as gxe

    docs, pages, sections = thresholds["documents"], thresholds["pages"], thresholds["sections"]
    plan = [
        ("documents", "unique_doc_ids", gxe.ExpectColumnValuesToBeUnique(column="doc_id")),
        ("documents", "at_least_one_page", gxe.ExpectColumnValuesToBeBetween(column="pages", min_value=1)),
        (
            "documents",
            "czech_character_share",
            gxe.ExpectColumnValuesToBeBetween(
                column="czech_share",
                min_value=docs["czech_character_share"]["min_share"],
                mostly=docs["czech_character_share"]["mostly"],
            ),
        ),
        (
            "pages",
            "contiguous_page_numbers",
            gxe.ExpectColumnPairValuesToBeEqual(column_A="page_no", column_B="expected_page_no"),
        ),
        ("pages", "unique_page_numbers", gxe.ExpectCompoundColumnsToBeUnique(column_list=["doc_id", "page_no"])),
        (
            "pages",
            "no_mojibake",
            gxe.ExpectColumnValuesToBeNull(column="mojibake", mostly=pages["no_mojibake"].get("mostly", 1.0)),
        ),
        (
            "pages",
            "non_empty_text_share",
            gxe.ExpectColumnValuesToBeInSet(
                column="has_text", value_set=[True], mostly=pages["non_empty_text_share"]["min_share"]
            ),
        ),
        (
            "pages",
            "ocr_confidence",
            gxe.ExpectColumnValuesToBeBetween(
                column="ocr_confidence",
                min_value=pages["ocr_confidence"]["floor"],
                max_value=1.0,
                mostly=pages["ocr_confidence"]["mostly"],
            ),
        ),
        (
            "sections",
            "known_kinds",
            gxe.ExpectColumnValuesToBeInSet(column="kind", value_set=list(sections["known_kinds"]["kinds"])),
        ),
        (
            "sections",
            "page_span_ordered",
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="page_end", column_B="page_start", or_equal=True),
        ),
        (
            "sections",
            "page_span_within_document",
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="page_count", column_B="page_end", or_equal=True),
        ),
        ("sections", "page_span_within_document", gxe.ExpectColumnValuesToBeBetween(column="page_start", min_value=1)),
        (
            "sections",
            "char_span_within_text",
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="char_end", column_B="char_start", or_equal=True),
        ),
        (
            "sections",
            "char_span_within_text",
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="text_length", column_B="char_end", or_equal=True),
        ),
        ("sections", "char_span_within_text", gxe.ExpectColumnValuesToBeBetween(column="char_start", min_value=0)),
        (
            "sections",
            "max_depth",
            gxe.ExpectColumnValuesToBeBetween(column="depth", min_value=1, max_value=sections["max_depth"]["max"]),
        ),
    ]
    rules = {"documents": docs, "pages": pages, "sections": sections}
    return [
        Planned(suite, name, rules[suite][name]["severity"], expectation)
        for suite, name, expectation in plan
        if name in rules[suite]
    ]


_COLUMNS = {
    "documents": ["doc_id", "pages", "letters", "czech_share"],
    "pages": ["doc_id", "page_key", "page_no", "expected_page_no", "has_text", "mojibake", "ocr_confidence"],
    "sections": [
        "doc_id",
        "section_key",
        "kind",
        "depth",
        "page_start",
        "page_end",
        "page_count",
        "char_start",
        "char_end",
        "text_length",
    ],
}
_KEYS = {"documents": "doc_id", "pages": "page_key", "sections": "section_key"}
_DTYPES = {"ocr_confidence": "float64", "czech_share": "float64", "has_text": "bool", "mojibake": "object"}


def _frame(rows: list[dict], suite: str):
    import pandas as pd

    frame = pd.DataFrame(rows, columns=_COLUMNS[suite])
    for column, dtype in _DTYPES.items():
        if column in frame.columns:
            frame[column] = frame[column].astype(dtype)
    return frame


# --- results -------------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


@dataclass(frozen=True)
class Outcome:
    """One expectation's result, as the check metadata shows it."""

    suite: str
    name: str
    severity: str
    expectation: str  # the Great Expectations type, e.g. expect_column_values_to_be_null
    kwargs: dict  # its columns and thresholds
    success: bool
    observed_value: Any  # the statistic (aggregate expectations) or the share of rows that meet it
    element_count: int | None
    unexpected_count: int | None
    unexpected_examples: list[str]  # "<row key>: <value>" for the first few rows that fail
    error: str | None = None
    # doc_id -> "<row key>: <value>" of each of its failing rows (the first few); empty when the expectation
    # passed or its result names no rows (an aggregate expectation, an error)
    unexpected_by_document: dict[str, list[str]] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict:
        return {
            "suite": self.suite,
            "name": self.name,
            "severity": self.severity,
            "expectation": self.expectation,
            "kwargs": self.kwargs,
            "success": self.success,
            "observed_value": self.observed_value,
            "element_count": self.element_count,
            "unexpected_count": self.unexpected_count,
            "unexpected_examples": self.unexpected_examples,
            **({"error": self.error} if self.error else {}),
        }


def _example(entry: dict, key: str) -> str:
    ident = entry.get(key, "?")
    values = ", ".join(f"{k}={v}" for k, v in entry.items() if k not in (key, "doc_id"))
    return f"{ident}: {values}" if values else str(ident)


def _by_document(rows: list[dict], key: str, examples: int) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for entry in rows:
        doc_id = entry.get("doc_id")
        if doc_id is None:
            continue
        shown = found.setdefault(str(doc_id), [])
        if len(shown) < examples:
            shown.append(_example(entry, key))
    return found


def _kwargs(config) -> dict:
    """An expectation's columns and thresholds as the check metadata shows them."""
    return _jsonable({k: v for k, v in config.kwargs.items() if k not in ("batch_id", "result_format")})


def _outcome(planned: Planned, result, key: str, examples: int) -> Outcome:
    config = result.expectation_config
    details = result.result or {}
    kwargs = _kwargs(config)
    observed = details.get("observed_value")
    counted = (details.get("element_count") or 0) - (details.get("missing_count") or 0)
    if observed is None and details.get("element_count") is not None and counted > 0:
        unexpected = details.get("unexpected_percent_nonmissing", details.get("unexpected_percent"))
        observed = round(1.0 - (unexpected or 0.0) / 100.0, 4)
    listed = details.get("partial_unexpected_index_list") or []
    if listed:
        shown = [_example(entry, key) for entry in listed[:examples]]
    else:
        shown = [str(value) for value in (details.get("partial_unexpected_list") or [])[:examples]]
    error = None
    info = getattr(result, "exception_info", None) or {}
    if info.get("raised_exception"):
        error = str(info.get("exception_message"))
    return Outcome(
        suite=planned.suite,
        name=planned.name,
        severity=planned.severity,
        expectation=config.type,
        kwargs=kwargs,
        success=bool(result.success),
        observed_value=_jsonable(observed),
        element_count=details.get("element_count"),
        unexpected_count=details.get("unexpected_count"),
        unexpected_examples=shown,
        error=error,
        unexpected_by_document={}
        if result.success
        else _by_document(details.get("unexpected_index_list") or [], key, examples),
    )


@dataclass
class QualityReport:
    outcomes: list[Outcome]
    counts: dict[str, int]  # rows validated: documents, pages, sections

    def selected(self, severity: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if severity is None or o.severity == severity]

    def passed(self, severity: str | None = None) -> bool:
        return all(o.success for o in self.selected(severity))

    def failures(self, severity: str | None = None) -> list[str]:
        return [f"{o.suite}.{o.name}" for o in self.selected(severity) if not o.success]

    def get(self, suite: str, name: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.suite == suite and o.name == name]

    def markdown(self, severity: str | None = None) -> str:
        lines = ["| suite | expectation | success | observed | unexpected | examples |", "|---|---|---|---|---|---|"]
        for o in self.selected(severity):
            examples = "; ".join(o.unexpected_examples[:3]).replace("|", "\\|") or ""
            lines.append(
                f"| {o.suite} | {o.name} ({o.expectation}) | {'yes' if o.success else '**no**'} "
                f"| {o.observed_value} | {o.unexpected_count if o.unexpected_count is not None else ''} "
                f"| {examples} |"
            )
        return "\n".join(lines)

    def check_metadata(self, severity: str) -> dict[str, Any]:
        """Plain values and a marker per kind; the asset check wraps them in Dagster MetadataValues."""
        selected = self.selected(severity)
        return {
            "expectations": [o.as_dict() for o in selected],
            "summary": self.markdown(severity),
            "failed": ", ".join(self.failures(severity)) or "none",
            "evaluated": len(selected),
            "successful": sum(o.success for o in selected),
            **{f"rows_{name}": n for name, n in self.counts.items()},
        }


# --- validation ----------------------------------------------------------------------------------


def _context():
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def _validated(frames: Frames, thresholds: dict) -> tuple[list[tuple[Planned, Any]], dict[str, int]]:
    """Great Expectations' result of every planned expectation over the frames (an ephemeral context), in plan
    order, and the rows of each suite. A suite without rows is not validated (its expectations have no result)."""
    import great_expectations as gx

    examples = int(thresholds.get("examples", 5))
    plan = _plan(thresholds)
    context = _context()
    source = context.data_sources.add_pandas("mendel_extraction")
    results: list[tuple[Planned, Any]] = []
    counts = {}
    for suite_name in ("documents", "pages", "sections"):
        rows = getattr(frames, suite_name)
        counts[suite_name] = len(rows)
        planned = [p for p in plan if p.suite == suite_name]
        if not planned:
            continue
        suite = context.suites.add(gx.ExpectationSuite(name=f"extraction_{suite_name}"))
        for item in planned:
            suite.add_expectation(item.expectation)
        batch = source.add_dataframe_asset(suite_name).add_batch_definition_whole_dataframe("all")
        definition = context.validation_definitions.add(
            gx.ValidationDefinition(name=f"extraction_{suite_name}", data=batch, suite=suite)
        )
        key = _KEYS[suite_name]
        # COMPLETE: every failing row with its document, for the per-document quarantine
        result = definition.run(
            batch_parameters={"dataframe": _frame(rows, suite_name)},
            result_format={
                "result_format": "COMPLETE",
                "unexpected_index_column_names": list(dict.fromkeys([key, "doc_id"])),
                "partial_unexpected_count": examples,
            },
        )
        by_id = {r.expectation_config.id: r for r in result.results}
        results += [(item, by_id[item.expectation.id]) for item in planned]
    return results, counts


def validate_frames(frames: Frames, thresholds: dict | None = None) -> QualityReport:
    """Runs the documents, pages and sections suites with an ephemeral Great Expectations context."""
    thresholds = thresholds or load_thresholds()
    examples = int(thresholds.get("examples", 5))
    results, counts = _validated(frames, thresholds)
    return QualityReport(
        outcomes=[_outcome(item, result, _KEYS[item.suite], examples) for item, result in results], counts=counts
    )


def validate_documents(documents: Iterable[tuple[str, Any]], thresholds: dict | None = None) -> QualityReport:
    """Validate (doc_id, ExtractedDocument) pairs."""
    thresholds = thresholds or load_thresholds()
    return validate_frames(frames_from_documents(documents, thresholds), thresholds)


def validate_database(conn, thresholds: dict | None = None) -> QualityReport:
    """Validate the current extracted version of every active document in PostgreSQL."""
    thresholds = thresholds or load_thresholds()
    return validate_frames(frames_from_database(conn, thresholds), thresholds)


# --- per-document quarantine ---------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentFailure:
    doc_id: str
    version_id: int
    new: bool  # the version was checked for the first time
    expectations: list[str]  # "pages.no_mojibake", …
    examples: list[str]  # its offending rows

    def as_dict(self) -> dict:
        return {
            "doc_id": self.doc_id,
            "version_id": self.version_id,
            "new": self.new,
            "expectations": self.expectations,
            "examples": self.examples,
        }


@dataclass
class QualityReview:
    """One validation of the live corpus and what the hard expectations made of it."""

    report: QualityReport
    new_versions: int
    failing: list[DocumentFailure]  # documents that fail a hard expectation
    unattributed: list[str]  # failed hard expectations that name no document (block on their own)
    max_new_failing_share: float
    recorded: bool = False  # quarantine and checked marks written (only when the hard check passes)

    @property
    def new_failing(self) -> int:
        return sum(f.new for f in self.failing)

    @property
    def new_failing_share(self) -> float:
        return self.new_failing / self.new_versions if self.new_versions else 0.0

    def passed(self, severity: str) -> bool:
        if severity != "hard":
            return self.report.passed(severity)
        return not self.unattributed and self.new_failing_share <= self.max_new_failing_share

    def check_metadata(self, severity: str) -> dict[str, Any]:
        metadata = self.report.check_metadata(severity)
        if severity != "hard":
            return metadata
        return {
            **metadata,
            "new_versions": self.new_versions,
            "new_failing": self.new_failing,
            "new_failing_share": round(self.new_failing_share, 4),
            "max_new_failing_share": self.max_new_failing_share,
            "quarantined_documents": len(self.failing) if self.recorded else 0,
            "quarantine": [f.as_dict() for f in self.failing],
            "unattributed": ", ".join(self.unattributed) or "none",
        }


def _failing_documents(
    report: QualityReport, versions: dict[str, int], new: set[str], examples: int
) -> tuple[list[DocumentFailure], list[str]]:
    by_document: dict[str, tuple[list[str], list[str]]] = {}
    unattributed = []
    for outcome in report.selected("hard"):
        if outcome.success:
            continue
        name = f"{outcome.suite}.{outcome.name}"
        if not outcome.unexpected_by_document:
            unattributed.append(name)
            continue
        for doc_id, rows in outcome.unexpected_by_document.items():
            expectations, shown = by_document.setdefault(doc_id, ([], []))
            if name not in expectations:
                expectations.append(name)
            shown.extend(rows[: max(0, examples - len(shown))])
    failing = [
        DocumentFailure(doc_id, versions[doc_id], doc_id in new, expectations, shown)
        for doc_id, (expectations, shown) in sorted(by_document.items())
    ]
    return failing, unattributed


def _record(conn, review: QualityReview, new_versions: Sequence[int]) -> None:
    failing = {f.version_id: f for f in review.failing}
    with conn.transaction(), conn.cursor() as cur:
        for failure in failing.values():
            cur.execute(
                "INSERT INTO quality_quarantine (version_id, doc_id, expectations, examples)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (version_id) DO NOTHING",
                (failure.version_id, failure.doc_id, failure.expectations, json.dumps(failure.examples)),
            )
            # the run-wide quarantine log, as extraction and NER write it
            cur.execute(
                "INSERT INTO quarantine (stage, source, doc_id, url, sha256, reason, detail)"
                " SELECT 'quality', d.source, d.doc_id, d.url, v.sha256, %s, %s FROM documents d"
                " JOIN document_versions v ON v.version_id = %s WHERE d.doc_id = %s",
                (
                    f"failed hard expectations: {', '.join(failure.expectations)}",
                    "\n".join(failure.examples),
                    failure.version_id,
                    failure.doc_id,
                ),
            )
        cur.execute("DELETE FROM chunks WHERE version_id = ANY(%s)", (list(failing),))
        cur.execute(
            "UPDATE document_versions SET quality_checked_at = now()"
            " WHERE quality_checked_at IS NULL AND version_id = ANY(%s)",
            (list(new_versions),),
        )


def _review(report: QualityReport, versions: dict[str, int], new: set[str], thresholds: dict) -> QualityReview:
    failing, unattributed = _failing_documents(report, versions, new, int(thresholds.get("examples", 5)))
    return QualityReview(
        report=report,
        new_versions=len(new),
        failing=failing,
        unattributed=unattributed,
        max_new_failing_share=float((thresholds.get("quarantine") or {}).get("max_new_failing_share", 0.0)),
    )


def review_database(conn, thresholds: dict | None = None, incremental: bool = True) -> QualityReview:
    """Validate the live, unquarantined corpus; when the hard check passes, quarantine every document that
    fails a hard expectation (its chunks go; the chunk stage skips it) and mark the new versions checked.
    When it blocks, nothing is written: the same versions count as new on the next run.

    ``incremental``: only the versions not reviewed since they were extracted (or since the review changed:
    :func:`review_version`) are validated, and each expectation's corpus-level result is summed in SQL from the
    live versions' stored shares (:func:`_aggregate`); the report is the one a validation of the whole corpus
    gives (``incremental=False``). The stored shares are no verdict (a blocked review stores them too)."""
    thresholds = thresholds or load_thresholds()
    live = _review_stored(conn, thresholds) if incremental else None
    if live is None:
        frames = frames_from_database(conn, thresholds)
        report = validate_frames(frames, thresholds)
        versions, new = frames.versions, frames.new
    else:
        report, versions, new = live
    review = _review(report, versions, new, thresholds)
    if review.passed("hard"):
        _record(conn, review, [versions[doc_id] for doc_id in new])
        review.recorded = True
    return review


# --- incremental review: each version's share of every expectation, stored and summed ---------------------------

# What the review's results are made from besides the thresholds: this module, the page separator (a section's
# text length), the meaningful characters of a page (has_text) and Great Expectations itself.
_REVIEW_INPUTS = ("checks/quality.py", "passages/chunking.py", "extract/normalize.py")


def review_version(thresholds: dict) -> str:
    """``quality-<12 hex>``: a digest of the thresholds, the review's code and the Great Expectations release; a
    version reviewed by another review version is reviewed again."""
    from importlib.metadata import version

    package = Path(__file__).resolve().parents[1]  # the mendel package
    digest = hashlib.sha256(json.dumps(thresholds, sort_keys=True, ensure_ascii=False, default=str).encode())
    for name in _REVIEW_INPUTS:
        digest.update(f"\0{name}\0".encode() + (package / name).read_bytes())
    digest.update(f"\0great_expectations {version('great_expectations')}".encode())
    return f"quality-{digest.hexdigest()[:12]}"


# Live, unquarantined current versions (d: documents, v: their current version).
_LIVE_VERSIONS = (
    " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id" + _LIVE_UNQUARANTINED
)
_PENDING = (
    "SELECT v.version_id, d.doc_id, v.extracted_at"
    + _LIVE_VERSIONS
    + " AND NOT EXISTS (SELECT 1 FROM quality_reviews r WHERE r.version_id = v.version_id"
    "  AND r.review_version = %s AND r.extracted_at IS NOT DISTINCT FROM v.extracted_at)"
)
# ... and reviewed by this review version since their extraction, with pages: the documents that a validation of
# the whole corpus sees (e: a version's shares, where joined)
_REVIEWED = (
    " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
    " JOIN quality_reviews r ON r.version_id = v.version_id AND r.review_version = %(review)s"
    " AND r.extracted_at IS NOT DISTINCT FROM v.extracted_at{shares}" + _LIVE_UNQUARANTINED + " AND r.pages > 0"
)
_REVIEWED_VERSIONS = _REVIEWED.format(shares="")
_REVIEWED_SHARES = _REVIEWED.format(shares=" JOIN quality_review_results e ON e.version_id = v.version_id")
_REVIEWED_COUNTS = "SELECT sum(r.documents), sum(r.pages), sum(r.sections)" + _REVIEWED_VERSIONS
_REVIEWED_NEW = "SELECT d.doc_id, v.version_id" + _REVIEWED_VERSIONS + " AND v.quality_checked_at IS NULL"
_REVIEWED_SUMS = "SELECT e.position, sum(e.missing), sum(e.unexpected)" + _REVIEWED_SHARES + " GROUP BY e.position"
_REVIEWED_FIRST_EXAMPLES = (
    "SELECT position, examples FROM (SELECT e.position, e.examples, d.doc_id, row_number() OVER"
    " (PARTITION BY e.position ORDER BY d.doc_id) AS n" + _REVIEWED_SHARES + " AND e.unexpected > 0) first"
    " WHERE n <= %(examples)s ORDER BY position, doc_id"
)
_REVIEWED_FAILING = (
    "SELECT e.position, d.doc_id, v.version_id, e.examples"
    + _REVIEWED_SHARES
    + " AND e.unexpected > 0 AND e.position = ANY(%(failed)s) ORDER BY d.doc_id"
)


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _missing_rows(kwargs: dict, rows: Iterable[dict]) -> int:
    """Rows Great Expectations leaves out of an expectation as missing: a null value of its column, or for a pair
    or a list of columns the rows its ``ignore_row_if`` ignores."""
    if "column" in kwargs:
        return sum(_is_missing(row[kwargs["column"]]) for row in rows)
    if "column_A" in kwargs:
        rule = kwargs.get("ignore_row_if", "both_values_are_missing")
        columns = (kwargs["column_A"], kwargs["column_B"])
        test = {"both_values_are_missing": all, "either_value_is_missing": any}.get(rule)
    else:
        rule = kwargs.get("ignore_row_if", "all_values_are_missing")
        columns = tuple(kwargs["column_list"])
        test = {"all_values_are_missing": all, "any_value_is_missing": any}.get(rule)
    if test is None:  # "neither" / "never"
        return 0
    return sum(test(_is_missing(row[c]) for c in columns) for row in rows)


def _config(planned: Planned) -> tuple[str, dict]:
    config = planned.expectation.configuration
    return config.type, _kwargs(config)


def _counts_missing(kind: str) -> bool:
    # expect_column_values_to_be_null counts every row and reports no missing ones (its own _validate)
    return kind != "expect_column_values_to_be_null"


@dataclass(frozen=True)
class _Share:
    """One document's share of one expectation's result."""

    missing: int
    unexpected: int
    examples: list[str]  # its first failing rows, "<row key>: <values>"


def _shares(frames: Frames, results: list[tuple[Planned, Any]], examples: int) -> dict[str, dict[int, _Share]] | None:
    """Each document's share (by plan position) of one validation of several documents; None when a result
    cannot be split by document exactly (an error, failing rows without their documents, missing rows counted
    otherwise than here): then the whole corpus is validated at once, as before."""
    rows_by_doc: dict[str, dict[str, list[dict]]] = {suite: {} for suite in _KEYS}
    for suite, by_doc in rows_by_doc.items():
        for row in getattr(frames, suite):
            by_doc.setdefault(row["doc_id"], []).append(row)
    shares: dict[str, dict[int, _Share]] = {}
    for position, (item, result) in enumerate(results):
        details = result.result or {}
        kind, kwargs = _config(item)
        if (
            (getattr(result, "exception_info", None) or {}).get("raised_exception")
            or (result.expectation_config.type, _kwargs(result.expectation_config)) != (kind, kwargs)
            or _counts_missing(kind) != ("missing_count" in details)
        ):
            return None
        listed = details.get("unexpected_index_list") or []
        if details.get("unexpected_count") != len(listed) or any("doc_id" not in e for e in listed):
            return None
        failing = _by_document(listed, _KEYS[item.suite], examples)
        failing_counts = Counter(str(entry["doc_id"]) for entry in listed)
        missing_total = 0
        for doc_id, rows in rows_by_doc[item.suite].items():
            missing = _missing_rows(kwargs, rows) if _counts_missing(kind) else 0
            missing_total += missing
            bad = failing_counts.pop(str(doc_id), 0)
            if missing or bad:
                shares.setdefault(doc_id, {})[position] = _Share(missing, bad, failing.get(str(doc_id), []))
        if failing_counts or (_counts_missing(kind) and missing_total != details.get("missing_count")):
            return None
    return shares


def _store_plan(conn, review: str, plan: list[Planned]) -> None:
    rows = []
    for position, item in enumerate(plan):
        kind, kwargs = _config(item)
        rows.append(
            (
                review,
                position,
                item.suite,
                item.name,
                item.severity,
                kind,
                json.dumps(kwargs, ensure_ascii=False),
                _counts_missing(kind),
            )
        )
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO quality_review_plans (review_version, position, suite, name, severity, expectation, kwargs,"
            " counts_missing) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            rows,
        )


def _store_shares(
    conn, review: str, pending: list[tuple[int, str, Any]], frames: Frames, shares: dict[str, dict[int, _Share]]
) -> None:
    """The pending versions' reviews (rows per suite; none for a version without pages) and their shares."""
    rows: dict[str, dict[str, int]] = {}
    for suite in ("documents", "pages", "sections"):
        for row in getattr(frames, suite):
            counted = rows.setdefault(row["doc_id"], {"documents": 0, "pages": 0, "sections": 0})
            counted[suite] += 1
    nothing = {"documents": 0, "pages": 0, "sections": 0}
    reviews = []
    for version_id, doc_id, extracted_at in pending:
        counted = rows.get(doc_id, nothing) if frames.versions.get(doc_id) == version_id else nothing
        reviews.append(
            (version_id, doc_id, review, extracted_at, counted["documents"], counted["pages"], counted["sections"])
        )
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("DELETE FROM quality_reviews WHERE version_id = ANY(%s)", ([r[0] for r in reviews],))
        cur.executemany(
            "INSERT INTO quality_reviews (version_id, doc_id, review_version, extracted_at, documents, pages, sections)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            reviews,
        )
        cur.executemany(
            "INSERT INTO quality_review_results (version_id, position, missing, unexpected, examples)"
            " VALUES (%s, %s, %s, %s, %s)",
            [
                (
                    frames.versions[doc_id],
                    position,
                    share.missing,
                    share.unexpected,
                    json.dumps(share.examples, ensure_ascii=False),
                )
                for doc_id, by_position in shares.items()
                for position, share in by_position.items()
            ],
        )


def _review_stored(conn, thresholds: dict) -> tuple[QualityReport, dict[str, int], set[str]] | None:
    """The report of the whole live corpus from the stored shares, after validating the versions not reviewed
    by this review version since their extraction; None where a share cannot be told exactly (see _shares)."""
    review = review_version(thresholds)
    examples = int(thresholds.get("examples", 5))
    pending = conn.execute(_PENDING, (review,)).fetchall()
    planned = conn.execute("SELECT count(*) FROM quality_review_plans WHERE review_version = %s", (review,)).fetchone()[
        0
    ]
    if pending or not planned:
        frames = frames_from_database(conn, thresholds, [version_id for version_id, _, _ in pending])
        if frames.documents or not planned:
            results, _ = _validated(frames, thresholds)
            shares = _shares(frames, results, examples)
            if shares is None:
                log.warning(
                    "quality review: a result could not be split by document; the whole corpus is validated at once"
                )
                return None
            _store_plan(conn, review, [item for item, _ in results])
        else:
            shares = {}
        _store_shares(conn, review, pending, frames, shares)
    return _aggregate(conn, review, examples)


def _aggregate(conn, review: str, examples: int) -> tuple[QualityReport, dict[str, int], set[str]]:
    """Every expectation's corpus-level result as Great Expectations gives it for the whole corpus (see
    :func:`_outcome`), summed in SQL from the live versions' stored shares; the failing rows shown are the first
    ones in document order."""
    params = {"review": review, "examples": examples}
    counts = dict(
        zip(
            ("documents", "pages", "sections"), (int(n or 0) for n in conn.execute(_REVIEWED_COUNTS, params).fetchone())
        )
    )
    versions: dict[str, int] = {}
    new: set[str] = set()
    for doc_id, version_id in conn.execute(_REVIEWED_NEW, params):
        versions[doc_id] = version_id
        new.add(doc_id)
    sums = {
        position: (int(missing), int(unexpected))
        for position, missing, unexpected in conn.execute(_REVIEWED_SUMS, params)
    }
    shown: dict[int, list[str]] = {}
    for position, rows in conn.execute(_REVIEWED_FIRST_EXAMPLES, params):
        shown.setdefault(position, []).extend(rows)
    outcomes = []
    for position, suite, name, severity, kind, kwargs, counts_missing in conn.execute(
        "SELECT position, suite, name, severity, expectation, kwargs, counts_missing FROM quality_review_plans"
        " WHERE review_version = %(review)s ORDER BY position",
        params,
    ):
        total = counts[suite]
        missing, unexpected = sums.get(position, (0, 0))
        considered = total - missing if counts_missing else total
        if total == 0 or considered == 0:
            success = True  # vacuously, as Great Expectations has it
        else:
            success = (float(considered) - float(unexpected)) / float(considered) >= kwargs.get("mostly", 1)
        observed = None
        if considered > 0:
            observed = round(1.0 - (unexpected / considered * 100) / 100.0, 4)
        outcomes.append(
            Outcome(
                suite=suite,
                name=name,
                severity=severity,
                expectation=kind,
                kwargs=kwargs,
                success=success,
                observed_value=observed,
                element_count=total,
                unexpected_count=unexpected,
                unexpected_examples=shown.get(position, [])[:examples],
            )
        )
    failed_hard = [i for i, o in enumerate(outcomes) if o.severity == "hard" and not o.success]
    if failed_hard:
        by_document: dict[int, dict[str, list[str]]] = {i: {} for i in failed_hard}
        for position, doc_id, version_id, rows in conn.execute(_REVIEWED_FAILING, {**params, "failed": failed_hard}):
            by_document[position][doc_id] = rows
            versions[doc_id] = version_id
        outcomes = [
            replace(o, unexpected_by_document=by_document[i]) if i in by_document else o for i, o in enumerate(outcomes)
        ]
    return QualityReport(outcomes=outcomes, counts=counts), versions, new
