"""When an act took effect, as far as its stored versions show it (mendel.law.commencement)."""

from __future__ import annotations

from datetime import date

import pytest

from mendel.law.commencement import ANNOUNCED_VERSION, commencement

JAN, JUN, JUL = date(2026, 1, 1), date(2026, 6, 1), date(2025, 7, 1)


@pytest.mark.parametrize(
    ("versions", "promulgated", "took_effect"),
    [
        ([("2026-01-01", JAN, None), ("2026-06-01", JUN, None)], True, JAN),  # the promulgated PDF's wording first
        ([("2026-06-01", JUN, None), ("2026-01-01", JAN, None)], True, JAN),  # in any order
        ([("2025-07-01", JUL, None)], False, None),  # a code known by today's consolidated wording only
        ([("2025-07-01", JUL, 1)], False, JUL),  # e-Sbírka numbers it 1: the original
        ([("2026-06-01", JUN, 7)], False, None),  # its seventh wording
        ([(ANNOUNCED_VERSION, JAN, None), ("2026-06-01", JUN, None)], False, JAN),  # the promulgated text itself
        ([("", None, None)], True, None),  # no dates at all
    ],
)
def test_an_act_took_effect_only_where_its_versions_show_it(versions, promulgated, took_effect):
    assert commencement(versions, promulgated) == took_effect
