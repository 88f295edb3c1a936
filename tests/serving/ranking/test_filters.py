"""Search filters by court, court level and date, and file numbers matched in any of their forms — over documents as
the bundle's documents.json describes them (mendel.nightly.publish_stage, court fields from court_decisions)."""

from __future__ import annotations

from datetime import date

import pytest

from serving.ranking.filters import SearchFilters
from serving.web.facets import Facets, FilterError, checked_filters

DOCUMENTS = {
    "ECLI:CZ:OSNB:2025:6.C.132.2025.1": {
        "source": "justice",
        "doc_type": "decision",
        "citation": "6 C 132/2025-20",
        "published": "2025-06-11",
        "court": "Okresní soud v Nymburce",
        "court_level": "district",
        "file_number": "6 C 132/2025",
    },
    "ECLI:CZ:KSPH:2025:25.CO.19.2023.1": {
        "source": "justice",
        "doc_type": "decision",
        "citation": "25 Co 19/2023-310",
        "published": "2025-04-19",
        "court": "Krajský soud v Praze",
        "court_level": "regional",
        "file_number": "25 Co 19/2023",
    },
    "nalus:2-549-06": {
        "source": "nalus",
        "doc_type": "decision",
        "citation": "II. ÚS 549/06",
        "published": "2006-11-29",
        "court": "Ústavní soud",
        "court_level": "constitutional",
        "file_number": "II. ÚS 549/06",
    },
    "nsoud:X": {
        "source": "nsoud",
        "doc_type": "decision",
        "citation": "13 Cmo 115/2002",
        "published": "2002-10-10",
        "court": "Vrchní soud v Praze",
        "court_level": "high",
        "file_number": "13 Cmo 115/2002",
    },
    "/eli/cz/sb/2025/573": {
        "source": "esbirka",
        "doc_type": "law",
        "citation": "573/2025 Sb.",
        "published": "2025-12-30",
    },
    "nssoud:record": {"source": "nssoud", "doc_type": "citation_record", "citation": "7 Afs 41/2013"},
}
WITH_PASSAGES = set(DOCUMENTS) - {"nssoud:record"}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"court": "Okresní soud v Nymburce"}, {"ECLI:CZ:OSNB:2025:6.C.132.2025.1"}),
        (
            {"court_level": ["district", "regional"]},
            {"ECLI:CZ:OSNB:2025:6.C.132.2025.1", "ECLI:CZ:KSPH:2025:25.CO.19.2023.1"},
        ),
        ({"court_level": "constitutional", "date_from": "2000-01-01"}, {"nalus:2-549-06"}),
        ({"court_level": "regional", "date_to": "2024-12-31"}, set()),
        (
            {"doc_type": "decision", "date_from": "2025-01-01"},
            {"ECLI:CZ:OSNB:2025:6.C.132.2025.1", "ECLI:CZ:KSPH:2025:25.CO.19.2023.1"},
        ),
        ({"act": "II.ÚS 549/06"}, {"nalus:2-549-06"}),
        ({"act": "II. US 549/2006"}, {"nalus:2-549-06"}),
        ({"act": "6 C 132/2025"}, {"ECLI:CZ:OSNB:2025:6.C.132.2025.1"}),  # the decision of its reference number
        ({"act": "25 Co 19/2023 - 310"}, {"ECLI:CZ:KSPH:2025:25.CO.19.2023.1"}),
        ({"act": "573/2025 Sb."}, {"/eli/cz/sb/2025/573"}),
    ],
)
def test_filters_by_court_level_date_and_file_number(filters, expected):
    assert SearchFilters.of(filters).matching_documents(DOCUMENTS) == expected


def test_facets_offer_courts_and_sources_only_with_passages():
    facets = Facets.of_documents(DOCUMENTS, WITH_PASSAGES)
    assert [s["value"] for s in facets.sources] == ["esbirka", "justice", "nalus", "nsoud"]  # no nssoud: no passages
    assert [level["value"] for level in facets.courts["court_level"]] == [
        "constitutional",
        "high",
        "regional",
        "district",
    ]
    assert facets.courts["court_level"][0]["label"] == "Ústavní soud"
    assert "Okresní soud v Nymburce" in facets.courts["court"] and facets.as_dict()["courts"] == facets.courts
    assert Facets.of_documents({"a": {"source": "nssoud"}}, set()).sources == []


class _Searcher:
    documents = DOCUMENTS
    passage_doc_ids = frozenset(WITH_PASSAGES)


def test_a_court_filter_is_checked_against_the_bundle():
    searcher = _Searcher()
    filters = checked_filters(searcher, courts={"court_level": "district", "court": "Okresní soud v Nymburce"})
    assert filters.court == ("Okresní soud v Nymburce",) and filters.court_level == ("district",)
    with pytest.raises(FilterError, match="unknown value 'supreme'"):
        checked_filters(searcher, courts={"court_level": "supreme"})
    with pytest.raises(FilterError):
        checked_filters(searcher, courts={"court": "Okresní soud v Kolíně"})
    assert checked_filters(searcher, date_from=date(2025, 1, 1), courts={"court": " "}).court == ()
