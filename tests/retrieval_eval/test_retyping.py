"""Retyping counted on a question set: words made the question's own again, and where two lexicons part."""

from mendel.czech.wordforms import WordForms
from retrieval_eval.retyping import compare, retyped_words
from serving.query.typed import Lexicon

TEXTS = ["dávka dávka dávka výpověď výpověď výpověď"] * 3
LANGUAGE = WordForms({"dívka": 3e-5, "divka": 3e-8, "dávka": 1e-5, "výpověď": 1e-5})
QUESTION = {"id": "q1", "question": "dívka a výpověď", "variants": {"ascii": "divka a vypoved", "typo": "divka"}}


def test_retyped_words_keep_one_word_for_each_typed():
    assert retyped_words(Lexicon.from_texts(TEXTS), "divka a vypoved") == ["dávka", "a", "výpověď"]


def test_compare_counts_the_words_made_the_questions_own_and_lists_where_lexicons_part():
    lexicons = {"collection": Lexicon.from_texts(TEXTS), "language": Lexicon.from_texts(TEXTS, language=LANGUAGE)}
    result = compare([QUESTION], lexicons)
    ascii_counts = result["forms"]["ascii"]
    assert ascii_counts["words"] == ascii_counts["judged"] == 3
    assert (ascii_counts["right_collection"], ascii_counts["right_language"]) == (2, 3)
    assert (ascii_counts["changed_collection"], ascii_counts["changed_language"]) == (2, 2)
    assert result["forms"]["typo"]["judged"] == 0  # one word for three: not lined up, not judged
    assert result["differ"] == [
        ["q1", "ascii", "divka", "dávka", "dívka", "dívka"],
        ["q1", "typo", "divka", "dávka", "dívka", None],
    ]
