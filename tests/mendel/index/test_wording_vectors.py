"""The provisions' own lay wordings as a bundle part (mendel.index.wording_vectors): one unit vector per worded
provision, through the embedding cache, written whole and only when the wordings or the model changed."""

from __future__ import annotations

import json
import os

import numpy as np
import psycopg

from mendel.index import wording_vectors
from mendel.index.layout import BUILD_INFO, WORDING_KEYS, WORDING_VECTORS
from mendel.law.provision_wordings import wordings_by_provision
from tests.support.bundle import EMBEDDER


def test_the_part_holds_every_worded_provision_and_is_rewritten_only_on_change(fresh_db, tmp_path, monkeypatch):
    part = tmp_path / "wordings"
    with psycopg.connect(fresh_db) as conn:
        first = wording_vectors.build_wording_vectors(conn, EMBEDDER, part)
        vectors = np.load(part / WORDING_VECTORS)
        stored = json.loads((part / WORDING_KEYS).read_text(encoding="utf-8"))
        assert first["wordings_written"] and first["wording_provisions"] == len(wordings_by_provision()) > 4000
        assert vectors.shape == (len(stored["keys"]), EMBEDDER.dim) and stored["model"] == EMBEDDER.name
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert ["89/2012 Sb.", "§ 2874"] in stored["keys"]
        inode = os.stat(part / WORDING_VECTORS).st_ino
        again = wording_vectors.build_wording_vectors(conn, EMBEDDER, part)
        assert not again["wordings_written"] and again["wordings_embedded"] == 0
        assert os.stat(part / WORDING_VECTORS).st_ino == inode  # untouched: bundles keep linking it
        keys, texts = wording_vectors.wording_texts()
        monkeypatch.setattr(wording_vectors, "wording_texts", lambda: (keys[:3], ["jiné znění"] * 3))
        changed = wording_vectors.build_wording_vectors(conn, EMBEDDER, part)
        assert changed["wordings_written"] and changed["wording_provisions"] == 3
        assert os.stat(part / WORDING_VECTORS).st_ino != inode  # a new file: a published bundle keeps the old one
        assert (part / BUILD_INFO).exists() and not list(part.glob(".*.tmp"))
