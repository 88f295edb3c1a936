"""The nightly quality review. Quarantine is decided per document: every live document whose current version fails
a hard expectation is quarantined (``quality_quarantine``: the failed expectations and the offending rows; its
chunks go, the chunk stage skips it) and keeps serving its last good version, marked so
(:mod:`mendel.crawl.last_good`); its quarantine row is resolved when the document passes again (its next version,
or the same one reviewed again). Blocking is decided on the corpus: the hard check fails only when the failing
documents cross a limit of ``quarantine`` in the thresholds (their share of the live corpus or of one source, or
their number; never one document), or a failed hard expectation names no document."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Sequence

from mendel.checks.quality.frames import frames_from_database
from mendel.checks.quality.stored_shares import stored_review
from mendel.checks.quality.suites import QualityReport, validate_frames
from mendel.checks.quality.thresholds import load_thresholds
from mendel.crawl import last_good


@dataclass(frozen=True)
class DocumentFailure:
    doc_id: str
    version_id: int
    new: bool  # the version was checked for the first time
    expectations: list[str]  # "pages.no_mojibake", …
    examples: list[str]  # its offending rows
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "doc_id": self.doc_id,
            "version_id": self.version_id,
            "source": self.source,
            "new": self.new,
            "expectations": self.expectations,
            "examples": self.examples,
        }


@dataclass(frozen=True)
class QuarantineLimits:
    """When failing documents block the run (``quarantine`` in the thresholds)."""

    max_failing_share: float = 0.1  # of the live corpus
    max_source_failing_share: float = 0.5  # of one source's live documents ...
    min_source_documents: int = 10  # ... for a source with at least this many
    max_failing_documents: int = 1000
    min_failing_documents: int = 2  # a share blocks only from this many failing documents

    @classmethod
    def from_thresholds(cls, thresholds: dict) -> QuarantineLimits:
        given = thresholds.get("quarantine") or {}
        return cls(
            **{name: type(getattr(cls, name))(given[name]) for name in cls.__dataclass_fields__ if name in given}
        )


@dataclass
class QualityReview:
    """One validation of the live corpus and what the hard expectations made of it."""

    report: QualityReport
    new_versions: int
    failing: list[DocumentFailure]  # live documents that fail a hard expectation
    unattributed: list[str]  # failed hard expectations that name no document (block on their own)
    live_by_source: dict[str, int]  # live documents reviewed (current version with pages), by source
    limits: QuarantineLimits
    recorded: bool = False  # quarantine, last good versions and checked marks written
    resolved: int = 0  # quarantine rows resolved by this review (their document passes again)
    served_last_good: int = 0  # failing documents served from their last good version

    @property
    def new_failing(self) -> int:
        return sum(f.new for f in self.failing)

    @property
    def live_documents(self) -> int:
        return sum(self.live_by_source.values())

    @property
    def failing_share(self) -> float:
        return len(self.failing) / self.live_documents if self.live_documents else 0.0

    def blocking_reasons(self) -> list[str]:
        """Why the hard check fails, one sentence a reason; none when it passes."""
        limits, failing = self.limits, len(self.failing)
        reasons = [f"failed hard expectation {name} names no document" for name in self.unattributed]
        if failing > limits.max_failing_documents:
            reasons.append(
                f"{failing} documents fail hard expectations (max_failing_documents {limits.max_failing_documents})"
            )
        if failing >= limits.min_failing_documents and self.failing_share > limits.max_failing_share:
            reasons.append(
                f"{failing} of {self.live_documents} live documents fail hard expectations"
                f" ({self.failing_share:.1%} > max_failing_share {limits.max_failing_share:.0%})"
            )
        by_source: dict[str, int] = {}
        for failure in self.failing:
            by_source[failure.source] = by_source.get(failure.source, 0) + 1
        for source, count in sorted(by_source.items()):
            live = self.live_by_source.get(source, 0)
            if (
                live >= limits.min_source_documents
                and count >= limits.min_failing_documents
                and count / live > limits.max_source_failing_share
            ):
                reasons.append(
                    f"source {source}: {count} of {live} live documents fail hard expectations"
                    f" ({count / live:.1%} > max_source_failing_share {limits.max_source_failing_share:.0%})"
                )
        return reasons

    def passed(self, severity: str) -> bool:
        if severity != "hard":
            return self.report.passed(severity)
        return not self.blocking_reasons()

    def description(self, severity: str) -> str:
        """One line for the check: what blocks, or what was quarantined."""
        if severity != "hard":
            failed = [f"{o.suite}.{o.name}" for o in self.report.selected(severity) if not o.success]
            return f"soft expectations failed: {', '.join(failed)}" if failed else "every soft expectation met"
        reasons = self.blocking_reasons()
        if reasons:
            return "; ".join(reasons)
        if not self.failing:
            return f"all {self.live_documents} live documents meet the hard expectations"
        return (
            f"{len(self.failing)} of {self.live_documents} live documents quarantined (under every limit), "
            f"{self.served_last_good} served from their last good version"
        )

    def check_metadata(self, severity: str) -> dict[str, Any]:
        metadata = self.report.check_metadata(severity)
        if severity != "hard":
            return metadata
        return {
            **metadata,
            "new_versions": self.new_versions,
            "new_failing": self.new_failing,
            "live_documents": self.live_documents,
            "failing_documents": len(self.failing),
            "failing_share": round(self.failing_share, 4),
            "max_failing_share": self.limits.max_failing_share,
            "max_source_failing_share": self.limits.max_source_failing_share,
            "max_failing_documents": self.limits.max_failing_documents,
            "blocking": "; ".join(self.blocking_reasons()) or "none",
            "quarantined_documents": len(self.failing) if self.recorded else 0,
            "served_last_good": self.served_last_good,
            "resolved_quarantine": self.resolved,
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


# Live documents whose current version has pages: what the review validates (frames, stored shares).
_LIVE_BY_SOURCE = (
    "SELECT d.source, count(*) FROM documents d WHERE d.status = 'active'"
    " AND EXISTS (SELECT 1 FROM pages p WHERE p.version_id = d.current_version_id) GROUP BY d.source"
)


def _record(conn, review: QualityReview, new_versions: Sequence[int]) -> None:
    """Quarantine every failing document (a row already open stays as it is, a resolved one opens again) and
    hold it on its last good version; resolve the rows of documents that pass now and serve their current
    version again; mark the new versions checked."""
    failing = {f.version_id: f for f in review.failing}
    with conn.transaction(), conn.cursor() as cur:
        already_open = {
            version
            for (version,) in cur.execute(
                "SELECT version_id FROM quality_quarantine WHERE resolved_at IS NULL AND version_id = ANY(%s)",
                (list(failing),),
            )
        }
        for failure in failing.values():
            if failure.version_id in already_open:
                continue
            cur.execute(
                "INSERT INTO quality_quarantine (version_id, doc_id, expectations, examples)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (version_id) DO UPDATE SET resolved_at = NULL,"
                " quarantined_at = now(), expectations = EXCLUDED.expectations, examples = EXCLUDED.examples",
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
        failing_docs = [f.doc_id for f in failing.values()]
        review.served_last_good = last_good.hold_last_good(conn, failing_docs)
        cur.execute("DELETE FROM chunks WHERE version_id = ANY(%s)", (list(failing),))
        # every live document with pages was reviewed: those not failing pass
        passing = [
            doc_id
            for (doc_id,) in cur.execute(
                "SELECT DISTINCT q.doc_id FROM quality_quarantine q JOIN documents d ON d.doc_id = q.doc_id"
                " WHERE q.resolved_at IS NULL AND d.status = 'active' AND NOT (d.doc_id = ANY(%s))"
                " AND EXISTS (SELECT 1 FROM pages p WHERE p.version_id = d.current_version_id)",
                (failing_docs,),
            )
        ]
        review.resolved = cur.execute(
            "UPDATE quality_quarantine SET resolved_at = now() WHERE resolved_at IS NULL AND doc_id = ANY(%s)",
            (passing,),
        ).rowcount
        cur.execute(
            "UPDATE quarantine SET resolved_at = now(), resolved_by = 'quality review'"
            " WHERE stage = 'quality' AND resolved_at IS NULL AND doc_id = ANY(%s)",
            (passing,),
        )
        last_good.release(conn, passing)
        cur.execute(
            "UPDATE document_versions SET quality_checked_at = now()"
            " WHERE quality_checked_at IS NULL AND version_id = ANY(%s)",
            (list(new_versions),),
        )


def _review(conn, report: QualityReport, versions: dict[str, int], new: set[str], thresholds: dict) -> QualityReview:
    failing, unattributed = _failing_documents(report, versions, new, int(thresholds.get("examples", 5)))
    sources = dict(
        conn.execute("SELECT doc_id, source FROM documents WHERE doc_id = ANY(%s)", ([f.doc_id for f in failing],))
    )
    return QualityReview(
        report=report,
        new_versions=len(new),
        failing=[replace(f, source=sources.get(f.doc_id, "")) for f in failing],
        unattributed=unattributed,
        live_by_source=dict(conn.execute(_LIVE_BY_SOURCE).fetchall()),
        limits=QuarantineLimits.from_thresholds(thresholds),
    )


def review_database(conn, thresholds: dict | None = None, incremental: bool = True) -> QualityReview:
    """Validate the live corpus, quarantine every document that fails a hard expectation (its chunks go, it is
    served from its last good version) and resolve the quarantine of those that pass again, whether the hard
    check blocks or not (what blocks is the corpus: :meth:`QualityReview.blocking_reasons`).

    ``incremental``: only the versions not reviewed since they were extracted (or since the review changed:
    ``stored_shares.review_version``) are validated, and each expectation's corpus-level result is summed in SQL
    from the live versions' stored shares (:mod:`mendel.checks.quality.stored_shares`); the report is the one a
    validation of the whole corpus gives (``incremental=False``)."""
    thresholds = thresholds or load_thresholds()
    live = stored_review(conn, thresholds) if incremental else None
    if live is None:
        frames = frames_from_database(conn, thresholds)
        report = validate_frames(frames, thresholds)
        versions, new = frames.versions, frames.new
    else:
        report, versions, new = live
    review = _review(conn, report, versions, new, thresholds)
    _record(conn, review, [versions[doc_id] for doc_id in new])
    review.recorded = True
    return review
