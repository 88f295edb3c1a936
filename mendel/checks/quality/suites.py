"""The Great Expectations suites over the quality frames: one expectation per rule of the thresholds file, run in
an ephemeral context, and the report whose ``check_metadata(severity)`` the Dagster checks attach. Great
Expectations takes seconds to import, so it is imported only when a validation runs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from mendel.checks.quality.frames import Frames, frames_from_database, frames_from_documents
from mendel.checks.quality.thresholds import load_thresholds


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
ROW_KEYS = {"documents": "doc_id", "pages": "page_key", "sections": "section_key"}
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


def failing_by_document(rows: list[dict], key: str, examples: int) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for entry in rows:
        doc_id = entry.get("doc_id")
        if doc_id is None:
            continue
        shown = found.setdefault(str(doc_id), [])
        if len(shown) < examples:
            shown.append(_example(entry, key))
    return found


def expectation_kwargs(config) -> dict:
    """An expectation's columns and thresholds as the check metadata shows them."""
    return _jsonable({k: v for k, v in config.kwargs.items() if k not in ("batch_id", "result_format")})


def _outcome(planned: Planned, result, key: str, examples: int) -> Outcome:
    config = result.expectation_config
    details = result.result or {}
    kwargs = expectation_kwargs(config)
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
        else failing_by_document(details.get("unexpected_index_list") or [], key, examples),
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


def run_suites(frames: Frames, thresholds: dict) -> tuple[list[tuple[Planned, Any]], dict[str, int]]:
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
        key = ROW_KEYS[suite_name]
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
    results, counts = run_suites(frames, thresholds)
    return QualityReport(
        outcomes=[_outcome(item, result, ROW_KEYS[item.suite], examples) for item, result in results], counts=counts
    )


def validate_documents(documents: Iterable[tuple[str, Any]], thresholds: dict | None = None) -> QualityReport:
    """Validate (doc_id, ExtractedDocument) pairs."""
    thresholds = thresholds or load_thresholds()
    return validate_frames(frames_from_documents(documents, thresholds), thresholds)


def validate_database(conn, thresholds: dict | None = None) -> QualityReport:
    """Validate the current extracted version of every active document in PostgreSQL."""
    thresholds = thresholds or load_thresholds()
    return validate_frames(frames_from_database(conn, thresholds), thresholds)
