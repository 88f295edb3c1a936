"""A layer's version columns: which chunks a search on a date serves, read from each chunk once."""

from datetime import date

import pytest

from serving.ranking.in_force import VersionColumns

CHUNKS = [
    {"chunk_id": "decision"},  # no version fields: always served
    {"chunk_id": "pdf", "version_kind": "promulgated", "served_from": "2026-01-01", "served_to": "2026-05-31"},
    {"chunk_id": "june", "version_kind": "consolidated", "served_from": "2026-06-01", "served_to": "2026-09-30"},
    {"chunk_id": "october", "version_kind": "consolidated", "served_from": "2026-10-01", "served_to": None},
]


class ReadCounted(list):
    """Rows that count how often they are read, as a bundle's layer parses a row at each read."""

    reads = 0

    def __iter__(self):
        for row in super().__iter__():
            self.reads += 1
            yield row


@pytest.mark.parametrize(
    "at, version, served",
    [
        (date(2026, 3, 1), None, ["decision", "pdf"]),
        (date(2026, 6, 1), None, ["decision", "june"]),
        (date(2027, 1, 1), None, ["decision", "october"]),  # the last version has no end
        (date(2025, 1, 1), None, ["decision"]),  # before any version is served
        (date(2027, 1, 1), "promulgated", ["decision", "pdf"]),  # the promulgated text, whatever the date
    ],
)
def test_a_date_serves_the_version_in_force_and_every_other_document(at, version, served):
    mask = VersionColumns.of(CHUNKS).mask(at, version)
    assert [chunk["chunk_id"] for chunk, kept in zip(CHUNKS, mask) if kept] == served


def test_each_chunk_is_read_once():
    rows = ReadCounted(CHUNKS)
    columns = VersionColumns.of(rows)
    assert rows.reads == len(CHUNKS)
    assert columns.act.tolist() == [False, True, True, True]


def test_a_layer_without_acts_has_no_mask():
    assert VersionColumns.of([{"chunk_id": "a"}, {"chunk_id": "b"}]).mask(date(2026, 1, 1)) is None
