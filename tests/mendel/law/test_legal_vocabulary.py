"""The lay-to-legal bridge: the vocabulary file, query expansion, the statutory definitions harvester and the
searcher's use of the expansion in BM25 (no real bundle needed)."""

import copy

import pytest
import yaml

from mendel.law.vocabulary import (
    VOCABULARY_FILE,
    Definition,
    LegalVocabulary,
    VocabularyError,
    default_vocabulary,
    definitions_in,
    harvest_definitions,
    match_key,
    parse_vocabulary,
    phrase_key,
)


def legal_of(query: str, vocabulary=None) -> list[str]:
    return [e.legal for e in (vocabulary or default_vocabulary()).expand(query)]


def test_vocabulary_file_is_large_grouped_and_versioned():
    data = yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))
    assert data["version"] == 1 and "v1" in VOCABULARY_FILE.name
    assert len(data["areas"]) >= 10
    assert sum(len(entries) for entries in data["areas"].values()) >= 300
    assert len(data["abbreviations"]) >= 50
    assert default_vocabulary().size >= 1000


def test_no_lay_wording_collapses_to_a_stop_word_free_generic_word():
    """A multi-word lay wording whose other words are all stop-words would expand every query with its one word
    ("bez práce" -> any "práce"): such wordings must be written so that two content words remain."""
    data = yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))
    generic = {match_key(t) for t in ("práce", "byt", "platba", "poplatek", "příspěvek", "důchod", "záloha")}
    collapsed = [
        (legal, wording)
        for entries in data["areas"].values()
        for legal, lay in entries.items()
        for wording in lay
        if len(wording.split()) > 1 and len(phrase_key(wording)) == 1 and phrase_key(wording)[0] in generic
    ]
    assert collapsed == []


@pytest.mark.parametrize(
    "query, legal",
    [
        ("Kolik se platí alimenty?", "výživné"),
        ("kolik alimentů musí otec platit", "výživné"),
        ("výpověď z bytu kvůli dluhu", "skončení nájmu"),
        ("výpověď z bytu kvůli dluhu", "výpověď z nájmu bytu"),
        ("vyhazov z práce bez udání důvodu", "výpověď z pracovního poměru"),
        ("Kdy může přijít exekutor?", "soudní exekutor"),
        ("dostal jsem blokovou pokutu", "příkaz na místě"),
        ("Kdo je hlavou státu?", "prezident republiky"),
        ("sazba DPH na potraviny", "daň z přidané hodnoty"),
        ("založení s.r.o.", "společnost s ručením omezeným"),
        ("výpovědní doba podle § 51 ZP", "zákoník práce"),  # an act abbreviation, from the acts table
    ],
)
def test_lay_wordings_and_abbreviations_expand_to_the_legal_term(query, legal):
    assert legal in legal_of(query)


def test_expansion_spans_point_into_the_query_and_nothing_is_repeated():
    query = "Alimenty a alimenty na dítě"
    found = default_vocabulary().expand(query)
    assert found and all(query[e.start : e.end] == e.text for e in found)
    assert len({e.legal for e in found}) == len(found)


def test_a_legal_query_is_not_expanded_with_its_own_words_nor_slang():
    assert legal_of("výživné pro nezletilé dítě") == []
    assert "alimenty" not in " ".join(legal_of("výživné"))
    assert legal_of("Prezident republiky jmenuje soudce") == []


def test_abbreviations_are_case_sensitive_whole_tokens():
    assert "zvlášť těžké postižení" in legal_of("ZTP")
    assert legal_of("ztp") == [] and legal_of("ZTPX") == []


def test_abbreviations_are_found_as_when_every_pattern_scanned_every_query():
    """A pattern runs only on a query holding its abbreviation's first part: the expansions are unchanged."""
    vocabulary = default_vocabulary()
    scanning = copy.copy(vocabulary)  # "" is in every query: every pattern scans it
    scanning._abbreviation_patterns = [(p, "", a, full) for p, _, a, full in vocabulary._abbreviation_patterns]
    queries = []
    for _, _, abbreviation, _ in vocabulary._abbreviation_patterns:
        spaced = abbreviation.replace(".", ". ").strip()  # "s.r.o." written "s. r. o."
        queries += [f"podle {abbreviation} a dál", f"({spaced})", abbreviation.lower(), f"x{abbreviation}"]
    found = 0
    for query in queries:
        expanded = vocabulary.expand(query)
        assert expanded == scanning.expand(query), query
        found += any(e.source == "abbreviation" for e in expanded)
    assert found >= 2 * len(vocabulary._abbreviation_patterns)  # as written and spaced, at least


def test_equivalents_go_both_ways():
    assert "soudní exekutor" in legal_of("exekutor")
    assert "pokuta" in legal_of("správní trest")


def test_malformed_vocabulary_is_refused():
    with pytest.raises(VocabularyError):
        parse_vocabulary({"areas": {"x": {"výživné": "alimenty"}}})
    with pytest.raises(VocabularyError):
        parse_vocabulary({"areas": {}, "equivalents": [["jen jeden"]]})


