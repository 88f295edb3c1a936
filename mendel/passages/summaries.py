"""Short generic summaries (~150 characters), bottom-up: each section from its text, the document from its section
summaries; the document summary is part of every chunk's indexed text. :class:`ExtractiveSummarizer` is the default
(no model, no network); :class:`OpenAICompatibleSummarizer` asks a chat-completions endpoint when
``MENDEL_SUMMARY_LLM_URL`` is set, falling back to the extractive summary on any failure.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from mendel.czech.analyzer import analyze
from mendel.extract.sections import find_headings

SUMMARY_CHARS = 150
ELLIPSIS = "…"
log = logging.getLogger("mendel.passages.summaries")

# A sentence ends at . ! ? before a capital (not before a digit: "č. 5", "odst. 2"), or at a blank line.
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])[)\"”]?\s+(?=[\"„(]?[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ])|\n[ \t]*\n")
# A piece ending in one of these abbreviations (or an initial: "L.") continues into the next one.
_ABBREVIATION_END_RE = re.compile(
    r"(?:\b(?:Čl|JUDr|Mgr|Ing|Bc|MUDr|PhDr|RNDr|Ph\.D|doc|prof|tj|tzv|např|resp|odst|písm|č|čl|Sb|sp|zn|srov|viz"
    r"|mj|atd|apod|s\. r|a\. s|v\. r|o\. s|ř|tr|zák)|(?<![\w.])[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ])\.[)\"”]?$"
)
_PARAGRAPH_NUMBER_TAIL_RE = re.compile(r"(?<=[.!?])\s+\d{1,3}\.$")
_TERMINAL = '.!?:;)"”'
_MIN_SENTENCE_CHARS = 25
_MIN_SENTENCE_TOKENS = 3


class Summarizer(Protocol):
    name: str

    def summarize(self, parts: Sequence[str], *, context: str = "", max_chars: int = SUMMARY_CHARS) -> str:
        """A summary of ``parts`` (a section's text, or the summaries of a document's sections) of at most
        ``max_chars`` characters; ``context`` (the document title) may guide it but is not repeated."""
        ...


def fit(text: str, max_chars: int) -> str:
    """Whitespace collapsed, cut at a word boundary with an ellipsis when longer than ``max_chars``."""
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - len(ELLIPSIS)]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:–-") + ELLIPSIS


def _strip_leading_headings(sentence: str) -> str:
    """``§ 5\\nPředmět úpravy\\n(1) Tento zákon…`` -> ``Předmět úpravy\\n(1) Tento zákon…``."""
    while True:
        headings = find_headings(sentence)
        if not headings or headings[0].offset != 0:
            return sentence
        newline = sentence.find("\n")
        if newline < 0:
            return ""
        sentence = sentence[newline + 1 :]


def _continues(previous: str, piece: str) -> bool:
    """A split that cut a sentence: after an abbreviation, a line break inside a sentence, or before lower case."""
    previous, piece = previous.rstrip(), piece.lstrip()
    return bool(
        _ABBREVIATION_END_RE.search(previous) or (previous and previous[-1] not in _TERMINAL) or (piece[:1].islower())
    )


def sentences(text: str) -> list[str]:
    """Candidate sentences of ``text``, whitespace collapsed, headings and fragments left out."""
    # A heading line ends whatever came before it: "Změna trestního zákoníku\nČl. I\nV zákoně …".
    cuts = [h.offset for h in find_headings(text)]
    blocks = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    pieces: list[str] = []
    for piece in (p for block in blocks for p in _SENTENCE_SPLIT_RE.split(block)):
        if pieces and _continues(pieces[-1], piece):
            pieces[-1] = f"{pieces[-1].rstrip()} {piece.lstrip()}"
        else:
            pieces.append(piece)
    found = []
    for raw in pieces:
        sentence = " ".join(_strip_leading_headings(raw.strip()).split())
        sentence = _PARAGRAPH_NUMBER_TAIL_RE.sub("", sentence)  # "… majetek. 4." -> "… majetek."
        if sentence[:1].islower():
            continue  # the tail of a sentence cut off before this text began
        if len(sentence) >= _MIN_SENTENCE_CHARS and len(analyze(sentence)) >= _MIN_SENTENCE_TOKENS:
            found.append(sentence)
    return found


@dataclass
class ExtractiveSummarizer:
    """Sentences chosen by centrality (mean log frequency of their terms in the whole input), by the share of
    the title's terms they contain (an act's title names its subject) and, mildly, by position; joined in
    their original order up to ``max_chars``."""

    name: str = "extractive"
    position_decay: float = 0.02
    title_weight: float = 1.0

    def summarize(self, parts: Sequence[str], *, context: str = "", max_chars: int = SUMMARY_CHARS) -> str:
        candidates = [s for part in parts for s in sentences(part)]
        if not candidates:
            # No sentence to pick (a table, a list of names): the start of the text is the best we have.
            return fit(" ".join(" ".join(parts).split()), max_chars)
        tokens = [set(analyze(s)) for s in candidates]
        frequency = Counter(t for found in tokens for t in found)
        # Only a descriptive title guides the choice ("Zákon o podpoře bydlení"); "20 Nd 234/2026 Usnesení" would
        # just pull in the decision's header.
        title = {t for t in analyze(context) if t.isalpha() and len(t) >= 4}
        title = title if len(title) >= 2 else set()

        def score(i: int) -> float:
            centrality = sum(math.log1p(frequency[t]) for t in tokens[i]) / max(len(tokens[i]), 1)
            about_title = len(tokens[i] & title) / len(title) if title else 0.0
            return (centrality + self.title_weight * about_title) / (1.0 + self.position_decay * i)

        ranked = sorted(range(len(candidates)), key=lambda i: (-score(i), i))
        chosen = [ranked[0]]
        used = len(candidates[ranked[0]])
        for i in ranked[1:]:
            if used + 1 + len(candidates[i]) <= max_chars:
                chosen.append(i)
                used += 1 + len(candidates[i])
        return fit(" ".join(candidates[i] for i in sorted(chosen)), max_chars)


@dataclass
class OpenAICompatibleSummarizer:
    """Summaries from an OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 30.0
    max_input_chars: int = 6000
    fallback: Summarizer = field(default_factory=ExtractiveSummarizer)
    failures: int = 0

    def __post_init__(self) -> None:
        if not re.match(r"^https?://", self.base_url or ""):
            raise ValueError(f"summary endpoint must be an http(s) URL, not {self.base_url!r}")
        if not self.model:
            raise ValueError("summary endpoint needs a model name (MENDEL_SUMMARY_LLM_MODEL)")

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    def _messages(self, parts: Sequence[str], context: str, max_chars: int) -> list[dict]:
        text = "\n\n".join(p.strip() for p in parts if p.strip())[: self.max_input_chars]
        instruction = (
            f"Shrň následující text jednou větou česky, nejvýše {max_chars} znaků. Piš věcně, bez úvodu a bez uvozovek."
        )
        user = f"Dokument: {context}\n\n{text}" if context else text
        return [{"role": "system", "content": instruction}, {"role": "user", "content": user}]

    def _complete(self, messages: list[dict]) -> str:
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0, "max_tokens": 200}).encode(
            "utf-8"
        )
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.base_url.rstrip("/") + "/chat/completions", data=body, headers=headers, method="POST"
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 (http(s) only)
            payload = json.loads(response.read().decode("utf-8"))
        content = payload["choices"][0]["message"]["content"]
        if not isinstance(content, str) or not content.strip():
            raise ValueError("empty completion")
        return content

    def summarize(self, parts: Sequence[str], *, context: str = "", max_chars: int = SUMMARY_CHARS) -> str:
        if not any(p.strip() for p in parts):
            return ""
        try:
            content = self._complete(self._messages(parts, context, max_chars))
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            self.failures += 1
            log.warning("summary endpoint failed (%s: %s); using the extractive summary", exc.__class__.__name__, exc)
            return self.fallback.summarize(parts, context=context, max_chars=max_chars)
        return fit(content.strip().strip('"„“”'), max_chars)


