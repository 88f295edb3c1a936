"""Query understanding: the examples it was specified with (abbreviations, named acts, spoken forms), spans into the query as
typed, act titles the gazetteer lacks, domain routing of plain questions, scope, and the graph entities."""

from __future__ import annotations

import pytest

from serving.query.analyze import analyze_query, dense_query_text, normalize_query, references, understand


@pytest.mark.parametrize(
    "query, act, provision, eli, text",
    [
        ("§ 51 odst. 1 ZP", "262/2006 Sb.", "§ 51 odst. 1", "/eli/cz/sb/2006/262", "§ 51 odst. 1 ZP"),
        ("čl. 10 Listiny", "2/1993 Sb.", "čl. 10", "/eli/cz/sb/1993/2", "čl. 10 Listiny"),
        ("paragraf 204 OSŘ", "99/1963 Sb.", "§ 204", "/eli/cz/sb/1963/99", "paragraf 204 OSŘ"),
        (
            "Co říká § 2079 občanského zákoníku?",
            "89/2012 Sb.",
            "§ 2079",
            "/eli/cz/sb/2012/89",
            "§ 2079 občanského zákoníku",
        ),
        (
            "podle článku 36 odstavce 1 Listiny",
            "2/1993 Sb.",
            "čl. 36 odst. 1",
            "/eli/cz/sb/1993/2",
            "článku 36 odstavce 1 Listiny",
        ),
    ],
)
def test_issue_reference_examples(query, act, provision, eli, text):
    found = references(query)
    assert len(found) == 1
    ref = found[0]
    assert (ref["act"], ref["provision"], ref["eli"], ref["text"]) == (act, provision, eli, text)
    assert query[ref["start"] : ref["end"]] == text  # spans point into the query as typed


def test_spoken_forms_are_written_out_with_offsets_kept():
    query = "Paragrafu 204 odstavec 2 písmeno a) OSŘ"
    normalized, origin = normalize_query(query)
    assert normalized == "§ 204 odst. 2 písm. a) OSŘ"
    assert len(origin) == len(normalized) + 1 and origin[-1] == len(query)
    assert query[origin[normalized.index("OSŘ")] :] == "OSŘ"
    # words that merely start like a marker stay: "paragrafy" without a number, "odstavec" in prose
    assert normalize_query("paragrafy a odstavce zákona")[0] == "paragrafy a odstavce zákona"


def test_issue_reference_examples_analysed():
    body = analyze_query("paragraf 204 OSŘ")
    assert body["acts"][0]["citation"] == "99/1963 Sb." and body["acts"][0]["title"] == "občanský soudní řád"
    assert body["entities"] == [
        {
            "id": "LAW_REF:99/1963 Sb. § 204",
            "label": "LAW_REF",
            "norm": "99/1963 Sb. § 204",
            "text": "paragraf 204 OSŘ",
            "weight": 1.0,
            "via": "ner",
        }
    ]
    assert {d["id"] for d in body["domains"]} == {"domain:civilni-proces", "domain:exekuce"}  # what OSŘ governs
    listina = analyze_query("čl. 10 Listiny")
    # "Listiny" names the act; it routes to no area of its own (not accounting's "listina")
    assert [d["id"] for d in listina["domains"]] == ["domain:lidska-prava"]
    civil = analyze_query("Co říká § 2079 občanského zákoníku?")
    assert civil["acts"][0]["citation"] == "89/2012 Sb." and civil["domains"][0]["id"] == "domain:obcanske-pravo"


@pytest.mark.parametrize(
    "question, domain, act",
    [
        (
            "Jaká je výpovědní doba u pracovního poměru?",
            {"domain:skonceni-pracovniho-pomeru", "domain:pracovni-pravo"},
            "262/2006 Sb.",
        ),
        (
            "Do kdy můžu reklamovat vadu zboží?",
            {"domain:kupni-smlouva", "domain:spotrebitelske-smlouvy"},
            "89/2012 Sb.",
        ),
    ],
)
def test_issue_routing_questions(question, domain, act):
    body = analyze_query(question)
    assert body["references"] == []
    top = body["domains"][0]["id"]
    assert top in domain if isinstance(domain, set) else top == domain
    assert act in [a["citation"] for a in body["acts"][:2]]
    # the routed act enters the entity graph, weaker than a named entity would
    routed = {e["norm"]: e for e in body["entities"] if e["via"] == "routed"}
    assert act in routed and 0 < routed[act]["weight"] <= 0.5


