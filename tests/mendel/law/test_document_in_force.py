"""An act's document (``GET /documents/{id}``, ``document()`` of both serving backends) lists the passages of one
version of the act — the one served on a date, as search serves it (``serving.ranking.in_force``), or its promulgated
text — not every version's at once; on the real versions of vyhláška 573/2025 Sb. (see tests/serving/ranking/test_pg_in_force.py:
§ 4 písm. a) 34,70 Kč until 30. 9. 2026, then 41,80 Kč; písm. c) 44,50 Kč from 1. 6. 2026). Dates are passed
explicitly (never the wall clock)."""

from __future__ import annotations

from datetime import date

import pytest

from tests.support.law import ACT, AFTER_ALL, BEFORE_AMENDMENTS

pytestmark = pytest.mark.e2e

# (date, version) -> a price the act's text holds then, and prices of other versions it must not hold
WORDINGS = [
    ((date(2026, 11, 1), None), "41,80 Kč", ("34,70 Kč",)),
    ((date(2026, 7, 1), None), "44,50 Kč", ("41,80 Kč",)),
    ((BEFORE_AMENDMENTS, None), "34,70 Kč", ("41,80 Kč", "44,50 Kč")),
    ((AFTER_ALL, "promulgated"), "34,70 Kč", ("41,80 Kč", "44,50 Kč")),
]


@pytest.mark.parametrize("backend", ["postgres", "bundle"])
@pytest.mark.parametrize("asked, wording, absent", WORDINGS)
def test_an_act_lists_the_passages_of_the_version_asked_for(searchers, backend, asked, wording, absent):
    day, version = asked
    chunks = searchers[backend].document(ACT, at=day, version=version)["chunks"]
    text = "\n".join(c["text"] for c in chunks)
    assert wording in text and not [price for price in absent if price in text]
    assert len({c["chunk_id"] for c in chunks}) == len(chunks)


def test_both_backends_list_the_same_passages_and_every_version_is_listed_on_some_date(searchers):
    listed = {}
    for (day, version), *_ in WORDINGS:
        ids = [
            [c["chunk_id"] for c in searchers[name].document(ACT, at=day, version=version)["chunks"]]
            for name in ("postgres", "bundle")
        ]
        assert ids[0] == ids[1]
        listed[(day, version)] = set(ids[0])
    every = {i for i in searchers["bundle"].doc_chunks[ACT]}
    assert set().union(*listed.values()) == {searchers["bundle"].chunks[i]["chunk_id"] for i in every}
    assert all(ids < set().union(*listed.values()) for ids in listed.values())  # each date: one version, not all
    with pytest.raises(ValueError):
        searchers["postgres"].document(ACT, at=AFTER_ALL, version="latest")