LIST = (
    "§ 2 Vymezení pojmů\nPro účely tohoto zákona se rozumí\na) zaměstnavatelem osoba, která zaměstnává "
    "fyzické osoby,\nb) osobním automobilem silniční motorové vozidlo kategorie M1,\nc) veřejnou zakázkou "
    "zakázka zadávaná zadavatelem na základě smlouvy."
)
SINGLE = (
    "Podle odstavce 1 se postupuje obdobně. Stavbou se rozumí veškerá stavební díla, která vznikají stavební činností."
)
ALIAS = (
    "Ministerstvo práce a sociálních věcí (dále jen „ministerstvo“) vede evidenci; zákon č. 262/2006 Sb., "
    "zákoník práce (dále jen „zákoník práce“)"
)


def test_definitions_from_a_lettered_list():
    found = {(d.term, d.meaning) for d in definitions_in(LIST, "1/2025 Sb.", "c1")}
    assert ("zaměstnavatelem", "osoba") in found
    assert ("osobním automobilem", "silniční motorové vozidlo kategorie M1") in found
    assert ("veřejnou zakázkou", "zakázka zadávaná zadavatelem na základě smlouvy") in found


def test_single_definition_and_alias():
    single = definitions_in(SINGLE)
    assert [(d.term, d.meaning, d.kind) for d in single] == [("Stavbou", "veškerá stavební díla", "rozumí")]
    aliases = [(d.term, d.meaning) for d in definitions_in(ALIAS) if d.kind == "dále jen"]
    # the act's own name repeated as its alias is no new wording
    assert aliases == [("ministerstvo", "Ministerstvo práce a sociálních věcí")]


def test_alias_names_start_where_the_alias_does_or_spell_its_initials():
    text = (
        "průměrné nájemné vypočítá Ministerstvo pro místní rozvoj (dále jen „ministerstvo“). Podle "
        "zákona č. 99/1963 Sb., občanského soudního řádu (dále jen „o. s. ř.“), a slova volit v České republice "
        "(dále jen „volič“)"
    )
    aliases = [(d.term, d.meaning) for d in definitions_in(text)]
    assert aliases == [("ministerstvo", "Ministerstvo pro místní rozvoj"), ("o. s. ř.", "občanského soudního řádu")]


def test_harvest_reads_acts_only_and_keeps_provenance():
    chunks = [
        {"chunk_id": "a1", "citation": "1/2025 Sb.", "text": LIST},
        {"chunk_id": "d1", "citation": None, "text": SINGLE},  # a decision quoting a definition
        {"chunk_id": "a2", "citation": "1/2025 Sb.", "text": LIST},
    ]  # the same definitions again
    harvested = harvest_definitions(chunks)
    assert harvested and {d.chunk_id for d in harvested} == {"a1"}
    assert all(d.citation == "1/2025 Sb." for d in harvested)
    assert not any(d.term == "Stavbou" for d in harvested)


def test_definitions_extend_the_vocabulary_in_the_safe_direction():
    vocabulary = default_vocabulary().with_definitions(
        [
            Definition("osobním automobilem", "silniční motorové vozidlo kategorie M1", "rozumí", "x", "c"),
            Definition("zaměstnavatelem", "osoba", "rozumí", "x", "c"),
            Definition("inspektorát práce", "Státní úřad inspekce práce", "dále jen", "x", "c"),
            Definition("úřad", "Státní úřad pro jadernou bezpečnost", "dále jen", "x", "c"),
        ]
    )
    assert "osobním automobilem" in legal_of("silniční motorové vozidlo kategorie M1 a jeho nájem", vocabulary)
    assert "zaměstnavatelem" not in legal_of("osoba", vocabulary)  # a one-word meaning names nothing
    assert "Státní úřad inspekce práce" in legal_of("inspektorát práce", vocabulary)
    assert "inspektorát práce" in legal_of("Státní úřad inspekce práce", vocabulary)
    # a one-word alias is an everyday word outside its act: "úřad" of a question is no nuclear safety office
    assert "Státní úřad pro jadernou bezpečnost" not in legal_of("Podal jsem žádost na úřad", vocabulary)
    assert default_vocabulary().size < vocabulary.size


def test_searcher_bm25_expansion_finds_the_legal_wording(tmp_path):
    """A bundle whose only answer says "výživné": the lay query "alimenty" finds it through the bridge and not
    without it; the expanded term counts less than a typed one."""
    from tests.support.bundle import EMBEDDER, build_bundle

    docs = [
        {
            "doc_id": "/eli/cz/sb/2025/1",
            "title": "Zákon o rodině",
            "source": "esbirka",
            "url": "u1",
            "citation": "1/2025 Sb.",
            "doc_type": "law",
            "published": "2025-01-01",
            "pages": ["§ 5 Výživné pro nezletilé dítě platí rodič měsíčně předem."],
        },
        {
            "doc_id": "/eli/cz/sb/2025/2",
            "title": "Zákon o nájmu",
            "source": "esbirka",
            "url": "u2",
            "citation": "2/2025 Sb.",
            "doc_type": "law",
            "published": "2025-01-01",
            "pages": ["§ 9 Nájemné platí nájemce měsíčně předem."],
        },
    ]
    from serving.query.analyze import understand
    from serving.ranking.search import Searcher

    searcher = Searcher.latest(build_bundle(tmp_path / "bundles", docs).parent, embedder=EMBEDDER)
    found = understand("alimenty")
    expansion = searcher.legal_expansion(found)
    assert "výživné" in expansion
    assert searcher.bm25_ranking("alimenty") == []
    hits = searcher.bm25_ranking("alimenty", expansion=expansion)
    assert hits and searcher.chunks[hits[0]]["doc_id"] == "/eli/cz/sb/2025/1"
    assert searcher.search("alimenty", k=3, dense=False)[0].doc_id == "/eli/cz/sb/2025/1"
    # the dense query carries only the bridge's exact wordings: abbreviations and multi-word lay wordings
    assert searcher.dense_text(found) == searcher.dense_text(found, bridge=False) == "alimenty"
    plural = understand("kdo je hlavou státu, co je DPH")
    assert searcher.dense_text(plural) == "kdo je hlavou státu, co je DPH (prezident republiky daň z přidané hodnoty)"


