"""BERT's WordPiece tokenizer, read from a model directory (``tokenizer.json`` or ``vocab.txt``)."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from mendel.encoder import ModelError


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPieceTokenizer:
    """BERT's tokenisation: clean, split on whitespace and punctuation (CJK per character), optionally lower
    case and strip accents, then greedy longest-match WordPiece with ``##`` continuations."""

    def __init__(
        self,
        vocab: list[str],
        lower_case: bool = True,
        strip_accents: bool | None = None,
        max_chars_per_word: int = 100,
    ):
        self.vocab = {token: i for i, token in enumerate(vocab)}
        self.lower_case = lower_case
        self.strip_accents = lower_case if strip_accents is None else strip_accents
        self.max_chars_per_word = max_chars_per_word
        for special in ("[CLS]", "[SEP]", "[UNK]", "[PAD]"):
            if special not in self.vocab:
                raise ModelError(f"vocabulary lacks {special}")
        self.cls, self.sep, self.unk, self.pad = (self.vocab[t] for t in ("[CLS]", "[SEP]", "[UNK]", "[PAD]"))

    @classmethod
    def from_vocab_file(cls, directory: Path) -> "WordPieceTokenizer":
        """``vocab.txt`` and the casing of ``tokenizer_config.json``, as a BERT model directory holds them."""
        vocab_path = directory / "vocab.txt"
        if not vocab_path.exists():
            raise ModelError(
                f"{directory}: no vocab.txt; only BERT-family WordPiece models are supported (not "
                "SentencePiece models such as XLM-R)"
            )
        vocab = vocab_path.read_text(encoding="utf-8").split("\n")
        if vocab and vocab[-1] == "":
            vocab.pop()
        config = {}
        if (directory / "tokenizer_config.json").exists():
            config = json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
        return cls(vocab, lower_case=bool(config.get("do_lower_case", True)), strip_accents=config.get("strip_accents"))

    @classmethod
    def from_directory(cls, directory: Path) -> "WordPieceTokenizer":
        """``tokenizer.json`` when the directory has one (it must describe WordPiece), else ``vocab.txt``."""
        if not (directory / "tokenizer.json").is_file():
            return cls.from_vocab_file(directory)
        spec = json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))
        model, normalizer = spec.get("model") or {}, spec.get("normalizer") or {}
        if model.get("type") != "WordPiece":
            raise ModelError(
                f"{directory}: tokenizer.json model {model.get('type')!r} needs the `tokenizers` "
                "package (install sentence-transformers); the numpy backend reads WordPiece only"
            )
        if normalizer and normalizer.get("type") != "BertNormalizer":
            raise ModelError(
                f"{directory}: tokenizer.json normalizer {normalizer.get('type')!r} is not "
                "supported by the numpy backend (BertNormalizer only)"
            )
        vocab = [token for token, _ in sorted(model["vocab"].items(), key=lambda item: item[1])]
        return cls(
            vocab,
            lower_case=bool(normalizer.get("lowercase", True)),
            strip_accents=normalizer.get("strip_accents"),
            max_chars_per_word=int(model.get("max_input_chars_per_word", 100)),
        )

    def _words(self, text: str) -> list[str]:
        cleaned = []
        for char in text:
            code = ord(char)
            if code == 0 or code == 0xFFFD or (unicodedata.category(char).startswith("C") and char not in "\t\n\r"):
                continue
            if _is_cjk(code):
                cleaned.append(f" {char} ")
            else:
                cleaned.append(" " if char.isspace() else char)
        words = []
        for word in "".join(cleaned).split():
            if self.lower_case:
                word = word.lower()
            if self.strip_accents:
                word = "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")
            current = ""
            for char in word:
                if _is_punctuation(char):
                    if current:
                        words.append(current)
                    words.append(char)
                    current = ""
                else:
                    current += char
            if current:
                words.append(current)
        return words

    def _pieces(self, word: str) -> list[int]:
        if len(word) > self.max_chars_per_word:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    pieces.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return pieces

    def tokenize(self, text: str) -> list[int]:
        return [i for word in self._words(text) for i in self._pieces(word)]

    def encode_pair(self, first: str, second: str, max_tokens: int) -> tuple[list[int], list[int]]:
        """(token ids, token types) of ``[CLS] first [SEP] second [SEP]``, the longer side cut first."""
        a, b = self.tokenize(first), self.tokenize(second)
        budget = max(max_tokens - 3, 2)
        while len(a) + len(b) > budget:
            if len(a) > len(b):
                a.pop()
            else:
                b.pop()
        ids = [self.cls] + a + [self.sep] + b + [self.sep]
        return ids, [0] * (len(a) + 2) + [1] * (len(b) + 1)
