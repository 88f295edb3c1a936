"""The names of a bundle's files and directories, laid out alike in a bundle and in the build directory (the layout
is drawn in docs/architecture.md). Their own module so that the index builders name them without importing the
bundle publisher."""

MANIFEST = "manifest.json"
CURRENT = "CURRENT"
CHUNKS = "chunks.jsonl"
DOCUMENTS = "documents.json"  # the documents' metadata of a bundle published before DOCUMENTS_PART
DOCUMENTS_PART = "documents"  # the documents' metadata in segments (mendel.index.document_segments)
LAYERS_DIR = "layers"
# index parts: one directory each, laid out alike in a bundle and in the build directory
BM25_PART = "bm25"
DENSE_PART = "dense"
GRAPH_PART = "graph"  # L3 only
WORDINGS_PART = "wordings"  # the provisions' own lay wordings as vectors (mendel.index.wording_vectors)
LAYER_PARTS = (BM25_PART, DENSE_PART)  # what every layer has
# files inside a part directory
IDS = "ids.json"
BUILD_INFO = "build_info.json"  # written last: a part without it is what a killed build left
BM25_INDEX = "bm25"  # bm25s' own files
FAISS_INDEX = "dense.faiss"
GRAPH_FILE = "graph.json"
WORDING_VECTORS = "vectors.npy"  # one row per provision of WORDING_KEYS, unit length
WORDING_KEYS = "keys.json"
