"""L1 / L2 / L3 chunks on real documents: every layer points back to the text, pages and sections, and the
layers nest (each passage inside one section, every section inside the document)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mendel.passages.chunking import SECTION_MAX, build_layers, chunk_pages, join_pages
from tests.support.index import law_pages, ns_decisions


@pytest.fixture(scope="module")
def law() -> list[str]:
    return law_pages("176-2025", 4)  # a real act with ČÁST / § structure


def check_nesting(pages: list[str]) -> None:
    text, _ = join_pages(pages)
    layers = build_layers(pages)
    document, sections, passages = layers.document, layers.sections, layers.passages
    assert passages == [p for p in passages if p.layer == 3] and document.layer == 1
    assert [(c.char_start, c.char_end, c.text) for c in passages] == [
        (c.char_start, c.char_end, c.text) for c in chunk_pages(pages)
    ]
    for chunk in [document] + sections + passages:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert 1 <= chunk.page_start <= chunk.page_end <= len(pages)
    assert document.char_start == passages[0].char_start and document.char_end == passages[-1].char_end
    assert [s.seq for s in sections] == list(range(len(sections)))
    for before, after in zip(sections, sections[1:]):
        assert before.char_end <= after.char_start
    for passage in passages:
        parent = sections[passage.parent]
        assert parent.char_start <= passage.char_start and passage.char_end <= parent.char_end
        # the section's path is what its passages share
        assert passage.section_path.startswith(parent.section_path)
    assert {p.parent for p in passages} == set(range(len(sections)))
    for section in sections:
        members = [p for p in passages if p.parent == section.seq]
        assert len(section.text) <= SECTION_MAX or len(members) == 1


def test_layers_nest_on_a_real_act(law):
    check_nesting(law)
    layers = build_layers(law)
    # A § with its paragraphs is one section: its path ends with the § and its text opens with the heading.
    last = [s.section_path.rsplit(" > ", 1)[-1] for s in layers.sections]
    paragraph_sections = [s for s, label in zip(layers.sections, last) if label.startswith("§")]
    assert len(paragraph_sections) >= 2 and sum(label.startswith(("§", "Čl.")) for label in last) >= 4
    for section in paragraph_sections:
        assert section.text.startswith(section.section_path.rsplit(" > ", 1)[-1])
    assert len(layers.sections) < len(layers.passages)


def test_a_decision_without_headings_is_split_into_bounded_sections():
    decision = max(ns_decisions(), key=lambda r: len(r["full_text"]))
    check_nesting([decision["full_text"]])
    sections = build_layers([decision["full_text"]]).sections
    assert len(sections) >= 3
    assert all(s.section_path == "" and len(s.text) <= SECTION_MAX for s in sections)


def test_empty_document_has_no_layers():
    layers = build_layers(["", "   \n  "])
    assert layers.document is None and layers.sections == [] and layers.passages == [] and layers.all() == []


legal_text = st.lists(
    st.one_of(
        st.sampled_from(["§ 5\n", "Čl. II\n", "HLAVA I\n", "ČÁST PRVNÍ\n", ". Zákon ", "odst. 2 ", "\n\n"]),
        st.text(alphabet=st.sampled_from(list("abcčdeěfhiíklmnoprřsštuůvyzžAČŘ .,;:()/0123\n")), max_size=300),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(legal_text, min_size=1, max_size=3))
def test_layers_nest_on_arbitrary_text(pages):
    if chunk_pages(pages):
        check_nesting(pages)