def test_dense_wordings_keep_only_exact_expansions():
    """Abbreviations and multi-word lay wordings reach the dense query; a single everyday word, which stands for a
    legal term only sometimes ("firma" -> podnikatel, zaměstnavatel, obchodní korporace), does not; an
    abbreviation inside an identifier (the NS of an ECLI) is no abbreviation at all."""
    from mendel.law.vocabulary import dense_wordings

    vocabulary = default_vocabulary()
    assert dense_wordings(vocabulary.expand("Kdo je hlavou státu?")) == ["prezident republiky"]
    assert dense_wordings(vocabulary.expand("sazba DPH")) == ["daň z přidané hodnoty"]
    single = vocabulary.expand("Jakou cenu nabídla firma?")
    assert single and dense_wordings(single) == []
    assert vocabulary.expand("ECLI:CZ:NS:2026:3.TDO.289.2026.1") == []
    assert [e.legal for e in vocabulary.expand("usnesení NS")] == ["Nejvyšší soud"]


# --- the big codes in everyday words -------------------------------------------------------------------------

# How people ask about the občanský zákoník, the trestní zákoník and the zákon o odpovědnosti za přestupky, each with
# the term the code itself uses (written for these tests, not taken from an evaluation set).
CODES_IN_EVERYDAY_WORDS = [
    ("Můžu se oženit v sedmnácti?", "uzavření manželství"),
    ("Chce se vdávat, ale je jí teprve šestnáct", "uzavření manželství"),
    ("Kamarád mi omylem poslal dvakrát peníze", "plnění bez právního důvodu"),
    ("Řídil opilý a nabořil sloup", "ohrožení pod vlivem návykové látky"),
    ("Otec neplatí výživné už půl roku", "zanedbání povinné výživy"),
    ("Bránil jsem se útočníkovi nožem", "nutná obrana"),
    ("Soused mi vyhrožuje, že mě zabije", "nebezpečné vyhrožování"),
    ("Bývalý přítel mě pořád sleduje a píše zprávy", "nebezpečné pronásledování"),
    ("Kdo zdědí dům, když táta nezanechal závěť?", "dědění ze zákona"),
    ("Koupil jsem boty přes internet a chci je vrátit", "smlouva uzavíraná distančním způsobem"),
    ("Pronajímatel chce zvýšit nájem o třetinu", "zvýšení nájemného"),
    ("Vrátí mi pronajímatel kauci?", "jistota"),
    ("Dcera se o mě nezajímá, můžu ji vydědit?", "vydědění"),
    ("Babička chce dar zpátky", "vrácení daru"),
    ("Našla jsem peněženku na ulici", "nálezce"),
    ("Zlomil mi nos v hospodě", "ublížení na zdraví"),
    ("Napadl policistu při kontrole", "násilí proti úřední osobě"),
    ("Chytili ho při krádeži v obchodě", "přestupek proti majetku"),
    ("Soused mi nadává a dělá schválnosti", "přestupek proti občanskému soužití"),
    ("Ujel od nehody a nezastavil", "opuštění místa dopravní nehody"),
    ("Zranil jsem se v práci na stavbě", "pracovní úraz"),
    ("Úraz cestou do práce na kole", "úraz na cestě do zaměstnání"),
    ("Šíří o mně lži po vesnici", "pomluva"),
    ("Manžel mě bije", "domácí násilí"),
    ("Smlouvu jsme uzavřeli jen ústně", "forma právního jednání"),
    ("Může soud dát podmínku?", "podmíněné odsouzení"),
    ("Kolik let vězení hrozí za loupež", "trest odnětí svobody"),
    ("Kdo zaplatí škodu, když mě pokousal pes?", "škoda způsobená zvířetem"),
    ("Musí děti platit na rodiče v důchodu?", "vyživovací povinnost"),
    ("Soused nechce ořezat větve, přesahují přes plot", "převis větví"),
    ("Nezaplatí včas fakturu, můžu chtít úrok?", "úrok z prodlení"),
    ("Může mi zaměstnavatel strhnout ze mzdy, když jsem rozbil v práci auto?", "odpovědnost zaměstnance za škodu"),
    ("Vnikl mi do bytu bez dovolení", "porušování domovní svobody"),
    ("Je trestné prodat alkohol dítěti?", "podání alkoholu dítěti"),
    ("Může dítě podepsat smlouvu na telefon?", "svéprávnost nezletilých"),
]


@pytest.mark.parametrize("query, legal", CODES_IN_EVERYDAY_WORDS)
def test_everyday_questions_about_the_codes_expand_to_the_codes_terms(query, legal):
    assert legal in legal_of(query)


