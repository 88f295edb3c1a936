"""LAW_REF on UD Czech-CLTT: the text rebuilt from the tokens, the joined references as gold spans."""

from __future__ import annotations

from ner_eval.cltt import Sentence, read_conllu, score

CONLLU = """# sent_id = s1
# text = Podle ustanovení §_28_zákona se odpisuje.
1\tPodle\tpodle\tADP\t_\t_\t0\troot\t_\t_
2\tustanovení\tustanovení\tNOUN\t_\t_\t1\tobl\t_\t_
3\t§_28_zákona\t§_28_zákona\tX\t_\t_\t2\tnmod\t_\t_
4\tse\tse\tPRON\t_\t_\t5\texpl\t_\t_
5\todpisuje\todpisovat\tVERB\t_\t_\t1\tcsubj\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t5\tpunct\t_\t_

# sent_id = s2
1\tpísmena\tpísmeno\tNOUN\t_\t_\t0\troot\t_\t_
2\ta)_až_f)\ta)_až_f)\tX\t_\t_\t1\tnmod\t_\t_

"""


def test_sentences_are_rebuilt_with_their_reference_spans(tmp_path):
    path = tmp_path / "mini.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    first, second = read_conllu(path)
    assert first.text == "Podle ustanovení § 28 zákona se odpisuje."
    assert [first.text[s:e] for s, e in first.references] == ["§ 28 zákona"]
    assert second.references == ()  # a letter list is no reference of its own


def test_a_reference_counts_when_a_law_ref_overlaps_it():
    sentence = Sentence("s", "Podle § 28 zákona a dále", ((6, 17),))
    found = score([sentence], lambda texts: [[(6, 10)]])
    assert (found.references, found.found, found.exact, found.predicted_on_reference) == (1, 1, 0, 1)
    missed = score([sentence], lambda texts: [[(20, 24)]])
    assert missed.recall == 0.0 and missed.precision_share == 0.0 and missed.missed[0]["text"] == "§ 28 zákona"


def test_the_dev_split_is_read_whole():
    sentences = read_conllu()
    assert len(sentences) == 316 and sum(len(s.references) for s in sentences) == 132