def get_summarizer(environ: dict[str, str] | None = None) -> Summarizer:
    """The extractive summariser, or the LLM one when ``MENDEL_SUMMARY_LLM_URL`` is set (with
    ``MENDEL_SUMMARY_LLM_MODEL``, optional ``MENDEL_SUMMARY_LLM_API_KEY`` (a secret) and
    ``MENDEL_SUMMARY_LLM_TIMEOUT`` in seconds)."""
    env = os.environ if environ is None else environ
    url = (env.get("MENDEL_SUMMARY_LLM_URL") or "").strip()
    if not url:
        return ExtractiveSummarizer()
    return OpenAICompatibleSummarizer(
        base_url=url,
        model=(env.get("MENDEL_SUMMARY_LLM_MODEL") or "").strip(),
        api_key=env.get("MENDEL_SUMMARY_LLM_API_KEY") or None,
        timeout=float(env.get("MENDEL_SUMMARY_LLM_TIMEOUT") or 30),
    )


@dataclass(frozen=True)
class DocumentSummary:
    document: str
    sections: list[str]


def summarize_document(
    section_texts: Sequence[str], summarizer: Summarizer, *, title: str = "", max_chars: int = SUMMARY_CHARS
) -> DocumentSummary:
    """Bottom-up: one summary per section from its text, then the document's from the section summaries."""
    sections = [summarizer.summarize([text], context=title, max_chars=max_chars) for text in section_texts]
    if len(sections) == 1:
        return DocumentSummary(sections[0], sections)
    document = summarizer.summarize([s for s in sections if s], context=title, max_chars=max_chars)
    return DocumentSummary(document, sections)
