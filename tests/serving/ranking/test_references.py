"""The exact-reference tiers (serving.ranking.references.bundle_tiers): a provision named by a form two codes go by
("§ 36 tr. zák.") is cited by the passages citing either code's provision; one named by the newer code's own form
("§ 205 tr. zákoníku") only by those citing that code's."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from serving.query.analyze import understand
from serving.ranking.references import bundle_tiers

CITING = {
    "LAW_REF:40/2009 Sb. § 36": [5],
    "LAW_REF:140/1961 Sb. § 36": [7, 9],
    "LAW_REF:40/2009 Sb. § 205": [11],
    "LAW_REF:140/1961 Sb. § 205": [12],
    "LAW_REF:89/2012 Sb. § 134": [],
    "LAW_REF:40/1964 Sb. § 134": [3],
}


@pytest.mark.parametrize(
    "query, citing",
    [
        ("trest vyhoštění podle § 36 tr. zák.", [5, 7, 9]),
        ("§ 134 obč. zák. neplatnost", [3]),
        ("§ 205 tr. zákoníku krádež", [11]),
        ("§ 205 zákona č. 40/2009 Sb.", [11]),
    ],
)
def test_a_shared_form_is_cited_in_either_code(query, citing):
    index = SimpleNamespace(section_chunks={}, heading_chunks={}, identifier_chunks={})
    graph = SimpleNamespace(chunks_of=lambda entity: np.asarray(CITING.get(entity, []), dtype=np.int64))
    own, found = bundle_tiers(index, graph, understand(query), None, passages=True)
    assert (own, found) == ([], citing)
