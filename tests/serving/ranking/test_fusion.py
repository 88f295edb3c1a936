"""The learned stage's features (serving.ranking.fusion): telling an amendment clause by its words first answers
exactly as the expression alone, on real decisions of the sample corpus and on each form of the expression."""

from __future__ import annotations

import json

import pytest

from mendel.core.config import SAMPLE_CORPUS
from serving.ranking.fusion import AMENDMENT_RE, AMENDMENT_WORDS, is_amendment


@pytest.mark.parametrize(
    ("text", "amendment"),
    [
        ("Zákon č. 99/1963 Sb. se mění takto:", True),
        ("V § 5 odstavec 2 se zrušuje.", True),
        ("V § 5 se odstavec 2 zrušuje.", False),  # "se" must come right before it
        ("V § 7 SE VKLÁDÁ nový odstavec", True),
        ("slova „do 30 dnů“ se nahrazují slovy „do 60 dnů“", False),  # "slov" whole, then "se slova „"...
        ("a dále se slova „do 30 dnů“ zrušují", True),  # ...as here
        ("za slovo „soud“ se slova „nebo úřad“ vkládají", True),
        ("Odstavec 3 zní: „(3) Obec", False),  # after the colon the expression wants a word character
        ("Odstavec 3 zní:obec", True),
        ("po novele zákona", True),
        ("ſe zrušuje", True),  # the long s is an s to the expression
        ("podle zrušujícího rozhodnutí", False),  # the word, not the form
        ("xnovela", False),  # no word boundary before it
        ("slovo „soud“ ve větě první", False),
        ("Soud rozhodl o dovolání.", False),
        ("", False),
    ],
)
def test_each_form_is_told_as_the_expression_tells_it(text, amendment):
    assert is_amendment(text) is amendment
    assert (AMENDMENT_RE.search(text) is not None) is amendment


def test_real_texts_are_told_as_the_expression_tells_them():
    """Decisions of the supreme court and versions of an act, in the 600 characters candidate_features reads."""
    fulls = [
        json.loads(line)["full_text"]
        for path in sorted((SAMPLE_CORPUS / "courts").glob("ns_decisions*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    fulls += [
        path.read_text(encoding="utf-8") for path in sorted((SAMPLE_CORPUS / "esbirka" / "versions").glob("*.md"))
    ]
    texts = [full[start : start + 600] for full in fulls for start in range(0, len(full), 250)]
    found = [is_amendment(text) for text in texts]
    assert found == [AMENDMENT_RE.search(text) is not None for text in texts]
    assert len(texts) > 500 and 0 < sum(found) < len(texts)  # both answers occur


def test_what_is_amendment_assumes_of_each_form_of_the_expression():
    """Each form starts with an s, n or z and holds one of the words (or all of a tuple): change the expression,
    change these too."""
    body = AMENDMENT_RE.pattern
    assert body.startswith(r"\b(?:") and body.endswith(r")\b")
    forms = body[len(r"\b(?:") : -len(r")\b")].split("|")
    assert len(forms) == len(AMENDMENT_WORDS)
    for form, words in zip(forms, AMENDMENT_WORDS):
        assert form[0].lower() in "snz", form
        for word in (words,) if isinstance(words, str) else words:
            assert word in form.replace(r"\s+", " ").lower(), (form, word)
