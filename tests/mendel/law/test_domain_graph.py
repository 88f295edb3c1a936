"""The hand-kept domain graph: the packaged file validates, matches the NER gazetteer and the bundled corpus,
broken copies are rejected with precise errors, and the router sends plain questions to the right areas/acts."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from mendel.law.domain_graph import (
    DomainGraphError,
    default_path,
    expected_eli,
    load_domain_graph,
    route,
    validate,
)
from mendel.ner.acts import NAMED_ACTS
from tests.support import REPO_ROOT

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
CATALOG = REPO_ROOT / "mirror" / "catalog.json"


@pytest.fixture(scope="module")
def graph():
    return load_domain_graph()


@pytest.fixture
def raw():
    return yaml.load(default_path().read_text(encoding="utf-8"), Loader=_LOADER)


def _errors(data, tmp_path) -> list[str]:
    path = tmp_path / "domain.yaml"
    path.write_text(yaml.dump(data, Dumper=_DUMPER, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(DomainGraphError) as excinfo:
        load_domain_graph(path)
    return excinfo.value.errors


def _node(data, node_id):
    return next(n for n in data["nodes"] if n["id"] == node_id)


# --- the packaged file ---------------------------------------------------------------------------------


def test_packaged_graph_is_valid_and_sized(graph):
    # 99 hand-kept + the 32 consolidated acts of the DOCX sample + the topics and the acts governing them; the bound
    # catches a file read twice or generated, not growth (route scores count IDF over a fixed 319 nodes)
    assert 50 <= len(graph.nodes) <= 600
    types = {t: len(graph.of_type(t)) for t in ("domain", "institution", "act")}
    assert all(n >= 10 for n in types.values()), types
    assert {e.type for e in graph.edges} >= {"governs", "supervises", "part_of"}
    for node in graph.nodes.values():
        assert node.name and (node.type == "act" or node.vocabulary), node.id


def test_brief_acts_present_with_real_citations(graph):
    expected = {
        "89/2012 Sb.": "občanský zákoník",
        "262/2006 Sb.": "zákoník práce",
        "99/1963 Sb.": "občanský soudní řád",
        "280/2009 Sb.": "daňový řád",
        "586/1992 Sb.": "zákon o daních z příjmů",
        "235/2004 Sb.": "zákon o dani z přidané hodnoty",
        "182/2006 Sb.": "insolvenční zákon",
        "40/2009 Sb.": "trestní zákoník",
        "500/2004 Sb.": "správní řád",
        "283/2021 Sb.": "stavební zákon",
        "256/2013 Sb.": "katastrální zákon",
        "110/2019 Sb.": "zákon o zpracování osobních údajů",
        "1/1993 Sb.": "Ústava České republiky",
        "2/1993 Sb.": "Listina základních práv a svobod",
        "134/2016 Sb.": "zákon o zadávání veřejných zakázek",
        "128/2000 Sb.": "zákon o obcích",
        "6/1993 Sb.": "zákon o České národní bance",
        "21/1992 Sb.": "zákon o bankách",
        "563/1991 Sb.": "zákon o účetnictví",
    }
    for citation, name in expected.items():
        act = graph.act_for_citation(citation)
        assert act is not None, citation
        assert act.name == name
        assert act.eli == expected_eli(citation)


def test_bundled_esbirka_acts_are_nodes(graph):
    entries = json.loads(CATALOG.read_text(encoding="utf-8"))["entries"]
    for entry in entries:
        citation = f"{entry['number']}/{entry['year']} Sb."
        act = graph.act_for_citation(citation)
        assert act is not None, f"{citation} ({entry['name']}) of the sample corpus is not in the domain graph"
        assert graph.targets(act.id, "governs"), citation


def test_agrees_with_ner_gazetteer(graph):
    """Where an act is in both, the NER gazetteer and the domain graph give it the same ELI."""
    shared = 0
    for named in NAMED_ACTS:
        act = graph.act_for_citation(named.citation)
        if act is not None:
            shared += 1
            assert act.eli == named.eli, named.citation
    assert shared >= 20


def test_lookups(graph):
    assert graph.act_for_citation("89/2012 Sb. § 2079 odst. 1").id == "act:89/2012"
    assert graph.act_for_citation("nařízení (EU) 2016/679 čl. 6").id == "act:eu/reg/2016/679"
    assert graph.act_for_citation("nařízení (ES) č. 261/2004 čl. 7").id == "act:eu/reg/2004/261"  # numbered before 2015
    assert expected_eli("nařízení (ES) č. 261/2004") == "http://data.europa.eu/eli/reg/2004/261/oj"
    assert expected_eli("nařízení (EU) č. 181/2011") == "http://data.europa.eu/eli/reg/2011/181/oj"  # 2010-2014
    assert graph.act_for_citation("nařízení (EU) č. 181/2011 čl. 19").id == "act:eu/reg/2011/181"
    assert graph.act_for_citation("1/2099 Sb.") is None
    assert graph.act_for_eli("/eli/cz/sb/2006/262").id == "act:262/2006"
    assert graph.institution_for_name("Česká národní banka").id == "inst:cnb"
    assert graph.institution_for_name("ČNB").id == "inst:cnb"
    assert graph.institution_for_name("Krajský soud v Brně").id == "inst:obecne-soudy"
    assert graph.institution_for_name("Ministerstvo financí České republiky").id == "inst:mf"
    assert graph.institution_for_name("Krajský úřad Ústeckého kraje") is None
    assert "domain:obcanske-pravo" in graph.targets("domain:kupni-smlouva", "part_of")
    assert "inst:cnb" in graph.sources("domain:bankovnictvi", "supervises")


# --- the router ------------------------------------------------------------------------------------------


def test_route_notice_period():
    hits = route("Jaká je výpovědní doba u pracovního poměru?")
    assert hits[0][0] == "domain:skonceni-pracovniho-pomeru"  # the topic, then its act, then the wider area
    assert [node_id for node_id, _ in hits if node_id.startswith("act:")][0] == "act:262/2006"
    assert "domain:pracovni-pravo" in [node_id for node_id, _ in hits]
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_route_defective_goods(graph):
    hits = route("Do kdy můžu reklamovat vadu zboží?")
    assert hits[0][0] in {"domain:kupni-smlouva", "domain:spotrebitelske-smlouvy"}
    acts = [node_id for node_id, _ in hits if graph.nodes[node_id].type == "act"]
    assert "act:89/2012" in acts


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Kolik je sazba DPH na potraviny?", "domain:dph"),
        ("Jak podat daňové přiznání k dani z příjmů?", "domain:dane-z-prijmu"),
        ("Potřebuji stavební povolení na přístavbu rodinného domu?", "domain:stavebni-rizeni"),
        ("Jak požádat o oddlužení?", "domain:oddluzeni"),  # a part of domain:insolvence
        ("Může pronajímatel zvýšit nájemné?", "domain:najem"),
        ("Kdo dědí když není závěť?", "domain:dedicke-tridy"),  # a part of domain:dedicke-pravo
        ("Jak funguje zadávací řízení u veřejné zakázky?", "domain:verejne-zakazky"),
        ("Kdy potřebuji zbrojní průkaz?", "domain:zbrane"),
        ("Jak odstoupit od smlouvy při nákupu na e-shopu?", "domain:spotrebitelske-smlouvy"),
    ],
)
def test_route_areas(question, expected):
    domains = [node_id for node_id, _ in route(question, k=10) if node_id.startswith("domain:")]
    assert domains[0] == expected


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Co upravuje OSŘ?", "act:99/1963"),  # abbreviation, as written
        ("Co říká § 2079 zákona 89/2012?", "act:89/2012"),  # citation number
        ("Jak zpracovávat osobní údaje zaměstnanců podle GDPR?", "act:eu/reg/2016/679"),
        ("Jaké stravné na pracovní cestu v roce 2026?", "act:573/2025"),
    ],
)
def test_route_acts_by_name_abbreviation_or_number(question, expected):
    assert route(question)[0][0] == expected


def test_route_edge_cases(graph):
    assert route("") == []
    assert route("a je to co") == []  # only stop-words
    assert route("xyzzy qwerty") == []
    assert len(route("smlouva", k=3)) == 3
    assert route("Jak dlouhá je výpovědní doba?", k=1)[0][0] in {"domain:pracovni-pravo", "domain:najem"}
    institutions = route("Česká národní banka dohled", types=("institution",))
    assert institutions[0][0] == "inst:cnb"
    # the same graph object routes the same way as the packaged default
    question = "Jaká je výpovědní doba u pracovního poměru?"
    assert graph.route(question) == route(question)


# --- validation failures on a broken copy -----------------------------------------------------------------


def test_validation_duplicate_id(raw, tmp_path):
    raw["nodes"].append(copy.deepcopy(_node(raw, "domain:pracovni-pravo")))
    assert "node 'domain:pracovni-pravo': duplicate id" in _errors(raw, tmp_path)


def test_validation_dangling_and_mistyped_edges(raw, tmp_path):
    raw["edges"] += [
        ["governs", "act:262/2006", "domain:neexistuje"],
        ["governs", "inst:cnb", "domain:bankovnictvi"],
        ["supervises", "inst:cnb", "act:6/1993"],
        ["regulates", "act:262/2006", "domain:pracovni-pravo"],
        ["governs", "act:262/2006", "domain:pracovni-pravo"],
    ]
    errors = _errors(raw, tmp_path)
    assert "edge governs act:262/2006 -> domain:neexistuje: target 'domain:neexistuje' is not a node" in errors
    assert "edge governs inst:cnb -> domain:bankovnictvi: source must be a act, 'inst:cnb' is a institution" in errors
    assert "edge supervises inst:cnb -> act:6/1993: target must be a domain, 'act:6/1993' is a act" in errors
    assert any(
        e.startswith("edge regulates act:262/2006 -> domain:pracovni-pravo: type must be one of") for e in errors
    )
    assert "edge governs act:262/2006 -> domain:pracovni-pravo: listed twice" in errors


@pytest.mark.parametrize(
    "citation",
    [
        "262/2006",
        "262/06 Sb.",
        "262 /2006 Sb.",
        "zákon 262/2006 Sb.",
        "0/2006 Sb.",
        "262/2006 Sb. ",
        "262/2006 Sb.m.s.",
    ],
)
def test_validation_malformed_citation(raw, tmp_path, citation):
    _node(raw, "act:262/2006")["citation"] = citation
    errors = _errors(raw, tmp_path)
    assert any("act:262/2006" in e and "is not well formed" in e for e in errors), errors


def test_validation_eli_must_match_citation(raw, tmp_path):
    _node(raw, "act:262/2006")["eli"] = "/eli/cz/sb/2006/263"
    _node(raw, "act:89/2012")["eli"] = None
    _node(raw, "act:eu/reg/2016/679")["eli"] = "http://data.europa.eu/eli/dir/2016/679/oj"
    errors = _errors(raw, tmp_path)
    assert (
        "node 'act:262/2006': eli '/eli/cz/sb/2006/263' does not match citation '262/2006 Sb.' "
        "(expected '/eli/cz/sb/2006/262')"
    ) in errors
    assert any(e.startswith("node 'act:89/2012': eli None does not match") for e in errors)
    assert any(e.startswith("node 'act:eu/reg/2016/679': eli") for e in errors)
    assert len(errors) == 3


def test_validation_act_id_follows_citation(raw, tmp_path):
    _node(raw, "act:262/2006")["citation"] = "263/2006 Sb."
    _node(raw, "act:262/2006")["eli"] = "/eli/cz/sb/2006/263"
    assert _errors(raw, tmp_path) == ["node 'act:262/2006': id must be 'act:263/2006' for citation '263/2006 Sb.'"]


def test_validation_node_fields(raw, tmp_path):
    _node(raw, "domain:volby")["type"] = "area"
    _node(raw, "domain:najem")["citation"] = "89/2012 Sb."
    _node(raw, "domain:dph")["aliases"] = "DPH"
    _node(raw, "domain:insolvence")["vocabulary"] += ["a", ""]
    _node(raw, "inst:cnb")["colour"] = "blue"
    del _node(raw, "inst:mf")["name"]
    raw["nodes"].append({"id": "domain:Bad Slug", "type": "domain", "name": "x y", "vocabulary": ["zz"]})
    errors = _errors(raw, tmp_path)
    expected = [
        "node 'domain:volby': type must be one of ['domain', 'institution', 'act'], not 'area'",
        "node 'domain:najem': ['citation'] only belong to acts",
        "node 'domain:dph' aliases: must be a list of strings",
        "node 'domain:insolvence' vocabulary: '' is not a non-empty string",
        "node 'domain:insolvence': 'a' has no searchable token (stop-words or single letters only)",
        "node 'inst:cnb': unknown keys ['colour']",
        "node 'inst:mf': missing name",
        "node 'domain:Bad Slug': id must look like 'domain:<lower-case-slug>'",
    ]
    for message in expected:
        assert message in errors, (message, errors)


def test_validation_part_of_cycle_and_ungoverned_act(raw, tmp_path):
    raw["edges"].append(["part_of", "domain:obcanske-pravo", "domain:kupni-smlouva"])
    raw["edges"] = [e for e in raw["edges"] if e[1] != "act:90/2024"]
    errors = _errors(raw, tmp_path)
    assert any(e.startswith("part_of cycle:") and "domain:kupni-smlouva" in e for e in errors), errors
    assert "act 'act:90/2024' governs no domain" in errors


def test_validation_not_yaml_and_wrong_shape(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes: [unclosed", encoding="utf-8")
    with pytest.raises(DomainGraphError, match="not valid YAML"):
        load_domain_graph(bad)
    with pytest.raises(DomainGraphError, match="'nodes' must be a non-empty list"):
        validate({"version": 1, "nodes": [], "edges": []})
    with pytest.raises(DomainGraphError, match="must be a mapping"):
        validate(["nodes"])


def test_error_reports_every_problem(raw, tmp_path):
    _node(raw, "act:262/2006")["eli"] = "/eli/cz/sb/2006/1"
    raw["edges"].append(["governs", "act:262/2006", "domain:nic"])
    raw["nodes"].append(copy.deepcopy(_node(raw, "inst:cnb")))
    assert len(_errors(raw, tmp_path)) == 3


def test_acts_are_named_as_the_acts_table_names_them(graph):
    # the coverage block tells a person "<name> (<citation>) není v kolekci": a name the table does not give the
    # act would send them to the wrong law (4/1993 Sb. is the table's title, abbreviated)
    from mendel.law.acts_table import acts_by_citation

    table = acts_by_citation()
    wrong = []
    for act in graph.of_type("act"):
        entry = table.get(act.citation)
        if entry is None or act.citation == "4/1993 Sb.":
            continue
        names = [entry.title, entry.short_name, *entry.names]
        if not any(act.name.casefold() in name.casefold() for name in names if name):
            wrong.append((act.citation, act.name, entry.title))
    assert wrong == []
