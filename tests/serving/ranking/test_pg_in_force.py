"""Search in force on the postgres serving backend, on the real versions of vyhláška 573/2025 Sb. crawled from the
mirror (as tests/serving/ranking/test_search_in_force.py does for the bundle; the ``searchers`` fixture, tests/conftest.py): the promulgated PDF (§ 4 písm. a) 34,70 Kč, in force
1. 1. – 31. 5. 2026), the consolidated version of 1. 6. 2026 and that of 1. 10. 2026 (§ 4 písm. a) 41,80 Kč).
The same rule as the bundle backend (serving.ranking.in_force) over the database's passages, with the same hit fields.
Dates are passed explicitly (never the wall clock)."""

from __future__ import annotations

from datetime import date

import pytest

from serving.ranking.hits import VERSION_FIELDS
from tests.support.law import ACT, AFTER_ALL, BEFORE_AMENDMENTS, LATEST, QUERY, section_4

pytestmark = pytest.mark.e2e

# (date, version) -> what § 4's best hit holds, what no act hit holds, and its version fields
CASES = [
    (
        (date(2026, 11, 1), None),
        "a) 41,80 Kč",
        "34,70",
        {
            "version_eli": f"{ACT}/{LATEST}",
            "version_kind": "consolidated",
            "valid_from": LATEST,
            "valid_to": None,
            "status": "in_force",
            "page_of": "promulgated",
        },
    ),
    (
        (date(2026, 7, 1), None),
        "c) 44,50 Kč",
        "41,80",
        {
            "version_eli": f"{ACT}/2026-06-01",
            "version_kind": "consolidated",
            "valid_from": "2026-06-01",
            "valid_to": "2026-09-30",
            "status": "in_force",
            "page_of": "promulgated",
        },
    ),
    (
        (BEFORE_AMENDMENTS, None),
        "34,70 Kč",
        "44,50",
        {
            "version_eli": f"{ACT}/2026-01-01",
            "version_kind": "promulgated",
            "valid_from": "2026-01-01",
            "valid_to": "2026-05-31",
            "status": "in_force",
            "page_of": None,
        },
    ),
    ((date(2025, 12, 20), None), "34,70 Kč", "41,80", {"version_kind": "promulgated", "status": "not_yet_in_force"}),
    (
        (AFTER_ALL, "promulgated"),
        "34,70 Kč",
        "41,80",
        {"version_eli": f"{ACT}/2026-01-01", "version_kind": "promulgated", "status": "superseded", "page_of": None},
    ),
]


@pytest.mark.parametrize("asked, wording, absent, fields", CASES)
def test_a_date_serves_the_wording_in_force_then(searchers, asked, wording, absent, fields):
    """Superseded versions' passages are left out (none of the act's hits holds ``absent``); § 4 is found in
    the wording of the version asked for, on the promulgated PDF's page 3, with that version's fields."""
    day, version = asked
    details: dict = {}
    hits = searchers["postgres"].search(QUERY, k=10, at=day, version=version, details=details)
    assert "not_applied" not in details  # the postgres backend runs every stage the bundle backend does
    found = section_4(hits)
    assert found and wording in found[0].text and found[0].page == 3
    assert {name: getattr(found[0], name) for name in fields} == fields
    assert not any(absent in h.text for h in hits if h.doc_id == ACT)
    if version == "promulgated":
        assert all(h.version_kind == "promulgated" for h in hits if h.doc_id == ACT)


def test_an_unknown_version_is_refused(searchers):
    with pytest.raises(ValueError):
        searchers["postgres"].search(QUERY, at=AFTER_ALL, version="latest")


@pytest.mark.parametrize(
    "day, version", [(AFTER_ALL, None), (BEFORE_AMENDMENTS, None), (date(2026, 7, 1), None), (AFTER_ALL, "promulgated")]
)
def test_both_backends_serve_the_same_act_passages_with_the_same_fields(searchers, day, version):
    """The act's passages a date serves and what each hit says of its version agree with the bundle's."""

    def act_hits(name):
        hits = searchers[name].search(QUERY, k=30, at=day, version=version)
        return {h.chunk_id: {f: getattr(h, f) for f in VERSION_FIELDS} for h in hits if h.doc_id == ACT}

    postgres, bundled = act_hits("postgres"), act_hits("bundle")
    assert postgres and postgres == bundled