@pytest.mark.parametrize(
    "query, not_legal",
    [
        ("Jak se bránit exekuci?", "nutná obrana"),  # any defence is no self-defence
        ("Co hrozí za rušení nočního klidu?", "noční práce"),  # "noční" alone says no work
        ("Je platná závěť psaná vlastní rukou?", "vlastnické právo"),  # "vlastní" is no ownership
        ("Kdy musí zavřít obchod v neděli?", "trest odnětí svobody"),
        ("Můžu si vzít auto na leasing?", "neoprávněné užívání cizí věci"),
        ("Jaký trest hrozí za krádež?", "trestní sazba"),
        ("Od kolika let můžu kandidovat do senátu?", "věk trestní odpovědnosti"),
    ],
)
def test_generic_words_do_not_expand_to_a_particular_term(query, not_legal):
    assert not_legal not in legal_of(query)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("spadla jablka", True),  # the wording as listed
        ("spadla zralá jablka", True),  # one other word inside it
        ("spadla velká zralá jablka", False),  # two: the words are no longer one phrase
        ("jablka spadla", False),  # the words in another order
    ],
)
def test_a_multi_word_wording_tolerates_one_other_word_inside(query, expected):
    found = [e for e in default_vocabulary().expand(query) if e.legal == "plody ze sousedního pozemku"]
    assert bool(found) is expected
    if found:
        assert query[found[0].start : found[0].end] == found[0].text


def test_the_vocabulary_file_has_no_legal_term_twice_in_an_area():
    """YAML keeps the last of two equal keys silently: a term listed twice in one area would lose its first
    wordings."""
    root = yaml.compose(VOCABULARY_FILE.read_text(encoding="utf-8"))
    areas = dict((key.value, value) for key, value in root.value)["areas"]
    for area, entries in areas.value:
        keys = [key.value for key, _ in entries.value]
        assert len(keys) == len(set(keys)), (area.value, sorted(k for k in keys if keys.count(k) > 1))


def test_the_codes_areas_are_broad():
    data = yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))
    codes = {area: entries for area, entries in data["areas"].items() if "zákoník" in area or "přestupky" in area}
    assert len(codes) >= 8
    assert sum(len(entries) for entries in codes.values()) >= 100  # legal terms
    assert sum(len(lay) for entries in codes.values() for lay in entries.values()) >= 600  # lay wordings


def test_aliases_a_decision_introduces_are_not_the_laws():
    """A decision cites itself by its file number: its "(dále jen „smlouva“)" names the contract of the case, and
    would expand every "smlouva" of a question with it."""
    decision = "Žalobce uzavřel se žalovanou smlouvu o revolvingovém úvěru (dále jen „smlouva“) dne 1. 1. 2020."
    chunks = [
        {"chunk_id": "d1", "citation": "12 C 184/2025-17", "text": decision},
        {"chunk_id": "a1", "citation": "1/2025 Sb.", "text": ALIAS},
    ]
    harvested = harvest_definitions(chunks)
    assert {d.chunk_id for d in harvested} == {"a1"}
    assert "smlouvu o revolvingovém úvěru" not in legal_of(
        "Platí ústní smlouva?", default_vocabulary().with_definitions(harvested)
    )


# --- the codes' headings in everyday words -------------------------------------------------------------------

