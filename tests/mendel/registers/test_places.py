"""Place names a query uses, declined, found through the municipal register's case forms; whether a collection's
vocabulary mentions them."""

from mendel.czech.analyzer import analyze
from mendel.registers.places import find_places, mentioned_in


def names(text: str) -> list[tuple[str, str]]:
    return [(p.text, p.name) for p in find_places(text)]


def test_declined_names_after_a_preposition():
    assert names("popelnice ve Slavičíně") == [("Slavičíně", "Slavičín")]
    assert names("soud v Hradci Králové") == [("Hradci Králové", "Hradec Králové")]
    assert names("bydlím v Ústí nad Labem") == [("Ústí nad Labem", "Ústí nad Labem")]
    assert names("úřední deska města Kadaně") == [("Kadaně", "Kadaň")]
    assert names("exekuce v Praze 4") == [("Praze", "Praha")]
    assert names("ve Frýdku-Místku") == [("Frýdku-Místku", "Frýdek-Místek")]
    assert names("v Písku") == [("Písku", "Písek")]
    assert names("úřední deska Kadaň") == [("Kadaň", "Kadaň")]  # a board's name is its place's
    assert names("uredni deska mesta Kadane") == [("Kadane", "Kadaň")]  # typed without diacritics
    hradiste = find_places("výcvik v Hradišti")[0]
    assert hradiste.name == "Hradiště" and len(hradiste.municipalities) > 1  # several obce share the name


def test_words_that_are_no_municipality():
    assert names("Rozvedli jsme se v Americe") == []
    assert names("Kdy jsou volby do Senátu?") == []
    assert names("Slavičín") == []  # no preposition: as likely a sentence start


def test_mentioned_in_a_vocabulary_of_analysed_terms():
    vocabulary = set(analyze("V Blešně, v Hradci Králové a v Praze se jednalo."))
    assert mentioned_in("Blešno", vocabulary) and mentioned_in("Praha", vocabulary)
    assert mentioned_in("Hradec Králové", vocabulary)
    assert not mentioned_in("Slavičín", vocabulary)
