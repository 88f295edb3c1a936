"""Plain text and RTF: the encoding found (BOM, UTF-16 without BOM, UTF-8, windows-1250 vs ISO-8859-2,
then charset-normalizer), the text decoded, and undecodable or binary input refused with a reason."""

from __future__ import annotations

import codecs
import re

from mendel.extract.model import ExtractionError

_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
]

# Letters of Czech (and Slovak) text; the rest of the 8-bit range that Czech text hardly ever uses.
_CZECH = set("áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ")
_RARE = set("ąĄľĽ»«©®¤¦¨°±´¸ŚśŹź")
_CZECH_WORDS = re.compile(r"\b(?:že|při|před|též|který|která|které|může|této|něj|čl|č)\b")


def _czech_score(text: str) -> float:
    """Higher for text that reads as Czech; C1 controls and rare symbols count against."""
    good = sum(1 for ch in text if ch in _CZECH)
    bad = sum(1 for ch in text if "\x80" <= ch <= "\x9f" or ch in _RARE)
    return good + 0.5 * len(_CZECH_WORDS.findall(text)) - 3 * bad


def _looks_utf16(data: bytes) -> str | None:
    """UTF-16 without a BOM: NULs on the odd (LE) or even (BE) bytes of mostly-ASCII text."""
    sample = data[:8192]
    if len(sample) < 4:
        return None
    sample = sample[: len(sample) // 2 * 2]
    even_nul = sample[0::2].count(0) / (len(sample) // 2)
    odd_nul = sample[1::2].count(0) / (len(sample) // 2)
    if odd_nul > 0.3 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.3 and odd_nul < 0.05:
        return "utf-16-be"
    return None


def _control_ratio(text: str) -> float:
    if not text:
        return 0.0
    controls = sum(1 for ch in text[:100_000] if (ch < " " and ch not in "\n\r\t\f\v") or ch == "\ufffd")
    return controls / min(len(text), 100_000)


def _is_utf8_with_non_ascii(data: bytes) -> bool:
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def detect_encoding(data: bytes, declared: str | None = None) -> str:
    """The encoding `data` is in. A declared charset (HTTP header, meta tag) is trusted when it decodes,
    unless the bytes are valid UTF-8 with non-ASCII characters."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    utf16 = _looks_utf16(data)
    if utf16:
        return utf16
    if declared and _is_utf8_with_non_ascii(data):
        # Czech text in an 8-bit code page is practically never valid UTF-8, so a declared windows-1250 or
        # ISO-8859-2 that the bytes contradict is a mislabel; trusting it would turn "á" into "Ăˇ".
        return "utf-8"
    if declared:
        try:
            codecs.lookup(declared)
            data.decode(declared)
            if declared.lower().replace("_", "-") not in (
                "iso-8859-1",
                "latin-1",
                "latin1",
                "us-ascii",
                "ascii",
                "windows-1252",
                "cp1252",
            ):
                return declared
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return "utf-8"  # a multi-byte character cut at the very end
    candidates = {}
    for name in ("windows-1250", "iso-8859-2"):
        try:
            candidates[name] = _czech_score(data.decode(name))
        except UnicodeDecodeError:
            continue
    if candidates:
        best = max(candidates, key=candidates.get)
        if candidates[best] > 0:
            return best
    from charset_normalizer import from_bytes

    match = from_bytes(data[:200_000]).best()
    if match is not None:
        return match.encoding
    raise ExtractionError("undecodable text: no encoding fits (not UTF-8/16, windows-1250 or ISO-8859-2)")


def decode_text(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """(text, encoding); ExtractionError for binary or undecodable data."""
    if not data:
        raise ExtractionError("empty document")
    encoding = detect_encoding(data, declared)
    errors = "strict"
    if encoding == "utf-8" and not data.startswith(codecs.BOM_UTF8):
        errors = "replace"  # only the cut character at the end can fail here
    try:
        text = data.decode(encoding, errors=errors)
    except (UnicodeDecodeError, LookupError) as exc:
        raise ExtractionError(f"undecodable text as {encoding}: {exc}") from exc
    text = text.lstrip("\ufeff")
    if "\x00" in text[:100_000] or _control_ratio(text) > 0.02:
        raise ExtractionError(f"binary data, not text (decoded as {encoding}, control characters found)")
    return text, encoding


# --- RTF -----------------------------------------------------------------------------------------


def is_rtf(data: bytes) -> bool:
    return data.lstrip()[:5] == b"{\\rtf"


def rtf_text(data: bytes) -> tuple[str, bool]:
    """(plain text, truncated?) of an RTF document; `\\ansicpg1250`, `\\'xx` and `\\uN` are honoured."""
    from striprtf.striprtf import rtf_to_text

    raw = data.decode("latin-1")  # RTF is 7-bit; 8-bit bytes, if any, come back through the code page
    if not is_rtf(data):
        raise ExtractionError("not RTF (missing {\\rtf header)")
    depth = 0
    for match in re.finditer(r"\\[{}\\]|[{}]", raw):
        token = match.group(0)
        depth += 1 if token == "{" else -1 if token == "}" else 0
    truncated = depth > 0
    try:
        text = rtf_to_text(raw, encoding="cp1250", errors="replace")
    except Exception as exc:
        raise ExtractionError(f"malformed RTF: {exc.__class__.__name__}: {exc}") from exc
    if truncated and not text.strip():
        raise ExtractionError("truncated RTF: unbalanced groups and no text")
    return text, truncated
