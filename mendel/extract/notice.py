"""OFN "Úřední desky" (2021-07-20) JSON-LD: a notice as a small metadata document in readable Czech.

A single notice (`typ` includes "Informace na úřední desce") is one page; a whole board (`typ` "Úřední
deska" with `informace[]`) is one page and one section per notice. See
sample_corpus/municipal/ofn-2021-07-20 and the real Kadaň feed sample_corpus/municipal/kadan_uredni_deska.json.
"""

from __future__ import annotations

import json
from datetime import date, datetime

from mendel.czech.dates import format_numeric_date
from mendel.extract.model import ExtractionError

NOTICE_TYPE = "Informace na úřední desce"
BOARD_TYPE = "Úřední deska"


def _types(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def lang_text(value, lang: str = "cs") -> str:
    """The Czech (else any) string of an OFN multilingual text `{"cs": ..., "en": ...}`."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        text = value.get(lang)
        if not isinstance(text, str) or not text.strip():
            text = next((v for v in value.values() if isinstance(v, str) and v.strip()), "")
        return " ".join(text.split())
    return ""


def czech_date(value: str) -> str:
    try:
        if "T" in value:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return f"{format_numeric_date(moment.date())} {moment.hour}:{moment.minute:02d}"
        return format_numeric_date(date.fromisoformat(value[:10]))
    except ValueError:
        return value


def time_text(value) -> str:
    """An OFN `Časový okamžik`: a date, a date and time, or unspecified."""
    if isinstance(value, str):
        return czech_date(value)
    if not isinstance(value, dict):
        return ""
    if value.get("nespecifikovaný"):
        return "nespecifikováno"
    for key in ("datum_a_čas", "datum"):
        if isinstance(value.get(key), str):
            return czech_date(value[key])
    return ""


def _person(value: dict) -> str:
    name = " ".join(part for part in (lang_text(value.get("jméno")), lang_text(value.get("příjmení"))) if part)
    name = name or lang_text(value.get("název"))
    ico = value.get("ičo")
    return f"{name} (IČO {ico})" if name and ico else name or (f"IČO {ico}" if ico else "")


def _place(value: dict) -> str:
    address = value.get("adresa") if isinstance(value.get("adresa"), dict) else None
    parts = []
    if address:
        street = lang_text(address.get("název_ulice"))
        number = address.get("číslo_domovní")
        orientation = address.get("číslo_orientační")
        if street or number:
            house = f"{number}/{orientation}" if number and orientation else str(number or "")
            parts.append(" ".join(p for p in (street, house) if p))
        for key in ("název_části_obce", "název_obce"):
            if lang_text(address.get(key)):
                parts.append(lang_text(address.get(key)))
        if address.get("psč"):
            parts.append(f"PSČ {address['psč']}")
        if lang_text(address.get("název_okresu")):
            parts.append(f"okres {lang_text(address.get('název_okresu'))}")
        if not parts and isinstance(address.get("adresní_místo"), str):
            parts.append(address["adresní_místo"])
    for key in ("budova", "místnost"):
        if lang_text(value.get(key)):
            parts.append(lang_text(value.get(key)))
    geometry = value.get("geometrie")
    if not parts and isinstance(geometry, dict) and isinstance(geometry.get("coordinates"), list):
        coords = geometry["coordinates"]
        if len(coords) == 2 and all(isinstance(c, (int, float)) for c in coords):
            parts.append(f"GPS {coords[1]:.6f}, {coords[0]:.6f}")
    return ", ".join(parts)


def _as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def notice_title(item: dict) -> str | None:
    return lang_text(item.get("název")) or None


def notice_text(item: dict) -> str:
    """A notice's fields as readable Czech lines (`Název: ...`, `Vyvěšeno: 29. 6. 2020`, documents, ...)."""
    if not isinstance(item, dict):
        raise ExtractionError("OFN notice must be a JSON object")
    lines: list[str] = []

    def line(label: str, value: str) -> None:
        if value:
            lines.append(f"{label}: {value}")

    line("Název", lang_text(item.get("název")))
    line("Popis", lang_text(item.get("popis")))
    line("Vyvěšeno", time_text(item.get("vyvěšení")))
    line("Relevantní do", time_text(item.get("relevantní_do")))
    line("Schváleno", time_text(item.get("schválení")))
    line("Číslo jednací", str(item.get("číslo_jednací") or "").strip())
    line("Spisová značka", str(item.get("spisová_značka") or "").strip())
    line("Odbor", str(item.get("odbor") or "").strip())
    agendas = [lang_text(a.get("název")) for a in _as_list(item.get("agenda")) if isinstance(a, dict)]
    line("Agenda", "; ".join(a for a in agendas if a))
    authors = [_person(a) for a in _as_list(item.get("autor_díla")) if isinstance(a, dict)]
    line("Autor", "; ".join(a for a in authors if a))
    subjects = [_person(s) for s in _as_list(item.get("subjekt")) if isinstance(s, dict)]
    line("Dotčené subjekty", "; ".join(s for s in subjects if s))
    places = [_place(p) for p in _as_list(item.get("umístění")) if isinstance(p, dict)]
    line("Místo", "; ".join(p for p in places if p))
    line("Revize", str(item.get("revize") or "").strip())
    documents = [d for d in _as_list(item.get("dokument")) if isinstance(d, dict)]
    if documents:
        lines.append("Dokumenty:")
        for document in documents:
            name, url = lang_text(document.get("název")), str(document.get("url") or "").strip()
            lines.append("- " + " – ".join(part for part in (name, url) if part))
    line("Odkaz", str(item.get("url") or item.get("iri") or "").strip())
    return "\n".join(lines)


def is_notice(value) -> bool:
    return isinstance(value, dict) and (
        NOTICE_TYPE in _types(value.get("typ"))
        or ("název" in value and any(k in value for k in ("vyvěšení", "relevantní_do", "dokument")))
    )


def is_board(value) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("informace"), list)
        and (BOARD_TYPE in _types(value.get("typ")) or all(is_notice(i) for i in value["informace"][:5]))
    )


def board_title(board: dict) -> str:
    name = lang_text(board.get("název"))
    if name:
        return name
    operator = board.get("provozovatel") if isinstance(board.get("provozovatel"), dict) else {}
    who = _person(operator) if operator else ""
    return f"Úřední deska – {who or board.get('stránka') or board.get('iri') or 'bez názvu'}"


def loads(text: str):
    """json.loads with the reason (line, column) in an ExtractionError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExtractionError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except RecursionError as exc:
        raise ExtractionError("malformed JSON: nested too deeply") from exc
