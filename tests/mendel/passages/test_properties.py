"""Property tests: the analyser and the chunker hold their invariants on arbitrary Unicode."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mendel.czech.analyzer import analyze
from mendel.passages.chunking import chunk_pages, join_pages

# Czech letters, legal punctuation and line structure are over-represented so headings and sentences occur.
legal_text = st.lists(
    st.one_of(
        st.sampled_from(["§ 5\n", "Čl. II\n", "HLAVA I\n", "ČÁST PRVNÍ\n", ". Zákon ", "odst. 2 ", "\n\n", " "]),
        st.text(alphabet=st.sampled_from(list("abcčdeěfhiíklmnoprřsštuůvyzžAČŘ .,;:()/0123456789\n")), max_size=120),
        st.text(max_size=20),
    ),
    max_size=60,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2000))
def test_analyze_never_fails_and_yields_plain_tokens(text):
    tokens = analyze(text)
    assert all(token and not token.isspace() for token in tokens)


@settings(max_examples=150, deadline=None)
@given(st.lists(legal_text, min_size=1, max_size=4))
def test_chunks_cover_the_text_in_order(pages):
    text, starts = join_pages(pages)
    chunks = chunk_pages(pages)
    previous_end = 0
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.char_start >= previous_end
        assert 1 <= chunk.page_start <= chunk.page_end <= len(pages)
        assert len(chunk.text) <= 800
        previous_end = chunk.char_end
    covered = "".join(text[c.char_start : c.char_end] for c in chunks)
    # Nothing but whitespace is dropped between chunks.
    assert "".join(covered.split()) == "".join(text.split())
