"""The provisions' own lay wordings (``mendel/data/provision_wordings.v1.yaml``) as vectors of their own: one per
provision, its wordings joined, embedded as a passage is (through the content-hash cache). A bundle part the lay
list reads (``serving.ranking.wordings_list``): a lay question lands nearer a provision's few everyday phrases
than its whole passage, whose legal text outweighs them in the passage's own vector. Derived text, never a hit's.

The part is written as every index part is: whole files replaced, never changed, ``build_info.json`` last.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import psycopg

from mendel.index.embed import Embedder, embed_with_cache, text_hash
from mendel.index.layout import BUILD_INFO, WORDING_KEYS, WORDING_VECTORS
from mendel.law.provision_wordings import wordings_by_provision


def wording_texts() -> tuple[list[tuple[str, str]], list[str]]:
    """(act citation, provision key) of every worded provision, in a fixed order, and what is embedded of each."""
    table = wordings_by_provision()
    keys = sorted(table)
    return keys, ["; ".join(table[key]) for key in keys]


def _replace(path: Path, write) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    write(temporary)
    os.replace(temporary, path)  # a new file: a bundle that links the old one keeps it


def _save(path: Path, vectors: np.ndarray) -> None:
    with open(path, "wb") as handle:  # np.save given a name would add ".npy" to the temporary one
        np.save(handle, np.asarray(vectors, dtype=np.float32), allow_pickle=False)


def build_wording_vectors(conn: psycopg.Connection, embedder: Embedder, directory: Path) -> dict:
    """Write the part into ``directory`` unless it already holds these wordings by this embedder."""
    keys, texts = wording_texts()
    digest = text_hash(embedder.name + "\n" + "\n".join(f"{c}\t{p}\t{t}" for (c, p), t in zip(keys, texts)))
    directory = Path(directory)
    info_path = directory / BUILD_INFO
    if info_path.exists() and json.loads(info_path.read_text(encoding="utf-8")).get("digest") == digest:
        return {"wording_provisions": len(keys), "wordings_embedded": 0, "wordings_written": False}
    vectors, embedded = embed_with_cache(conn, embedder, texts)
    directory.mkdir(parents=True, exist_ok=True)
    info_path.unlink(missing_ok=True)  # the part is unfinished until its build info is written again
    _replace(directory / WORDING_VECTORS, lambda path: _save(path, vectors))
    keys_json = json.dumps({"model": embedder.name, "keys": [list(key) for key in keys]}, ensure_ascii=False)
    _replace(directory / WORDING_KEYS, lambda path: path.write_text(keys_json, encoding="utf-8"))
    info = {"model": embedder.name, "provisions": len(keys), "digest": digest}
    _replace(info_path, lambda path: path.write_text(json.dumps(info), encoding="utf-8"))
    return {"wording_provisions": len(keys), "wordings_embedded": embedded, "wordings_written": True}
