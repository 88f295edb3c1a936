"""A court decision named by its ECLI or by its file number in any spelling has one canonical key
(mendel.citator.targets.decision_target), the ECLI read by the recogniser's own reader."""

import pytest

from mendel.citator.targets import decision_target

# (as a query or a citation names it, the canonical key, every key it is matched under)
CASES = [
    (
        "ECLI:CZ:US:2013:4.US.2265.13.1",
        "IV. ÚS 2265/13",
        ("IV. ÚS 2265/13", "ECLI:CZ:US:2013:4.US.2265.13.1"),
    ),
    ("IV. US 2265/2013", "IV. ÚS 2265/13", ("IV. ÚS 2265/13",)),
    (
        "ECLI:CZ:MSBR:2025:52.C.99.2024.1",
        "52 C 99/2024",
        ("52 C 99/2024", "ECLI:CZ:MSBR:2025:52.C.99.2024.1"),
    ),
    ("52 C 99/2024-53", "52 C 99/2024", ("52 C 99/2024",)),
    (  # the Nejvyšší soud's ECLI writes the register in capitals; the key is the court's own spelling
        "ECLI:CZ:NS:2026:29.ICDO.177.2024.1",
        "29 ICdo 177/2024",
        ("29 ICdo 177/2024", "ECLI:CZ:NS:2026:29.ICDO.177.2024.1"),
    ),
    ("29 ICdo 177/2024", "29 ICdo 177/2024", ("29 ICdo 177/2024",)),
]


@pytest.mark.parametrize(("named", "key", "keys"), CASES)
def test_an_ecli_and_its_file_number_meet_on_one_key(named, key, keys):
    target = decision_target(named)
    assert (target.kind, target.key, target.keys) == ("decision", key, keys)


def test_an_ecli_of_another_country_is_its_own_key():
    target = decision_target("ECLI:EU:C:2019:123")
    assert (target.key, target.keys) == ("ECLI:EU:C:2019:123", ("ECLI:EU:C:2019:123",))


def test_what_is_no_decision_has_no_target():
    assert decision_target("zákon o obcích") is None


@pytest.mark.parametrize(
    "ref, older",
    [
        ("§ 36 tr. zák.", ("140/1961 Sb.", "§ 36")),
        ("§ 134 odst. 1 obč. zák.", ("40/1964 Sb.", "§ 134 odst. 1")),
        ("občanský zákoník", ("40/1964 Sb.", "")),
        ("§ 205 tr. zákoníku", None),  # the newer code's own form
        ("§ 36 zákona č. 40/2009 Sb.", None),  # a number
        ("§ 142 o. s. ř.", None),  # a code nothing replaced
    ],
)
def test_a_form_two_codes_go_by_points_at_the_older_code_too(ref, older):
    from mendel.citator.targets import older_code_target, parse_target

    found = older_code_target(ref, parse_target(ref))
    assert (None if found is None else (found.key, found.provision)) == older