# A question people ask about a division of a code, and the heading wording of that division the vocabulary adds
# (written for these tests from the headings, not taken from an evaluation set).
CODE_HEADINGS_IN_EVERYDAY_WORDS = [
    ("Chceme se vzít v létě, kolik svědků potřebujeme?", "vznik manželství snoubenci sňatečný obřad"),
    ("Může si člověk vzít sestřenici?", "zákonné překážky manželství"),
    ("Chceme sepsat předmanželskou smlouvu", "smluvený režim smlouva o manželském majetkovém režimu"),
    ("Jak rozdělit majetek, když se bývalí manželé nedohodnou?", "vypořádání společného jmění"),
    ("Kde budu bydlet po rozvodu, když byt byl manželův?", "bydlení po zániku manželství"),
    ("Oba chtějí rozvod, jde to bez soudního zkoumání?", "nesporný rozvod bez zjišťování příčin rozvratu"),
    ("Manželka nesouhlasí s rozvodem, rozvede nás soud?", "rozvod manželství rozvrat"),
    ("Chci popřít otcovství, dcera asi není moje", "popírání otcovství"),
    ("Bývalý manžel mi brání ve styku s dcerou", "osobní styk rodiče s dítětem"),
    (
        "Komu svěří děti, když se rodiče rozcházejí? Jde střídavá péče?",
        "výkon rodičovské odpovědnosti po rozvodu svěření do péče",
    ),
    ("Sociálka chce odebrat dítě do dětského domova", "ústavní výchova"),
    ("Babička chce vídat vnoučata, ale snacha nedovolí", "vztahy mezi dítětem a jinými příbuznými"),
    ("Komu patří plot mezi zahradami?", "rozhrady ploty zdi meze"),
    ("Na chatu se nedá dostat jinak než přes cizí les", "nezbytná cesta"),
    ("Chci zrušit spoluvlastnictví chaty se sestrou", "oddělení ze spoluvlastnictví a zrušení spoluvlastnictví"),
    ("Soused má právo jezdit přes můj pozemek, musí přispívat na údržbu cesty?", "služebnost cesty"),
    ("Rodiče mi darovali dům, ale chtějí doživotní bydlení", "služebnost bytu"),
    ("Tchán zemřel bez závěti, kdo po něm dědí?", "zákonná posloupnost třída dědiců"),
    ("Strýc byl bezdětný, dědí jeho manželka?", "druhá třída dědiců manžel rodiče"),
    ("Otec mě chce vynechat v závěti, mám nárok na něco?", "nepominutelný dědic povinný díl"),
    ("Chci změnit závěť, kterou mám u notáře", "zrušení závěti odvolání závěti"),
    ("Musím platit dluhy po otci, když jsem dědictví přijal?", "dluhy postihující dědice výhrada soupisu"),
    ("Propadne mi záloha, když od koupě odstoupím?", "závdavek"),
    ("Může mi firma účtovat pokutu za zpoždění podle smlouvy?", "smluvní pokuta utvrzení dluhu"),
    ("E-shop má v podmínkách vyloučení reklamace", "zneužívající ujednání"),
    ("Pronajímatel dal výpověď, jaké jsou výpovědní důvody?", "výpověď nájmu pronajímatelem výpovědní důvody"),
    ("Po smrti nájemce bydlí v bytě jeho syn, přejde nájem?", "následky smrti nájemce přechod nájmu"),
    ("Chci v nájmu vymalovat byt, potřebuji souhlas?", "úpravy a jiné změny bytu nebo domu"),
    ("Instalatér udělal nekvalitní práci, co s tím?", "vady díla"),
    ("Řemeslník chce víc, než byl rozpočet, vícepráce jsme nedomluvili", "cena za dílo rozpočet"),
    ("Cestovka nám dala jiný hotel, chci slevu ze zájezdu", "vady zájezdu sleva"),
    ("Nabíječka začala hořet a zničila stůl, odpovídá výrobce?", "škoda způsobená vadou výrobku"),
    ("Nechal si peněženku, kterou našel v tramvaji", "zatajení věci"),
    ("Soused nafoukl škodu po krupobití, aby dostal víc od pojišťovny", "pojistný podvod"),
    ("Nechali dítě samotné v autě v horku", "opuštění dítěte nebo svěřené osoby"),
    ("Opilý řidič srazil člověka na přechodu", "usmrcení z nedbalosti"),
    ("Otec odvezl dítě do ciziny a nevrátil ho", "únos dítěte"),
    ("Soused pořád pouští hudbu v noci", "přestupky proti veřejnému pořádku noční klid"),
    ("Dostal jsem facku od souseda", "přestupky proti občanskému soužití"),
    ("Porušil jsem obecní vyhlášku o psech", "přestupky proti pořádku v územní samosprávě"),
    ("Jde o opakovaný přestupek, když mě chytí znovu?", "opakované spáchání přestupku"),
]


@pytest.mark.parametrize("query, legal", CODE_HEADINGS_IN_EVERYDAY_WORDS)
def test_everyday_questions_expand_to_the_codes_headings(query, legal):
    assert legal in legal_of(query)


@pytest.mark.parametrize(
    "query, not_legal",
    [
        ("Má žena nárok na mateřskou?", "uzavření manželství"),  # "žena" is no wedding ("žení" was, by its key)
        ("Co se stane, když nezaplatím?", "parkování"),  # "stane" is no parking space ("stání")
        ("Platí obchodní podmínky e-shopu?", "podmíněné odsouzení"),  # contract terms are no suspended sentence
        ("Kdo je otec dítěte nezletilé matky?", "vznik manželství snoubenci sňatečný obřad"),
        ("Můžu si vzít auto na víkend?", "vznik manželství snoubenci sňatečný obřad"),  # "vzít si" is no wedding
        ("Kolik stojí zkouška na řidičák?", "koupě na zkoušku"),
        ("Jak zastavit exekuci?", "zástavní právo zastavení"),  # to stop is no pledge
        ("Koupil jsem byt na hypotéku", "koupě nemovité věci"),  # buying a flat alone says no defect or contract
    ],
)
def test_heading_wordings_do_not_fire_on_generic_words(query, not_legal):
    assert not_legal not in legal_of(query)


def test_heading_areas_have_the_heading_wording_and_several_lay_ones():
    data = yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))
    headings = {area: entries for area, entries in data["areas"].items() if area.endswith("(nadpisy)")}
    assert len(headings) >= 9
    assert sum(len(entries) for entries in headings.values()) >= 100
    thin = [legal for entries in headings.values() for legal, lay in entries.items() if len(lay) < 3]
    assert thin == []


CODE_HEADINGS_MORE = [
    ("Babička má demenci, můžu za ni vyřizovat za rodiče důchod?", "zastoupení členem domácnosti"),
    ("Dlužník přepsal dům na manželku, aby mi nezaplatil", "relativní neúčinnost"),
    ("Kamarád mi nevrátil půjčenou sekačku", "výpůjčka"),
    ("Kolik si může realitní makléř účtovat?", "zprostředkování"),
    ("Letecká společnost ztratila zavazadlo, kdo odpovídá?", "přeprava osoby přeprava věci"),
    ("Majitel vyměnil zámky a nepustí mě do bytu", "neoprávněný zásah do práva k domu bytu nebo k nebytovému prostoru"),
    ("Bývalý partner se naboural do účtu na Facebooku", "neoprávněný přístup k počítačovému systému"),
    ("Manžel mi četl zprávy v mobilu", "porušení tajemství dopravovaných zpráv"),
    ("Cizí muž píše dítěti a chce se sejít s dítětem", "navazování nedovolených kontaktů s dítětem"),
    ("Vrátil ukradené věci, sníží mu to trest?", "účinná lítost"),
    ("Jaké příjmení dostane dítě nesezdaných rodičů?", "osobní jméno a příjmení dítěte"),
    ("Souseda jsem nahlásil, že lhal úřadu v žádosti", "přestupky proti pořádku ve státní správě"),
]


