"""Real citation strings and the canonical forms read from a second field."""

from __future__ import annotations

import pytest

from ner_eval.decision_forms import (
    _holds,
    _loose_us_key,
    _ns_canonical,
    _nss_canonical,
    _us_canonical,
    court_eclis,
    ecli_both_ways,
    real_strings,
)


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("2-866-16_2.txt", "II. ÚS 866/16"),
        ("Pl-24-10_1.txt", "Pl. ÚS 24/10"),
        ("St-20-05_1.txt", "Pl. ÚS-st. 20/05"),
        ("1-101-2000.txt", "I. ÚS 101/00"),
        ("4-3542-2013.txt", "IV. ÚS 3542/13"),
        ("x.txt", None),
    ],
)
def test_constitutional_files(name, canonical):
    assert _us_canonical(name) == canonical


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("rozhodnuti-30_Cdo_85_2005.txt", "30 Cdo 85/2005"),
        ("rozhodnuti-20_Cdo_1827_99.txt", "20 Cdo 1827/1999"),
        ("rozhodnuti-Cpjn_206_2010.txt", "Cpjn 206/2010"),
        ("rozhodnuti-31_Cdo_1042_2017_.txt", "31 Cdo 1042/2017"),
        ("rozhodnuti-29_NSCR_9_2015.txt", "29 NSČR 9/2015"),
    ],
)
def test_supreme_court_files(name, canonical):
    assert _ns_canonical(name) == canonical


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("0041_7Afs_130_20130905100204_prevedeno.txt", "7 Afs 41/2013"),
        ("0131_5Afs_0400045A_prevedeno.txt", "5 Afs 131/2004"),
        ("008210As__1600016_20160503160221_prevedeno.txt", "10 As 82/2016"),
        ("0033_0Vol_130_20130225150326_prevedeno.txt", "Vol 33/2013"),
    ],
)
def test_supreme_administrative_court_files(name, canonical):
    assert _nss_canonical(name) == canonical


def test_a_string_that_lacks_its_linked_number_is_left_out():
    assert _holds("7 Afs 41/2013-8", "7 Afs 41/2013")
    assert _holds("IV. US 136/2005", "IV. ÚS 136/05")
    assert not _holds("3 As 35/2006-87", "7 As 28/2012")
    assert not _holds("32 Cdo 4176/201", "32 Cdo 4176/2010")
    assert _loose_us_key("Pl. US - st. 23/06") == ("Pl", True, 23, 6) != _loose_us_key("Pl. ÚS 23/06")


def test_every_kind_has_real_strings():
    kinds = real_strings()
    assert set(kinds) == {"court_reference", "ns_cited", "nss_cited", "ús_cited", "ús_docket"}
    assert all(len(pairs) > 200 for pairs in kinds.values())
    assert ("IV. US 136/2005", "IV. ÚS 136/05") in kinds["ús_cited"]


def test_ecli_and_file_number_both_ways_on_the_open_data():
    assert len(court_eclis()) == 1500
    both = ecli_both_ways()
    assert both["ecli_to_number"]["share"] == 1.0 and both["number_to_ecli"]["share"] == 1.0
