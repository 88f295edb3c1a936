"""The municipality gazetteer (mendel/data/obce.v1.tsv) and the place names a query uses, declined."""

from mendel.places import find_places, load_municipalities, mentioned_in


def names(text: str) -> list[tuple[str, str]]:
    return [(p.text, p.municipalities[0].name) for p in find_places(text)]


def test_every_municipality_once():
    rows = load_municipalities()
    assert len(rows) == 6258 and len({m.code for m in rows}) == len(rows)
    assert {"Praha", "Brno", "Kadaň", "Blešno", "Slavičín"} <= {m.name for m in rows}


def test_declined_names_after_a_preposition():
    assert names("popelnice ve Slavičíně") == [("Slavičíně", "Slavičín")]
    assert names("soud v Hradci Králové") == [("Hradci Králové", "Hradec Králové")]
    assert names("bydlím v Ústí nad Labem") == [("Ústí nad Labem", "Ústí nad Labem")]
    assert names("úřední deska města Kadaně") == [("Kadaně", "Kadaň")]
    assert names("exekuce v Praze 4") == [("Praze", "Praha")]
    assert names("ve Frýdku-Místku") == [("Frýdku-Místku", "Frýdek-Místek")]
    assert names("v Písku") == [("Písku", "Písek")]


def test_words_that_are_no_municipality():
    assert names("Rozvedli jsme se v Americe") == []
    assert names("Kdy jsou volby do Senátu?") == []
    assert names("Slavičín") == []  # no preposition: as likely a sentence start


def test_mentioned_in_a_vocabulary_of_analysed_terms():
    vocabulary = sorted(["blesn", "kadan", "praz", "hradc", "kralov"])
    assert mentioned_in("Blešno", vocabulary) and mentioned_in("Praha", vocabulary)
    assert mentioned_in("Hradec Králové", vocabulary)
    assert not mentioned_in("Slavičín", vocabulary)
