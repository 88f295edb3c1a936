"""The nightly quality review: every document whose current version fails a hard expectation is quarantined
(``quality_quarantine``: the failed expectations and the offending rows; its chunks go and the chunk stage skips
it). The hard check blocks only when the failing share of new versions (never checked before) exceeds
``quarantine.max_new_failing_share``, and then nothing is recorded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from mendel.checks.quality.frames import frames_from_database
from mendel.checks.quality.stored_shares import stored_review
from mendel.checks.quality.suites import QualityReport, validate_frames
from mendel.checks.quality.thresholds import load_thresholds


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
    ``stored_shares.review_version``) are validated, and each expectation's corpus-level result is summed in SQL
    from the live versions' stored shares (:mod:`mendel.checks.quality.stored_shares`); the report is the one a
    validation of the whole corpus gives (``incremental=False``). The stored shares are no verdict (a blocked
    review stores them too)."""
    thresholds = thresholds or load_thresholds()
    live = stored_review(conn, thresholds) if incremental else None
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
