"""Optional cross-encoder rerank from a local model directory (no torch, no network).

The directory is a BERT sequence-classification model as exported for Hugging Face transformers:

- ``config.json``: ``hidden_size``, ``num_hidden_layers``, ``num_attention_heads``, ``intermediate_size``,
  ``max_position_embeddings``, ``type_vocab_size``, ``layer_norm_eps``, ``hidden_act`` (gelu), ``num_labels``;
- ``model.safetensors``: the weights under their usual names (``bert.embeddings.word_embeddings.weight``,
  ``bert.encoder.layer.N.attention.self.query.weight``, ..., ``bert.pooler.dense.weight``, ``classifier.weight``);
  F32, F16 or BF16;
- ``vocab.txt`` (WordPiece) and optionally ``tokenizer_config.json`` (``do_lower_case``, ``strip_accents``,
  ``model_max_length``).

Query and passage are encoded as one pair (``[CLS] query [SEP] passage [SEP]``, token types 0 and 1, the longer
side truncated first); the score is the classifier's logit (one label) or the positive-class margin (two). Only
BERT-family WordPiece models load (e.g. the ms-marco MiniLM cross-encoders); an XLM-R/SentencePiece model is
refused with a clear error.

The network is the product library's (:mod:`mendel.encoder.bert`). ``runtime`` (default ``MENDEL_RERANK_RUNTIME``,
else ``numpy``) chooses what runs it: ``numpy`` (exact float32), or ``openvino`` / ``onnxruntime``, which run the
same network as a graph built from the weights (:mod:`mendel.encoder.onnx_graph`), converted once into the encoder
cache under the digest of the weights.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from mendel.encoder import ModelError
from mendel.encoder.bert import BertConfig, classifier_logits, pad_batch, read_bert_directory, token_states
from mendel.encoder.wordpiece import WordPieceTokenizer

MAX_PAIR_TOKENS = 256  # tokens per pair: cross-encoders are trained on short passages; keeps the cost bounded
BATCH_SIZE = 16
RUNTIMES = ("numpy", "openvino", "onnxruntime")
RUNTIME_ENV = "MENDEL_RERANK_RUNTIME"
GRAPH_VERSION = 1  # bump when the graph builder changes what it writes


class CrossEncoderError(ModelError):
    """The model directory cannot be used; the message says why."""


class CrossEncoder:
    """A BERT sequence classifier scoring (query, passage) pairs; load with :meth:`load`."""

    def __init__(
        self,
        config: BertConfig,
        weights: dict[str, np.ndarray],
        tokenizer: WordPieceTokenizer,
        path: Path | None = None,
        max_tokens: int = MAX_PAIR_TOKENS,
        runtime: str | None = None,
    ):
        runtime = runtime or os.environ.get(RUNTIME_ENV, "").strip() or "numpy"
        if runtime not in RUNTIMES:
            raise ValueError(f"unknown runtime {runtime!r}: expected one of {RUNTIMES}")
        self.config = config
        self.weights = weights
        self.tokenizer = tokenizer
        self.path = path
        self.max_tokens = min(max_tokens, config.max_positions)
        self.runtime = runtime
        self._session = self._open_session() if runtime != "numpy" else None

    @classmethod
    def load(cls, path: Path | str, max_tokens: int = MAX_PAIR_TOKENS, runtime: str | None = None) -> "CrossEncoder":
        directory = Path(path)
        try:
            config, weights = read_bert_directory(directory, head=True)
            tokenizer = WordPieceTokenizer.from_vocab_file(directory)
        except ModelError as exc:
            raise CrossEncoderError(str(exc)) from exc
        return cls(config, weights, tokenizer, path=directory, max_tokens=max_tokens, runtime=runtime)

    def _open_session(self):
        from mendel.encoder.onnx_graph import build_bert_graph, save_graph
        from mendel.encoder.runtime import cache_dir, open_session

        digest = hashlib.sha256()
        for name in sorted(self.weights):
            digest.update(name.encode() + b"\0" + np.ascontiguousarray(self.weights[name], np.float32).tobytes())
        path = cache_dir() / f"cross-encoder-{digest.hexdigest()[:16]}-v{GRAPH_VERSION}" / "encoder.onnx"
        if not path.is_file():
            save_graph(build_bert_graph(self.config, self.weights, head="classifier", token_types=True), path)
        return open_session(path, self.runtime, mode="latency", blob_cache=path.parent / "compiled")

    def _logits(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self._session is not None:
            return self._session.run(
                {"input_ids": ids, "attention_mask": mask.astype(np.int64), "token_type_ids": types}
            )
        return classifier_logits(self.weights, token_states(self.config, self.weights, ids, mask, types))

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """One relevance score per passage (higher is more relevant), float32."""
        out = np.zeros(len(passages), dtype=np.float32)
        for start in range(0, len(passages), BATCH_SIZE):
            pairs = [
                self.tokenizer.encode_pair(query, p, self.max_tokens) for p in passages[start : start + BATCH_SIZE]
            ]
            ids, mask, types = pad_batch([i for i, _ in pairs], self.tokenizer.pad, [t for _, t in pairs])
            logits = self._logits(ids, types, mask)
            out[start : start + len(pairs)] = logits[:, 0] if logits.shape[1] == 1 else logits[:, 1] - logits[:, 0]
        return out