@pytest.mark.parametrize("query, legal", CODE_HEADINGS_MORE)
def test_more_everyday_questions_expand_to_the_codes_headings(query, legal):
    assert legal in legal_of(query)


# The rest of the codes' headings (the trestní zákoník's special part, the občanský zákoník's věcná práva and
# contract types, 251/2016 Sb.): written for these tests from the headings, not taken from an evaluation set.
CODE_HEADINGS_SPECIAL_PART = [
    ("Manžel ji zastřelil v afektu, když ji přistihl při nevěře", "zabití v silném rozrušení"),
    (
        "Při lyžování jsem na sjezdovce srazil dítě, nebylo to úmyslně",
        "ublížení na zdraví z nedbalosti těžké ublížení na zdraví z nedbalosti",
    ),
    ("Otčím ji zamkl v pokoji a nepouští ji ven", "omezování osobní svobody zbavení osobní svobody"),
    ("Bývalý mi vyhrožuje zveřejněním fotek, jestli mu nezaplatím", "vydírání pohrůžka násilím"),
    ("Přítel mi otevírá dopisy a čte mi e-maily", "porušení tajemství dopravovaných zpráv porušení tajemství listin"),
    ("Někdo zveřejnil moje intimní fotky bez souhlasu", "zneužití identity k výrobě pornografie"),
    ("Na bazaru koupila kradený telefon, věděla že je kradený", "legalizace výnosů z trestné činnosti podílnictví"),
    ("Zloděj platil mou ukradenou kartou na benzínce", "neoprávněné opatření a užití platebního prostředku"),
    ("Šéf nám neodvádí pojištění, i když ho strhává", "neodvedení daně pojistného na sociální zabezpečení"),
    (
        "Sousedka nechává psa na řetězu bez vody",
        "týrání zvířat chov zvířat v nevhodných podmínkách zanedbání péče o zvíře",
    ),
    ("Řidič nabídl peníze policistovi, aby ho nepokutoval", "podplacení přijetí úplatku"),
    ("Sousedka mě křivě nahlásila na policii", "křivé obvinění"),
    ("Žák nahlásil bombu ve škole", "šíření poplašné zprávy"),
    ("Zfalšoval maturitní vysvědčení", "padělání a pozměnění veřejné listiny"),
    ("Kamarád schovával bratra před policií", "nadržování"),
    ("Pěstuje konopí na balkoně pro sebe", "neoprávněné pěstování rostliny obsahující omamnou látku konopí"),
    ("Může si soused posunout plot na můj pozemek?", "ochrana držby rušení držby svépomoc"),
    ("Našli jsme při kopání základů zakopané mince", "nález skryté věci poklad"),
    ("Jeho kůlna zasahuje na sousedův pozemek", "stavba na cizím pozemku přestavek"),
    ("V bazaru jsem koupil telefon od zloděje", "nabytí vlastnického práva od neoprávněného"),
    ("Servis nevydá auto, dokud nezaplatím opravu", "zadržovací právo zadržet cizí movitou věc"),
    ("Banka prodá dům, když nesplácím hypotéku?", "výkon zástavního práva zpeněžení zástavy"),
    ("Rodiče chtějí věcné břemeno dožití", "služebnost užívací právo požívací právo věcné břemeno dožití"),
    ("Nechal jsem auto u kamaráda v úschově a jezdil s ním", "úschova schovatel uschovatel"),
    ("Vyměnili jsme si s bratrem auta bez doplatku", "směna směnná smlouva"),
    ("Chci vypovědět pojistku na auto", "zánik pojištění výpověď pojištění pojistné období"),
    ("Vsadili jsme se o tisícovku a nechce platit", "sázka hra los nevymahatelnost"),
    ("Vyhlásil jsem odměnu za vrácení ztracené kočky", "veřejný příslib příslib odměny vypsání ceny"),
    ("Odmítl jsem se prokázat strážníkovi", "přestupky proti veřejnému pořádku neuposlechnutí výzvy úřední osoby"),
    ("Soused neuklízí po psovi na chodníku", "přestupky proti veřejnému pořádku znečištění veřejného prostranství"),
    ("Lhal jsem policii při podání vysvětlení", "přestupek křivého vysvětlení"),
    ("Policajt mě zastavil kvůli rychlosti", "policista úřední osoba"),
]


@pytest.mark.parametrize("query, legal", CODE_HEADINGS_SPECIAL_PART)
def test_everyday_questions_expand_to_the_special_part_and_property_headings(query, legal):
    assert legal in legal_of(query)


