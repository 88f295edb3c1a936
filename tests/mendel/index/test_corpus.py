"""The heading path a passage of a code carries: the část / hlava / díl / oddíl above its § with their headings,
read from the act's provision tree, the path still ending in the provision."""

from mendel.index.corpus import ChunkRecord, structure_paths

# One version's provision rows as mendel.law.provision_tree stores them, in print order: (id, parent, path, heading).
ROWS = [
    ("§ 0", None, "par_0", ""),  # neither structure nor a heading above it: no path
    ("část 4", None, "cast_4", "Relativní majetková práva"),
    ("část 4 hlava 2", "část 4", "cast_4/hlava_2", "Závazky z právních jednání"),
    ("část 4 hlava 2 díl 1", "část 4 hlava 2", "cast_4/hlava_2/dil_1", "Převod vlastnického práva"),
    ("část 4 hlava 2 díl 1 oddíl 1", "část 4 hlava 2 díl 1", "cast_4/hlava_2/dil_1/oddil_1", "Koupě"),
    ("§ 2079", "část 4 hlava 2 díl 1 oddíl 1", "cast_4/hlava_2/dil_1/oddil_1/par_2079", ""),
    ("§ 2079 odst. 1", "§ 2079", "cast_4/hlava_2/dil_1/oddil_1/par_2079/odst_1", ""),
    ("§ 1", None, "par_1", "Předmět úpravy"),  # nothing above it but its own heading
    ("část 2", None, "cast_2", "Zvláštní část"),
    ("část 2 hlava 5", "část 2", "cast_2/hlava_5", "Trestné činy proti majetku"),
    ("§ 205", "část 2 hlava 5", "cast_2/hlava_5/par_205", "Krádež"),
    ("§ 206", "část 2 hlava 5", "cast_2/hlava_5/par_206", "Trestné činy proti majetku"),  # headed as its division
    ("část 3", None, "cast_3", "Absolutní majetková práva"),
    ("§ 1051", "část 3", "cast_3/par_1051", "Nález"),
    ("§ 1052", "část 3", "cast_3/par_1052", ""),  # under the heading printed above § 1051
    ("§ 1052 odst. 1", "§ 1052", "cast_3/par_1052/odst_1", ""),
    ("část 3 hlava 1", "část 3", "cast_3/hlava_1", "Vlastnictví"),
    ("§ 1053", "část 3 hlava 1", "cast_3/hlava_1/par_1053", ""),  # another division: the heading stays behind
]


def test_each_section_gets_the_structure_above_it_with_headings():
    paths = structure_paths(ROWS)
    assert paths == {
        "§ 2079": "část 4 Relativní majetková práva > hlava 2 Závazky z právních jednání"
        " > díl 1 Převod vlastnického práva > oddíl 1 Koupě",
        "§ 1": "Předmět úpravy",
        "§ 205": "část 2 Zvláštní část > hlava 5 Trestné činy proti majetku > Krádež",
        "§ 206": "část 2 Zvláštní část > hlava 5 Trestné činy proti majetku",
        "§ 1051": "část 3 Absolutní majetková práva > Nález",
        "§ 1052": "část 3 Absolutní majetková práva > Nález",
        "§ 1053": "část 3 Absolutní majetková práva > hlava 1 Vlastnictví",
    }


def test_the_heading_path_reaches_both_texts_an_index_reads():
    path = structure_paths(ROWS)["§ 2079"]
    record = ChunkRecord(
        "c1", "/eli/cz/sb/2012/89", "Občanský zákoník", "esbirka", "", "89/2012 Sb.", 1, 1,
        f"{path} > § 2079", "§ 2079\nKupní smlouvou se prodávající zavazuje …",
    )  # fmt: skip
    for text in (record.context_text, record.dense_text):  # BM25's and the encoder's
        assert "oddíl 1 Koupě > § 2079" in text and "Závazky z právních jednání" in text


def _record(chunk_id: str, section: str, text: str, doc_id: str = "/eli/cz/sb/1993/1") -> ChunkRecord:
    return ChunkRecord(chunk_id, doc_id, "Ústava", "esbirka", "", "1/1993 Sb.", 1, 1, section, text)


def test_divisions_of_a_section_path_get_the_headings_their_document_prints():
    from mendel.index.corpus import with_section_headings

    records = [
        _record("a", "HLAVA DRUHÁ", "HLAVA DRUHÁ\nMOC ZÁKONODÁRNÁ\nČl. 15\n(1) Zákonodárná moc …"),
        _record("b", "HLAVA DRUHÁ > Čl. 16", "Čl. 16\n(1) Poslanecká sněmovna má 200 poslanců."),
        _record("c", "HLAVA TŘETÍ > Čl. 54", "Čl. 54\nPrezident republiky je hlavou státu."),  # no heading seen
        _record("d", "HLAVA DRUHÁ > Čl. 1", "HLAVA DRUHÁ\nSoučást jiného dokumentu", doc_id="other"),
    ]
    sections = [r.section for r in with_section_headings(records)]
    assert sections == [
        "HLAVA DRUHÁ",  # the last part is what references look up: unchanged
        "HLAVA DRUHÁ MOC ZÁKONODÁRNÁ > Čl. 16",
        "HLAVA TŘETÍ > Čl. 54",
        "HLAVA DRUHÁ Součást jiného dokumentu > Čl. 1",  # each document its own headings
    ]


def test_a_division_repeated_in_each_part_gets_its_own_parts_heading():
    from mendel.index.corpus import with_section_headings

    records = [
        _record("a", "ČÁST PRVNÍ > HLAVA I > § 1", "HLAVA I\nPŘEDMĚT ÚPRAVY A JEHO ZÁKLADNÍ ZÁSADY\n§ 1\n(1) …"),
        _record("b", "ČÁST DRUHÁ > HLAVA I > Díl 1 > § 655", "HLAVA I\nMANŽELSTVÍ\nDíl 1\n§ 655\nManželství …"),
        _record("c", "ČÁST DRUHÁ > HLAVA I > Díl 1 > § 656", "§ 656\n(1) Manželství vzniká …"),
        _record("d", "ČÁST PRVNÍ > HLAVA I > § 2", "§ 2\n(1) Každé ustanovení …"),
        # a division that opens further on in a passage names the division of the next passage that holds it,
        # not the passage's own
        _record("e", "ČÁST TŘETÍ > HLAVA III > § 975", "§ 975\n(1) Vlastnické právo …\nHLAVA IV\nVĚCNÁ PRÁVA"),
        _record("f", "ČÁST TŘETÍ > HLAVA IV > § 976", "§ 976\nVěcná práva …"),
    ]
    sections = [r.section for r in with_section_headings(records)]
    assert sections == [
        "ČÁST PRVNÍ > HLAVA I PŘEDMĚT ÚPRAVY A JEHO ZÁKLADNÍ ZÁSADY > § 1",
        "ČÁST DRUHÁ > HLAVA I MANŽELSTVÍ > Díl 1 > § 655",
        "ČÁST DRUHÁ > HLAVA I MANŽELSTVÍ > Díl 1 > § 656",
        "ČÁST PRVNÍ > HLAVA I PŘEDMĚT ÚPRAVY A JEHO ZÁKLADNÍ ZÁSADY > § 2",
        "ČÁST TŘETÍ > HLAVA III > § 975",
        "ČÁST TŘETÍ > HLAVA IV VĚCNÁ PRÁVA > § 976",
    ]