def test_several_provisions_of_one_act_are_each_a_reference():
    found = references("§ 2079 a § 2099 občanského zákoníku")
    assert [(r["act"], r["provision"]) for r in found] == [("89/2012 Sb.", "§ 2079"), ("89/2012 Sb.", "§ 2099")]
    ids = [e.id for e in understand("§ 2079 a § 2099 občanského zákoníku").entities]
    assert ids == ["LAW_REF:89/2012 Sb. § 2079", "LAW_REF:89/2012 Sb. § 2099"]


def test_act_named_by_a_title_the_gazetteer_lacks():
    (ref,) = references("§ 111 zákona o zbraních a střelivu")
    assert (ref["act"], ref["provision"], ref["text"]) == ("90/2024 Sb.", "§ 111", "§ 111 zákona o zbraních a střelivu")
    # no title that routes clearly: the provision stays without an act rather than guessing
    (vague,) = references("§ 3 zákona")
    assert (vague["act"], vague["provision"]) == (None, "§ 3")


@pytest.mark.parametrize(
    "query, scope",
    [
        ("O čem je zákon o podpoře bydlení?", "act"),
        ("shrnutí zákona č. 175/2025 Sb.", "act"),
        ("Co upravuje zákon o zbraních?", "act"),
        ("celý § 5 zákona č. 175/2025 Sb.", "section"),
        ("hlava II zákona o obcích", "section"),
        ("§ 5 odst. 1 zákona č. 175/2025 Sb.", None),
        ("Kolik činí stravné?", None),
    ],
)
def test_scope(query, scope):
    assert understand(query).scope == scope
    assert analyze_query(query)["scope"] == scope


def test_institutions_and_file_numbers_are_graph_entities():
    body = analyze_query("Nejvyšší soud sp. zn. 15 EXE 746/2026")
    named = [(e["id"], e["via"]) for e in body["entities"] if e["via"] == "ner"]
    assert named == [("INSTITUTION:Nejvyšší soud", "ner"), ("DECISION_REF:15 EXE 746/2026", "ner")]
    assert body["references"] == []  # a file number is not an act reference
    # dates and amounts are not graph nodes
    assert all(e["label"] != "DATE" for e in analyze_query("od 1. ledna 2025")["entities"])


def test_only_the_first_words_of_a_long_query_are_analysed():
    from serving.query.analyze import MAX_ANALYZED_TOKENS, analysed_part, analyze_query, understand

    filler = " ".join(["slovo"] * (MAX_ANALYZED_TOKENS - 6))
    reference = "§ 2910 zákona č. 89/2012 Sb."  # six words: inside the budget, ending at its last word
    early = f"{filler} {reference} " + " ".join(["dále"] * 500)
    late = f"{filler} slovo slovo slovo slovo slovo slovo slovo {reference}"
    assert analysed_part(early).endswith("89/2012 Sb.") and len(analysed_part(early).split()) == MAX_ANALYZED_TOKENS
    found = understand(early)
    assert [r["provision"] for r in found.references] == ["§ 2910"]
    ref = found.references[0]
    assert early[ref["start"] : ref["end"]] == ref["text"]  # spans still point into the query as typed
    assert understand(late).references == []  # past the budget: not read
    assert analyze_query(late)["query"] == late  # the answer still names the whole query


def test_the_dense_text_is_worked_out_once_for_what_the_query_says():
    found = understand("sazba DPH na potraviny")
    text = dense_query_text(found)
    assert text == "sazba DPH na potraviny (daň z přidané hodnoty)"
    assert dense_query_text(found) is text  # asked again (the floor): not worked out anew
    found.normalized = "výpovědní doba podle § 51 ZP"  # what it says changed: worked out for the new words
    assert dense_query_text(found) == "výpovědní doba podle § 51 ZP (zákoník práce)"
    assert dense_query_text(understand("sazba DPH na potraviny")) == text


