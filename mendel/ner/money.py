"""MONEY: amounts with a currency, normalised to ``"{amount} {ISO 4217}"``.

``1 500 Kč`` -> ``1500 CZK``; ``1 500,50 Kč`` -> ``1500.50 CZK``; ``1,5 mil. Kč`` -> ``1500000 CZK``;
``2 mld. Kč`` -> ``2000000000 CZK``; ``1.500.000,- Kč`` -> ``1500000 CZK``; ``EUR 300`` / ``300 EUR`` ->
``300 EUR``; ``Kč 1 500`` -> ``1500 CZK``. The amount is a plain decimal: no thousands separators,
no exponent, a fractional part (two digits, or more when written) only when it is not zero.
Rules: ``ner_eval/GUIDELINES.md``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext

from mendel.ner.spans import whole_surface_norm

MONEY = "MONEY"

GROUP_SEP = r"[ \u00a0\u202f]"
# thousands grouped by spaces or dots ("1 500 000", "1.500.000"), or plain digits; then ",50" / ",-" / ".50"
# (",52-" too: a whole-crowns dash after the decimals in typed tables). A leading "0" followed by digits
# is the tail of a number split oddly ("1020 000 Kč"), not an amount.
NUMBER = (
    rf"(?!0[0-9])(?:[0-9]{{1,3}}(?:{GROUP_SEP}[0-9]{{3}}(?![0-9]))+|[0-9]{{1,3}}(?:\.[0-9]{{3}}(?![0-9]))+|"
    r"[0-9]{1,15}(?![0-9]))(?:,(?:[0-9]{1,6}(?![0-9])-?|-{1,2}|–)|\.[0-9]{1,2}(?![0-9]))?"
)
MULTIPLIERS = {
    "tis.": 10**3,
    "tisíc": 10**3,
    "tisíce": 10**3,
    "mil.": 10**6,
    "mil": 10**6,
    "milion": 10**6,
    "miliony": 10**6,
    "milionů": 10**6,
    "milionu": 10**6,
    "mld.": 10**9,
    "mld": 10**9,
    "miliarda": 10**9,
    "miliardy": 10**9,
    "miliard": 10**9,
}
MULT = (
    "(?:"
    + "|".join(
        re.escape(k) + ("" if k.endswith(".") else r"(?!\w)") for k in sorted(MULTIPLIERS, key=len, reverse=True)
    )
    + ")"
)
CURRENCIES = {  # surface -> ISO code; "Kc": ASCII-folded text (the court-citation CSVs)
    "Kč": "CZK",
    "Kčs": "CSK",
    ",- Kč": "CZK",
    "Kc": "CZK",
    "CZK": "CZK",
    "korun českých": "CZK",
    "koruny české": "CZK",
    "koruna česká": "CZK",
    "korun": "CZK",
    "koruny": "CZK",
    "korunu": "CZK",
    "korunách": "CZK",
    "EUR": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "€": "EUR",
    "USD": "USD",
    "US$": "USD",
    "$": "USD",
    "GBP": "GBP",
    "£": "GBP",
    "CHF": "CHF",
    "PLN": "PLN",
}
CUR_AFTER = (
    "(?:" + "|".join(re.escape(k) for k in sorted(CURRENCIES, key=len, reverse=True) if not k.startswith(",")) + ")"
)
CUR_BEFORE = r"(?:Kč|Kc|CZK|EUR|€|USD|US\$|\$|GBP|£|CHF)"
SPACING = r"[ \u00a0\u202f]*(?:\n[ \u00a0\u202f]*)?"

AMOUNT_FIRST_RE = re.compile(
    rf"(?<![0-9.,/§-])(?P<num>{NUMBER})(?:{SPACING}(?P<mult>{MULT}))?{SPACING}(?P<cur>{CUR_AFTER})(?![\w$€£])"
)
CURRENCY_FIRST_RE = re.compile(
    rf"(?<![\w$€£])(?P<cur>{CUR_BEFORE}){SPACING}(?P<num>{NUMBER})(?:{SPACING}(?P<mult>{MULT}))?(?![\w/]|[.,][0-9])"
)


def _amount(number: str, multiplier: str | None) -> Decimal | None:
    n = re.sub(GROUP_SEP, "", number)
    n = re.sub(r"(?<=[0-9]),?(?:-{1,2}|–)$", "", n)
    if re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{3})+(?:,[0-9]+)?", n):  # dots group thousands
        n = n.replace(".", "")
    n = n.replace(",", ".")
    if len(n) > 24:  # not an amount of money
        return None
    try:
        value = Decimal(n)
    except InvalidOperation:
        return None
    if multiplier:
        value *= MULTIPLIERS[multiplier]
    return value


def format_amount(value: Decimal) -> str:
    """``Decimal("1500.5")`` -> ``"1500.50"``, ``Decimal("1500.00")`` -> ``"1500"``."""
    with localcontext() as ctx:
        ctx.prec = 60
        if value == value.to_integral_value():
            return format(value.to_integral_value(), "f")
        text = format(value.normalize(), "f")
    whole, frac = text.split(".")
    return f"{whole}.{frac.ljust(2, '0')}"


# a currency right after a number closes that amount ("1 020 000 Kč 85 000 Kč"), it does not open the next one
AMOUNT_BEFORE_RE = re.compile(r"[0-9](?:,-{0,2}|,–)?[ \u00a0\u202f]*$")


# every amount names a currency: a text without one is skipped at the cost of one search
CURRENCY_ANYWHERE_RE = re.compile("|".join(re.escape(k) for k in CURRENCIES if not k.startswith(",")))


def money_candidates(text: str):
    """Yield (start, end, MONEY, norm)."""
    if not CURRENCY_ANYWHERE_RE.search(text):
        return
    for regex in (AMOUNT_FIRST_RE, CURRENCY_FIRST_RE):
        for m in regex.finditer(text):
            if regex is CURRENCY_FIRST_RE and AMOUNT_BEFORE_RE.search(text, max(0, m.start() - 6), m.start()):
                continue
            value = _amount(m.group("num"), m.group("mult"))
            if value is None:
                continue
            yield m.start(), m.end(), MONEY, f"{format_amount(value)} {CURRENCIES[m.group('cur')]}"


def normalize_money(surface: str) -> str | None:
    """Norm of an amount given alone ("1,5 mil. Kč" -> "1500000 CZK"), else None."""
    return whole_surface_norm(surface, money_candidates)