@pytest.mark.parametrize(
    "query, not_legal",
    [
        ("Musím opravit střechu na pronajaté chatě?", "dřevina rostoucí mimo les"),  # "stromy" stems like "střecha"
        ("Šel jsem kolem domu", "jednostopé vozidlo"),  # "kolem" is no bike
        ("Obec pořádá společenské akce", "investiční nástroj"),  # "akce" is no share
        ("Musí mít dítě bezpečnostní pásy?", "cestovní doklad"),  # "pásy" are no passport
        ("Jak vypovědět pojištění?", "výpověď z nájmu bytu"),  # any notice is no notice of a lease
        ("Naboural mi auto na parkovišti", "neoprávněný přístup k počítačovému systému a nosiči informací"),
        ("Mám nárok na vyšší plat?", "úvěrový podvod"),
        ("Kolik se platí do fondu oprav v nájemním bytě?", "vydírání pohrůžka násilím"),
        ("Prodal jsem auto sám bez makléře", "zprostředkování provize zprostředkovatele"),
        ("Zavřel obchod dřív, než měl", "omezování osobní svobody zbavení osobní svobody"),
        ("Musím nahlásit ztrátu občanky?", "nepřekažení trestného činu neoznámení trestného činu"),
    ],
)
def test_special_part_wordings_do_not_fire_on_everyday_words(query, not_legal):
    assert not_legal not in legal_of(query)


def test_the_colloquial_instrumental_meets_its_written_form():
    """People type "v silným rozrušení" for "v silném rozrušení": the -ým ending meets the -ém one."""
    assert phrase_key("silným") == phrase_key("silném")
    assert "zabití v silném rozrušení" in legal_of("Zabil ho v silným rozrušení")


# The headings no wording reached before (round of 2026-12-04 evening): written for these tests from the headings
# of 40/2009 Sb., 89/2012 Sb. and 251/2016 Sb., not taken from an evaluation set.
CODE_HEADINGS_UNCOVERED = [
    ("Srazil cyklistu a ujel, co mu hrozí?", "neposkytnutí pomoci řidičem dopravního prostředku"),
    (
        "Můj syn chce jít bojovat na Ukrajině jako dobrovolník",
        "služba v cizích ozbrojených silách účast na nestátní ozbrojené skupině",
    ),
    ("Trenér prodává anabolika v posilovně", "výroba a jiné nakládání s látkami s hormonálním účinkem"),
    (
        "Na bankomatu bylo skimmovací zařízení",
        "neoprávněné opatření padělání a pozměnění platebního prostředku padělatelské zařízení",
    ),
    ("V obchodě jsem dostal falešnou bankovku, smím ji dát dál?", "udávání padělaných a pozměněných peněz"),
    ("Soused pálil trávu a od ohně chytil les", "obecné ohrožení z nedbalosti"),
    ("Dostal zákaz vstupu na stadion kvůli rvačce", "zákaz vstupu na sportovní kulturní a jiné společenské akce"),
    ("Nezaplatil peněžitý trest, půjde do vězení?", "náhradní trest odnětí svobody"),
    ("Manžel zmizel beze stopy před třemi lety", "nezvěstnost prohlášení za nezvěstného"),
    ("Kdo rozhoduje o pohřbu, když se sourozenci nedohodnou?", "ochrana lidského těla po smrti pohřeb"),
    ("Vyloučili mě ze spolku bez schůze", "zánik členství ve spolku vystoupení vyloučení člena"),
    ("Na zaparkované auto spadla větev ze stromu", "škoda způsobená věcí sama od sebe pádem"),
    ("Podepsal jsem úvěr s bývalým jako spoludlužník", "dlužníci zavázaní společně a nerozdílně"),
    ("Pronajímatel nechce, abych k sobě nastěhoval přítele", "členové nájemcovy domácnosti"),
    ("Pojišťovna odmítla plnit po vykradení chaty", "šetření pojistné události"),
    (
        "Fanoušek odpálil světlici na stadionu",
        "přestupky proti veřejnému pořádku turistická značka pyrotechnika na sportovním utkání zakrytý obličej",
    ),
    ("Vrátil se domů po vykázání a vyhrožoval", "přestupky proti veřejnému pořádku maří vykázání ze společného obydlí"),
]


@pytest.mark.parametrize("query, legal", CODE_HEADINGS_UNCOVERED)
def test_everyday_questions_expand_to_the_headings_no_wording_reached(query, legal):
    assert legal in legal_of(query)


@pytest.mark.parametrize(
    "query, not_legal",
    [
        ("Za kolik let se promlčí dluh?", "promlčení výkonu trestu"),  # a debt is no sentence
        ("Dostal jsem pokutu bez trestu", "upuštění od potrestání podmíněné upuštění od potrestání s dohledem"),
        ("Kolik stojí pronájem bytu?", "nájem dopravního prostředku"),
        ("Musí pes do karantény kvůli vzteklině?", "šíření nakažlivé nemoci zvířat"),
        ("Sociálka mi nevyplatila dávky", "výchovná opatření předběžné úpravy poměrů dítěte"),
    ],
)
def test_uncovered_heading_wordings_do_not_fire_on_everyday_words(query, not_legal):
    assert not_legal not in legal_of(query)


PART_RULES = [
    ("prodaný pojištěný dům", "převod pojištěné věci", "areas"),
    ("zástava auta", "zástavní právo", "areas"),
    ("zástava auta", "zástavní právo", "areas"),  # the same wording under a second area: still one rule
    ("vyhazov z bytu", "výpověď z nájmu", "areas"),
    ("alimenty", "výživné", "areas"),
    ("hlídání dětí", "péče o dítě", "definition"),
]


