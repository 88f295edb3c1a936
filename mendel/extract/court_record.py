"""A lower-court decision as the Ministry of Justice's open data publishes it (rozhodnuti.justice.cz): one JSON record
with the decision's metadata and its two texts, ``vyrok`` and ``oduvodneni``.

Its text is the record's own fields, nothing added but their Czech names: a header (court, file number, ECLI, the
dates, subject, keywords), then the výrok and the odůvodnění, each under a heading of its own, so that every
passage's section path says which part of the decision it comes from. The provisions the record lists
(``zminenaUstanoveni``) are metadata, kept with the record, not text: the citator links them as the court's own
witness, and the recogniser reading them back out of the text would only echo that witness.
"""

from __future__ import annotations

from mendel.extract.normalize import normalize_text

VERDICT, REASONING = "Výrok", "Odůvodnění"
TEXT_FIELDS = (("vyrok", VERDICT), ("oduvodneni", REASONING))
HEADER_FIELDS = (
    ("soud", "Soud"),
    ("jednaciCislo", "Jednací číslo"),
    ("ecli", "ECLI"),
    ("datumVydani", "Datum vydání"),
    ("datumZverejneni", "Datum zveřejnění"),
    ("predmetRizeni", "Předmět řízení"),
    ("klicovaSlova", "Klíčová slova"),
)


def is_opendata_record(value) -> bool:
    """A JSON value that is one open-data decision record (its file number and a text field)."""
    return isinstance(value, dict) and "jednaciCislo" in value and any(key in value for key, _ in TEXT_FIELDS)


def _field_text(value) -> str:
    if isinstance(value, list):
        return "; ".join(str(v).strip() for v in value if str(v).strip())
    return str(value or "").strip()


def record_title(value: dict) -> str:
    """``Rozhodnutí Okresního soudu …`` is not written by the record: the title is its court and file number."""
    parts = [_field_text(value.get("soud")), _field_text(value.get("jednaciCislo"))]
    return ", č. j. ".join(p for p in parts if p) or "Rozhodnutí soudu"


def record_text(value: dict) -> tuple[str, list[tuple[int, str]]]:
    """The record's text (normalised) and its section headings as (offset, label): one for each text field the
    record has text in."""
    header = [f"{label}: {_field_text(value.get(key))}" for key, label in HEADER_FIELDS if _field_text(value.get(key))]
    text = normalize_text("\n".join(header))
    headings: list[tuple[int, str]] = []
    for key, label in TEXT_FIELDS:
        body = normalize_text(str(value.get(key) or ""))
        if not body.strip():
            continue
        text += "\n\n"
        headings.append((len(text), label))
        text += f"{label}\n{body}"
    return text, headings


def has_decision_text(value: dict) -> bool:
    return any(str(value.get(key) or "").strip() for key, _ in TEXT_FIELDS)
