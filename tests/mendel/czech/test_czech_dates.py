"""mendel.czech.dates: the one reader and writer of Czech dates, table by table."""

from datetime import date

import pytest

from mendel.czech.dates import (
    MONTH_BY_NAME,
    MONTH_FORMS,
    WORDED_DATE_RE,
    calendar_date,
    date_of_match,
    find_date,
    find_numeric_date,
    find_worded_date,
    format_numeric_date,
    iso,
    month_number,
    numeric_from_iso,
    ofn_instant_date,
    parse_iso_date,
    parse_numeric_date,
)


@pytest.mark.parametrize(
    "name,number",
    [
        ("ledna", 1),
        ("únor", 2),
        ("Března", 3),
        ("dubnu", 4),
        ("květnem", 5),
        ("června", 6),
        ("červenec", 7),
        ("července", 7),
        ("srpna", 8),
        ("září", 9),
        ("října", 10),
        ("LISTOPADU", 11),
        ("prosinci", 12),
        ("červ", None),
        ("january", None),
        ("", None),
    ],
)
def test_month_number(name, number):
    assert month_number(name) == number


def test_month_tables_cover_twelve_months_and_no_form_twice():
    assert sorted(MONTH_FORMS) == list(range(1, 13))
    forms = [f for fs in MONTH_FORMS.values() for f in fs]
    assert len(forms) == len(set(forms))
    assert all(MONTH_BY_NAME[f[:1].upper() + f[1:]] == MONTH_BY_NAME[f] for f in forms)


@pytest.mark.parametrize(
    "parts,expected",
    [
        ((2024, 2, 29), date(2024, 2, 29)),
        (("2024", "02", "01"), date(2024, 2, 1)),
        ((2023, 2, 29), None),
        ((2024, 13, 1), None),
        ((2024, 4, 31), None),
        ((2024, 0, 1), None),
    ],
)
def test_calendar_date(parts, expected):
    assert calendar_date(*parts) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("19. 12. 2024", date(2024, 12, 19)),
        ("19.12.2024", date(2024, 12, 19)),
        ("1.2.2026 10:00", date(2026, 2, 1)),
        ("II.ÚS 866/16 ze dne 24. 11. 2016", date(2016, 11, 24)),
        ("31. 2. 2026", None),
        ("2026", None),
        ("16. dubna 2024", None),
        ("", None),
        (None, None),
    ],
)
def test_find_numeric_date(text, expected):
    assert find_numeric_date(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Zpřístupněna dne 16. dubna 2024", date(2024, 4, 16)),
        ("6. března 2024", date(2024, 3, 6)),
        ("1.ledna 2026", date(2026, 1, 1)),
        ("1. říjnem 2026", date(2026, 10, 1)),
        ("5. září 2023", date(2023, 9, 5)),
        ("30. února 2024", None),
        ("16. 4. 2024", None),
        ("březen 2024", None),
        (None, None),
    ],
)
def test_find_worded_date(text, expected):
    assert find_worded_date(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2020-06-29", date(2020, 6, 29)),
        ("29. 6. 2020", date(2020, 6, 29)),
        ("29.6.2020 10:00", date(2020, 6, 29)),
        ("vyvěšeno 29. června 2020", date(2020, 6, 29)),
        ("2020-02-30", None),
        ("nespecifikováno", None),
        (None, None),
    ],
)
def test_find_date(text, expected):
    assert find_date(text) == expected


@pytest.mark.parametrize(
    "text,allow_time,expected",
    [
        ("1.2.2026", False, date(2026, 2, 1)),
        (" 1. 2. 2026 ", False, date(2026, 2, 1)),
        ("01/02/2026", False, date(2026, 2, 1)),
        ("01.02.2026 00:00:00", True, date(2026, 2, 1)),
        ("1.1.2017 23:59", True, date(2017, 1, 1)),
        ("01.02.2026 00:00:00", False, None),
        ("1./2/2026", False, None),
        ("datum 1.2.2026", False, None),
        ("31.2.2026", False, None),
        ("", False, None),
        (None, True, None),
    ],
)
def test_parse_numeric_date_reads_a_whole_field(text, allow_time, expected):
    assert parse_numeric_date(text, allow_time=allow_time) == expected


@pytest.mark.parametrize(
    "value,expected",
    [
        ("2020-06-29", date(2020, 6, 29)),
        ("2024-05-01T10:00:00+02:00", date(2024, 5, 1)),
        (" 2024-05-01 ", date(2024, 5, 1)),
        ("2023-02-29", None),
        ("29. 6. 2020", None),
        ("x2020-06-29", None),
        (None, None),
        (20200629, None),
        ({"datum": "2020-06-29"}, None),
    ],
)
def test_parse_iso_date(value, expected):
    assert parse_iso_date(value) == expected


@pytest.mark.parametrize(
    "day,kwargs,text",
    [
        (date(2024, 2, 1), {}, "1. 2. 2024"),
        (date(2018, 9, 8), {"separator": "."}, "8.9.2018"),
        (date(2017, 1, 1), {"separator": ".", "zero_pad": True}, "01.01.2017"),
        (date(2025, 1, 20), {"separator": "/", "zero_pad": True}, "20/01/2025"),
    ],
)
def test_format_numeric_date_round_trips(day, kwargs, text):
    assert format_numeric_date(day, **kwargs) == text
    assert parse_numeric_date(text) == day


def test_iso_and_date_of_match():
    assert iso(date(2024, 2, 1)) == "2024-02-01" and iso(None) is None
    match = WORDED_DATE_RE.search("nabývá účinnosti dnem 1. ledna 2026.")
    assert date_of_match(match) == date(2026, 1, 1)


@pytest.mark.parametrize(
    "value,expected",
    [
        ({"typ": "Časový okamžik", "datum": "2020-06-29"}, date(2020, 6, 29)),
        ({"datum_a_čas": "2024-05-01T10:00:00+02:00"}, date(2024, 5, 1)),
        ("2024-05-01", date(2024, 5, 1)),
        ({"nespecifikovaný": True}, None),
        ({"datum": 20200629}, None),
        ({"datum": "29. 6. 2020"}, None),
        ([], None),
        (None, None),
    ],
)
def test_ofn_instant_date(value, expected):
    assert ofn_instant_date(value) == expected


@pytest.mark.parametrize(
    "value,default,text",
    [
        ("2024-02-01", "", "1. 2. 2024"),
        ("2026-05-25T00:00:00", "", "25. 5. 2026"),
        (None, "", ""),
        ("", "nespecifikováno", "nespecifikováno"),
        ("2024-02-30", "?", "?"),
    ],
)
def test_numeric_from_iso(value, default, text):
    assert numeric_from_iso(value, default) == text