@pytest.mark.parametrize(
    ("query", "known", "max_words", "expected"),
    [
        ("pojištěný dům prodaný", (), 12, ["převod pojištěné věci"]),  # all three words, in another order
        ("pojisteny dum jsem prodal", (), 12, ["převod pojištěné věci"]),  # all but one of three ("prodal")
        ("prodal jsem dům, platí pojistka?", (), 12, []),  # one of three
        ("prodal jsem auto", (), 12, []),  # one of two
        ("auta a zástava", (), 12, ["zástavní právo"]),  # both words of two, in another order
        ("alimenty", (), 12, []),  # a one-word wording is matched whole only (LegalVocabulary.expand)
        ("hlídání dětí", (), 12, []),  # an act's harvested definition is matched whole only
        ("zástava auta", ("zástavní právo",), 12, []),  # the exact match says it already
        ("zástavní právo zástava auta", (), 12, []),  # the query holds the legal words
        # more words matched first, then longer wordings, then by name; whole wordings up to max_words
        (
            "zástava auta, vyhazov z bytu, prodaný pojištěný dům",
            (),
            12,
            ["převod pojištěné věci", "výpověď z nájmu", "zástavní právo"],
        ),
        ("zástava auta, vyhazov z bytu, prodaný pojištěný dům", (), 5, ["převod pojištěné věci"]),
    ],
)
def test_lay_wordings_said_in_part_add_their_legal_wording(query, known, max_words, expected):
    vocabulary = LegalVocabulary(PART_RULES, {})
    assert vocabulary.legal_in_part(query, known=known, max_words=max_words) == expected


@pytest.mark.parametrize(
    ("query", "common", "expected"),
    [
        ("pojisteny dum jsem prodal", frozenset(), ["převod pojištěné věci"]),  # two of three
        ("pojisteny dum jsem prodal", {"dum"}, []),  # a common word does not count: one of three left
        ("pojištěný dům prodaný", {"dum"}, ["převod pojištěné věci"]),  # two uncommon words of three still say it
        ("auta a zástava", {"aut"}, []),  # both words of a two-word wording, one of them common
        ("auta a zástava", {"dum"}, ["zástavní právo"]),  # common words the query does not hold change nothing
    ],
)
def test_common_words_do_not_count_towards_a_wording_said_in_part(query, common, expected):
    vocabulary = LegalVocabulary(PART_RULES, {})
    assert vocabulary.legal_in_part(query, common=common) == expected
    assert {"pojisten", "dum", "prodan", "aut", "zastav"} <= vocabulary.part_keys()


# The round of 2026-12-05 (headings of 89/2012, 40/2009, 90/2024, 30/2024, 455/1991, 88/2024, the Listina and the
# other acts of the collection): everyday questions reach the heading, and a generic pair said in part does not
# pull in a particular heading.
HEADINGS_ROUND_3 = [
    ("Potřebuji zbrojní průkaz na pistoli?", "zbrojní oprávnění zbrojní list"),
    ("Můžu půjčit pistoli kamarádovi na střelnici?", "přenechání a svěření zbraně nebo střeliva"),
    ("Jak převést bonus na jiné auto?", "prohlášení o škodném průběhu pojištění odpovědnosti"),
    (
        "Přišel mi dopis od kanceláře pojistitelů, že platím příspěvek",
        "příspěvek Kanceláři za dobu bez pojištění odpovědnosti",
    ),
    (
        "Máme radon ve sklepě, co s tím?",
        "ochrana před přírodním ozářením ve stavbě prevence pronikání radonu do stavby",
    ),
    ("Kdo zdědí majetek, když nemá žádné příbuzné?", "odúmrť"),
    ("Pojišťovna krátí plnění, protože jsem zamlčel nemoc pojišťovně", "povinnost k pravdivým sdělením"),
    ("Chci adoptovat dospělého nevlastního syna", "osvojení zletilého"),
    ("Můžu odmítnout převzít stavbu s vadami?", "převzetí stavby"),
    ("Jak volit doma, když nemohu dojít volit?", "hlasování do přenosné volební schránky"),
]


@pytest.mark.parametrize("query, legal", HEADINGS_ROUND_3)
def test_everyday_questions_expand_to_the_headings_of_the_third_round(query, legal):
    assert legal in legal_of(query)


@pytest.mark.parametrize(
    "query, not_legal",
    [
        ("Jaký trest hrozí za trestný čin krádeže?", "promlčecí doba trestní odpovědnosti"),
        ("Jaký trest hrozí za trestný čin krádeže?", "místní působnost zásada personality"),
        ("Musím mít povinné ručení na auto?", "zelená karta"),
        ("Musím mít povinné ručení na auto?", "zvláštní ustanovení pro zánik pojištění odpovědnosti"),
        ("Koupil jsem zboží přes internet a chci ho vrátit", "finanční služby na dálku"),
        ("Jak si rozdělit majetek manželů?", "režim oddělených jmění smluvený režim"),
    ],
)
def test_third_round_wordings_do_not_fire_in_part_on_generic_pairs(query, not_legal):
    vocabulary = default_vocabulary()
    exact = legal_of(query)
    assert not_legal not in exact
    assert not_legal not in vocabulary.legal_in_part(query, known=exact)
