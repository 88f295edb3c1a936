"""The incremental quality review: each version's share of every expectation (its rows, missing rows, failing rows
and first examples) is stored when it is validated (``quality_reviews``, ``quality_review_results``), and only
the live versions without a share by the current review version since their extraction are validated; the
corpus-level results are sums in SQL over the live versions, exactly what a validation of the whole corpus gives.
A night where nothing changed loads no Great Expectations at all."""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from mendel.checks.quality import suites
from mendel.checks.quality.frames import LIVE, Frames, frames_from_database
from mendel.checks.quality.suites import (
    ROW_KEYS,
    Outcome,
    Planned,
    QualityReport,
    expectation_kwargs,
    failing_by_document,
)

log = logging.getLogger("mendel.checks.quality.stored_shares")

# What the review's results are made from besides the thresholds: the quality modules, the page separator (a
# section's text length), the meaningful characters of a page (has_text) and Great Expectations itself.
_REVIEW_INPUTS = (
    "checks/quality/thresholds.py",
    "checks/quality/frames.py",
    "checks/quality/suites.py",
    "checks/quality/review.py",
    "checks/quality/stored_shares.py",
    "extract/model.py",
    "extract/normalize.py",
)


def review_version(thresholds: dict) -> str:
    """``quality-<12 hex>``: a digest of the thresholds, the review's code and the Great Expectations release; a
    version reviewed by another review version is reviewed again."""
    from importlib.metadata import version

    package = Path(__file__).resolve().parents[2]  # the mendel package
    digest = hashlib.sha256(json.dumps(thresholds, sort_keys=True, ensure_ascii=False, default=str).encode())
    for name in _REVIEW_INPUTS:
        digest.update(f"\0{name}\0".encode() + (package / name).read_bytes())
    digest.update(f"\0great_expectations {version('great_expectations')}".encode())
    return f"quality-{digest.hexdigest()[:12]}"


# Live current versions (d: documents, v: their current version).
_LIVE_VERSIONS = " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id" + LIVE
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
    " AND r.extracted_at IS NOT DISTINCT FROM v.extracted_at{shares}" + LIVE + " AND r.pages > 0"
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
    return config.type, expectation_kwargs(config)


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
    rows_by_doc: dict[str, dict[str, list[dict]]] = {suite: {} for suite in ROW_KEYS}
    for suite, by_doc in rows_by_doc.items():
        for row in getattr(frames, suite):
            by_doc.setdefault(row["doc_id"], []).append(row)
    shares: dict[str, dict[int, _Share]] = {}
    for position, (item, result) in enumerate(results):
        details = result.result or {}
        kind, kwargs = _config(item)
        if (
            (getattr(result, "exception_info", None) or {}).get("raised_exception")
            or (result.expectation_config.type, expectation_kwargs(result.expectation_config)) != (kind, kwargs)
            or _counts_missing(kind) != ("missing_count" in details)
        ):
            return None
        listed = details.get("unexpected_index_list") or []
        if details.get("unexpected_count") != len(listed) or any("doc_id" not in e for e in listed):
            return None
        failing = failing_by_document(listed, ROW_KEYS[item.suite], examples)
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


def stored_review(conn, thresholds: dict) -> tuple[QualityReport, dict[str, int], set[str]] | None:
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
            results, _ = suites.run_suites(frames, thresholds)
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
    ``suites._outcome``), summed in SQL from the live versions' stored shares; the failing rows shown are the first
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
