"""Throughput of the legal NER: the regex path, our spaCy pipeline, and ``cs_core_news_sm`` for comparison.

    .venv/bin/python benchmarks/bench_ner.py [--repeat 3]

Texts: ~500-character chunks of real sample-corpus pages (four e-Sbírka acts and a Blešno document) plus
the gold passages. Tokens are counted with the blank ``cs`` tokenizer, so tokens/s is comparable across
pipelines. ``cs_core_news_sm`` (a third-party Czech pipeline on PyPI, CC BY-NC-SA) is never a project
dependency: it is measured only if it happens to be installed in the venv
(``pip install cs-core-news-sm``); otherwise the result says so.

Writes benchmarks/results/ner.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import spacy

from mendel.chunking import chunk_pages
from mendel.config import SAMPLE_CORPUS
from mendel.extract.pdf import pdf_pages
from mendel.ner.pipeline import build_pipeline
from mendel.ner.rules import extract_entities
from ner_eval.gate import default_gold_path
from ner_eval.scorer import load_gold

DOCUMENTS = ("esbirka/pdf/176-2025.pdf", "esbirka/pdf/234-2025.pdf", "esbirka/pdf/573-2025.pdf",
             "esbirka/pdf/316-2025.pdf", "municipal/blesno/text/informacni-noviny__bib-2020-02.pdf")


def corpus_texts() -> list[str]:
    texts = []
    for name in DOCUMENTS:
        pages = [p.text for p in pdf_pages((SAMPLE_CORPUS / name).read_bytes())]
        texts += [c.text for c in chunk_pages(pages)]
    texts += [r["text"] for r in load_gold(default_gold_path())]
    return texts


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def rate(tokens: int, chars: int, seconds: float, entities: int | None = None) -> dict:
    out = {"seconds": round(seconds, 3), "tokens_per_s": round(tokens / seconds), "chars_per_s": round(chars / seconds)}
    if entities is not None:
        out["entities"] = entities
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    texts = corpus_texts()
    chars = sum(map(len, texts))
    blank = spacy.blank("cs")
    tokens = sum(len(doc) for doc in blank.pipe(texts))
    result: dict = {"texts": len(texts), "chars": chars, "tokens": tokens, "repeat": args.repeat,
                    "cpus": os.cpu_count(), "python": platform.python_version(), "spacy": spacy.__version__}

    result["blank_cs_tokenizer"] = rate(tokens, chars, timed(lambda: list(blank.pipe(texts)), args.repeat))

    n_regex = sum(len(extract_entities(t)) for t in texts)
    result["regex_extract_entities"] = rate(
        tokens, chars, timed(lambda: [extract_entities(t) for t in texts], args.repeat), n_regex)

    nlp = build_pipeline()
    n_pipe = sum(len(doc.ents) for doc in nlp.pipe(texts, batch_size=64))
    result["mendel_spacy_pipeline"] = rate(
        tokens, chars, timed(lambda: list(nlp.pipe(texts, batch_size=64)), args.repeat), n_pipe)
    result["mendel_spacy_pipeline"]["components"] = nlp.pipe_names

    try:
        core = spacy.load("cs_core_news_sm")
    except (OSError, ImportError) as exc:
        result["cs_core_news_sm"] = {"available": False, "reason": f"not installed in this venv ({type(exc).__name__})"}
    else:
        n_core = sum(len(doc.ents) for doc in core.pipe(texts, batch_size=64))
        entry = rate(tokens, chars, timed(lambda: list(core.pipe(texts, batch_size=64)), args.repeat), n_core)
        entry.update(available=True, version=core.meta.get("version"), components=core.pipe_names)
        ner_only = [p for p in core.pipe_names if p not in ("tok2vec", "ner")]
        with core.select_pipes(disable=ner_only):
            entry["ner_only"] = rate(tokens, chars, timed(lambda: list(core.pipe(texts, batch_size=64)), args.repeat))
            entry["ner_only"]["components"] = core.pipe_names
        result["cs_core_news_sm"] = entry

    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "ner.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
