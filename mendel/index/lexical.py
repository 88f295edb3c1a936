"""BM25 (bm25s) over the Czech analyser, written as one bundle part.

A part directory holds ``bm25/`` (bm25s' own files), ``ids.json`` (row i of the index -> chunk id) and
``build_info.json`` (the input fingerprint, so an unchanged corpus is not re-indexed).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Iterable, Sequence

from mendel.index.analyzer import analyze

BUILD_INFO = "build_info.json"
# Bump when the analyser's output changes: indexes built with the old one must be rebuilt.
ANALYZER_VERSION = "cs-1"


def fingerprint(ids: Sequence[str], texts: Sequence[str]) -> str:
    """Digest of what an index is built from: the chunk ids in order and the text indexed for each."""
    digest = hashlib.sha256(ANALYZER_VERSION.encode())
    for chunk_id, text in zip(ids, texts, strict=True):
        digest.update(chunk_id.encode())
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def read_build_info(out_dir: Path) -> dict:
    try:
        return json.loads((Path(out_dir) / BUILD_INFO).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def is_current(out_dir: Path, digest: str) -> bool:
    """The part in ``out_dir`` is complete and was built from inputs with this fingerprint."""
    out_dir = Path(out_dir)
    return read_build_info(out_dir).get("fingerprint") == digest and (out_dir / "ids.json").exists()


def token_ids(texts: Iterable[str]) -> tuple[list[list[int]], dict[str, int]]:
    """Analysed texts as lists of term ids plus the vocabulary (ids in order of first use, so a rebuild of
    the same corpus writes the same files). The ints are the vocabulary's own objects, so a large corpus
    costs a pointer per token rather than an object."""
    vocabulary: dict[str, int] = {}
    corpus = []
    for text in texts:
        corpus.append([vocabulary.setdefault(term, len(vocabulary)) for term in analyze(text)])
    return corpus, vocabulary


def write_bm25(out_dir: Path, ids: Sequence[str], texts: Iterable[str], digest: str | None = None) -> dict:
    """Index ``texts`` (row i belongs to ``ids[i]``) into ``out_dir``, replacing what was there."""
    import bm25s
    from bm25s.tokenization import Tokenized

    out_dir = Path(out_dir)
    corpus, vocabulary = token_ids(texts)
    if len(corpus) != len(ids):
        raise ValueError(f"{len(ids)} ids for {len(corpus)} texts")
    if not corpus:
        # bm25s can't index nothing; one empty row keeps the files loadable and ids.json says there is no chunk.
        corpus, vocabulary = [[0]], {"": 0}
    retriever = bm25s.BM25()
    retriever.index(Tokenized(ids=corpus, vocab=vocabulary), show_progress=False)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    retriever.save(str(out_dir / "bm25"))
    (out_dir / "ids.json").write_text(json.dumps(list(ids)))
    info = {"chunks": len(ids), "vocabulary": len(retriever.vocab_dict), "analyzer": ANALYZER_VERSION}
    (out_dir / BUILD_INFO).write_text(json.dumps({**info, "fingerprint": digest}, indent=1))
    return info