@pytest.mark.parametrize(
    "query, carried, left_out",
    [
        # a lay wording of two or more words says one thing: the dense query carries the code's term
        ("Je trestné řídit auto opilý?", "ohrožení pod vlivem návykové látky", None),
        ("Kdy nejsem trestný, když se bráním útočníkovi?", "nutná obrana", None),
        ("Dostanu peníze za bolest?", "náhrada při ublížení na zdraví", None),
        # a single everyday word stands for a term only sometimes: BM25 gets it, the dense query does not
        ("Je trestné, když je řidič opilý?", None, "návyková látka"),
    ],
)
def test_the_dense_query_carries_the_codes_term_of_a_lay_phrase(query, carried, left_out):
    from serving.query.analyze import legal_wordings

    text = dense_query_text(understand(query))
    if carried:
        assert text.startswith(query) and f"{carried}" in text[len(query) :]
    if left_out:
        assert left_out in legal_wordings(query) and left_out not in text


@pytest.mark.parametrize(
    "query, older",
    [
        ("trest vyhoštění § 36 tr. zák. doba neurčitá", ["LAW_REF:140/1961 Sb. § 36"]),
        ("§ 134 obč. zák.", ["LAW_REF:40/1964 Sb. § 134"]),
        ("§ 2079 a § 2099 obč. zák.", ["LAW_REF:40/1964 Sb. § 2079", "LAW_REF:40/1964 Sb. § 2099"]),
        ("§ 190 odst. 1 zák. práce", ["LAW_REF:65/1965 Sb. § 190 odst. 1"]),
        ("§ 2079 a § 2099 občanského zákoníku", []),  # a code's name: the code in force
        ("§ 52 zákoníku práce", []),
        ("§ 205 tr. zákoníku", []),  # the newer code's own form
        ("§ 5 zákona č. 89/2012 Sb.", []),  # a number
        ("podle občanského zákoníku", []),  # no provision: no exact reference
        ("výpověď z nájmu", []),
    ],
)
def test_an_abbreviation_two_codes_go_by_names_the_older_codes_provision_too(query, older):
    assert understand(query).older_codes == older


@pytest.mark.parametrize(
    ("query", "institution", "case_law"),
    [
        ("Nejvyšší soud náhrada nemajetkové újmy", "Nejvyšší soud", False),
        ("nejvyšší soud náhrada nemajetkové újmy", "Nejvyšší soud", False),  # typed in lower case: the same court
        ("judikatura nejvyššího správního soudu ke kasační stížnosti", "Nejvyšší správní soud", True),
        ("nález ústavního soudu o restitucích", "Ústavní soud", True),  # an apex court's decisions by their kind
        ("rozsudky Nejvyššího soudu k bezdůvodnému obohacení", "Nejvyšší soud", True),
        ("rozhodnutí nejvyššího správního soudu kasační stížnost", "Nejvyšší správní soud", True),
        ("usnesení NS o dovolání", None, True),
        ("odvolání proti rozhodnutí Nejvyššího soudu", "Nejvyšší soud", False),  # a decision the question is about
        ("rozhodnutí soudu o výživném", None, False),  # a court's decision, no court's case law
        ("nález ztracené věci", None, False),
        ("ústavní soudce jmenování", None, False),  # a judge, not the court
        ("Judikát k náhradě nemajetkové újmy", None, True),
        ("judikaty k vypovedi z najmu", None, True),  # without diacritics
        ("když mi finanční úřad doměří daň", None, False),  # a kind of office stays plain words
        ("jak soud rozhoduje o výživném", None, False),  # a court, not case law by name
    ],
)
def test_an_apex_court_in_lower_case_and_a_request_for_case_law_are_read(query, institution, case_law):
    found = understand(query)
    courts = [e.norm for e in found.entities if e.label == "INSTITUTION" and "soud" in e.norm]
    assert courts == ([institution] if institution else []) and found.case_law is case_law


@pytest.mark.parametrize(
    ("query", "written"),
    [
        ("uredni deska kadan", "uredni deska Kadan"),
        ("co je nového na úřední desce obce blešno?", "co je nového na úřední desce obce Blešno?"),
        ("úřední deska v kadani", "úřední deska v Kadani"),
        ("obec blešno rozpočet", "obec Blešno rozpočet"),
        ("úřední deska města ústí nad labem", "úřední deska města Ústí nad Labem"),
        ("co dělat když mi v práci nedají výplatu", "co dělat když mi v práci nedají výplatu"),  # no cue: a word
        ("obec může vybírat poplatek ze psa", "obec může vybírat poplatek ze psa"),  # no municipality "Může"
    ],
)
def test_a_municipality_typed_in_lower_case_after_a_place_cue_is_written_as_its_name(query, written):
    assert understand(query).normalized == written
