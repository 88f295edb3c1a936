"""One hit per provision: the passages of one § of one act version fold into the first of them to rank."""

import pytest

from serving.ranking.provisions import GAP, joined_passages, one_per_provision, provision_key

CIVIL = "/eli/cz/sb/2012/89/2025-07-01"
PATH = "část 2 RODINNÉ PRÁVO > hlava 1 Manželství > díl 5 Zánik manželství > Výživné rozvedeného manžela"


def _chunk(chunk_id, section, seq, text, version=CIVIL, page=1):
    return {
        "chunk_id": chunk_id,
        "section": section,
        "seq": seq,
        "text": text,
        "version_eli": version,
        "page_start": page,
        "page_end": page,
    }


@pytest.mark.parametrize(
    "chunk, key",
    [
        (_chunk("a", f"{PATH} > § 760", 1, ""), (CIVIL, "§ 760")),
        (_chunk("a", "§ 2079a", 1, ""), (CIVIL, "§ 2079a")),
        (_chunk("a", "HLAVA DRUHÁ MOC ZÁKONODÁRNÁ > Čl. 16", 1, "", version="/eli/cz/sb/1993/1"), ("/eli/cz/sb/1993/1", "Čl. 16")),
        (_chunk("a", "Příloha č. 7", 1, ""), None),  # an act's passage outside any provision
        (_chunk("a", "Odůvodnění", 1, "", version=None), None),  # a decision's passage: no act version
        (_chunk("a", "§ 5", 1, "", version=None), None),
    ],
)  # fmt: skip
def test_the_provision_a_passage_belongs_to(chunk, key):
    assert provision_key(chunk) == key


CHUNKS = [
    _chunk("760-1", f"{PATH} > § 760", 10, "§ 760\n(1) Není-li rozvedený manžel schopen sám se živit …", page=3),
    _chunk("760-2", f"{PATH} > § 760", 11, "(2) Při rozhodování o výživném …", page=4),
    _chunk("762", f"{PATH} > § 762", 14, "§ 762\n(1) Nedohodnou-li se …"),
    _chunk("dec", "Odůvodnění", 2, "Soud přiznal výživné …", version=None),
    _chunk("dec-2", "Odůvodnění", 3, "Soud dále uvedl …", version=None),
    _chunk("760-3", f"{PATH} > § 760", 13, "(4) Výživné lze přiznat nejdéle …", page=4),
    _chunk("760-old", f"{PATH} > § 760", 10, "§ 760 dřívější znění", version="/eli/cz/sb/2012/89/2014-01-01"),
]


def test_each_provision_is_one_hit_where_its_first_passage_ranks():
    fused = [(1, 0.9, ["bm25"]), (2, 0.8, ["dense"]), (0, 0.7, ["acts_dense"]), (3, 0.6, ["bm25"]), (4, 0.5, ["bm25"])]
    fused += [(5, 0.4, ["routed"]), (6, 0.3, ["bm25"])]
    kept, folded = one_per_provision(fused, CHUNKS)
    assert [item for item, _, _ in kept] == [1, 2, 3, 4, 6]  # a decision's passages and another version stay apart
    assert folded == {1: [0, 5]}
    assert kept[0] == (1, 0.9, ["bm25", "acts_dense", "routed"])  # its place and score, its passages' lists


def test_folded_passages_read_in_the_acts_order_with_a_gap_where_text_is_left_out():
    joined = joined_passages(CHUNKS, [1, 0, 5])
    assert joined["text"] == (
        "§ 760\n(1) Není-li rozvedený manžel schopen sám se živit …\n(2) Při rozhodování o výživném …"
        f"{GAP}(4) Výživné lze přiznat nejdéle …"
    )
    assert (joined["page"], joined["page_end"]) == (3, 4)
    assert joined["passages"] == ["760-1", "760-2", "760-3"]


def test_nothing_folds_when_every_passage_is_its_own_provision():
    fused = [(2, 1.0, ["bm25"]), (3, 0.5, ["bm25"]), (4, 0.4, ["dense"])]
    assert one_per_provision(fused, CHUNKS) == (fused, {})


class _CountedRows(list):
    """Chunk rows that count the rows read."""

    reads = 0

    def __getitem__(self, index):
        self.reads += 1
        return super().__getitem__(index)


def test_with_k_no_row_below_the_kth_hit_is_read():
    fused = [(1, 0.9, ["bm25"]), (2, 0.8, ["dense"]), (0, 0.7, ["acts_dense"]), (3, 0.6, ["bm25"]), (4, 0.5, ["bm25"])]
    fused += [(5, 0.4, ["routed"]), (6, 0.3, ["bm25"])]
    rows = _CountedRows(CHUNKS)
    kept, folded = one_per_provision(fused, rows, k=2)
    assert [item for item, _, _ in kept] == [1, 2]
    assert folded == {1: [0]}  # its passage ranked below the third provision (5) is not read
    assert rows.reads == 4  # items 1, 2, 0 and the third provision's (3), where reading stops
    full, _ = one_per_provision(fused, CHUNKS)
    assert [item for item, _, _ in kept] == [item for item, _, _ in full[:2]]  # the same first k hits
