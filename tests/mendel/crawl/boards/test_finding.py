"""Finding a board on a municipal website: the link the site labels as its board, the CMS its pages name, and the
finder's confidence — on link texts and addresses as Czech municipal sites write them (the 2019 crawl's links in
``registry/desk_links_2019.json``) and the signs of the CMS systems of ``mendel/data/board_rules_by_cms.yaml``."""

from __future__ import annotations

import pytest

from mendel.crawl.boards.cms_rules import UNKNOWN_CMS, load_cms_rules, load_websites
from mendel.crawl.boards.finding import PageSigns, board_link, confidence, detect_cms, footer_pieces, link_score

HOME = "https://www.obec.cz/"


@pytest.mark.parametrize(
    "text, href, expected",
    [
        ("Úřední deska", "/uredni-deska/", (3, "label+address")),
        ("Elektronická úřední deska", "/obcan/deska/", (3, "label+address")),
        ("ÚŘEDNÍ DESKA", "/index.php?id=12", (2, "label")),
        ("e-deska", "http://bavorov.imunis.cz/edeska/", (3, "label+address")),
        ("Vyvěšené dokumenty", "/uredni-deska/2/p1=55", (1, "address")),  # vismo's address
        ("Dokumenty", "/Gordic/Ginis/App/UDEN01/", (1, "address")),  # GINIS' board
        # not the board: a notice of it, its archive, a memorial plaque, another page
        ("Úřední deska", "/uredni-deska/detail/program-zasedani", None),
        ("Oznámení", "/uredni-deska/oznameni.pdf", None),
        ("Archiv úřední desky", "/uredni-deska/archiv/", None),
        ("Pamětní deska", "/pametni-deska-v-a-polak/", None),
        ("Kontakty", "/kontakty/", None),
    ],
)
def test_what_a_link_says(text, href, expected):
    assert link_score(text, HOME.rstrip("/") + href if href.startswith("/") else href) == expected


def test_the_board_link_is_the_strongest_then_the_commonest():
    links = [
        ("Aktuality", "/aktuality/"),
        ("Dokumenty", "/uredni-deska/"),  # address only
        ("Úřední deska", "/urad/uredni-deska/"),
        ("Úřední deska", "/urad/uredni-deska/#obsah"),  # the same page
        ("Úřední deska", "mailto:podatelna@obec.cz"),
    ]
    found = board_link(links, HOME)
    assert (found.url, found.how, found.label) == (
        "https://www.obec.cz/urad/uredni-deska/",
        "label+address",
        "Úřední deska",
    )
    assert board_link([("Kontakty", "/kontakty/"), ("Pamětní deska", "/pametni-deska/")], HOME) is None


@pytest.mark.parametrize(
    "signs, listed, cms, named_by",
    [
        ([PageSigns(generator="Public4u")], None, "public4u", "generator meta 'Public4u'"),
        ([PageSigns(author="SumavaNet.CZ")], None, "sumavanet", "vendor in author meta 'SumavaNet.CZ'"),
        (
            [PageSigns(), PageSigns(footer=footer_pieces(["Tvorba webu: Antee s.r.o. | Mapa webu"], []))],
            None,
            "antee",
            "vendor in footer 'Antee s.r.o.'",
        ),
        ([PageSigns(footer=("Obec Kunratice", "as4u.cz"))], None, "public4u", "vendor in footer 'as4u.cz'"),
        # a generator wins over a vendor, the board page's signs over the home page's
        ([PageSigns(author="SumavaNet.CZ"), PageSigns(generator="Plone - http://plone.org")], None, "plone", None),
        ([PageSigns()], "ostrava.cz", "plone", "the municipal websites list"),
        ([PageSigns(generator="MyCMS 2.0")], None, UNKNOWN_CMS, None),
    ],
)
def test_the_cms_a_site_names(signs, listed, cms, named_by):
    found, how = detect_cms(signs, load_cms_rules(), load_websites().get(listed) if listed else None)
    assert found == cms
    if named_by:
        assert how == named_by


def test_footer_pieces_cut_where_sites_separate_credits():
    assert footer_pieces(["© 2024 Obec Nová Ves • Vytvořil: SumavaNet.CZ"], ["sumavanet.cz"]) == (
        "2024 Obec Nová Ves",
        "Vytvořil",
        "SumavaNet.CZ",
        "sumavanet.cz",
    )


@pytest.mark.parametrize(
    "link, cms, rows, dated, expected",
    [
        ("label+address", "generator meta 'Public4u'", 16, 16, 0.95),
        ("known", "generator meta 'Public4u'", 10, 10, 1.0),
        ("address", "vendor in footer 'x'", 6, 3, 0.55),
        ("label", "the municipal websites list", 0, 0, 0.45),
        ("address", "no generator, vendor or websites-list entry names a known system", 0, 0, 0.25),
    ],
)
def test_confidence(link, cms, rows, dated, expected):
    assert confidence(link, cms, rows, dated) == expected
