"""The statements of the PostgreSQL serving backend (``serving.ranking.pg_search``), composed once from constant
fragments; values always travel as parameters."""

# A passage is live when it is layer 3 of the current version of an active document that is not a citation
# record: what mendel.index.corpus.load_layer gives the bundle.
LIVE = (
    "JOIN documents d ON d.doc_id = c.doc_id AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE c.layer = 3 AND d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record'"
)
DOCS = " AND (%(docs)s::text[] IS NULL OR c.doc_id = ANY(%(docs)s::text[]))"

# The GIN scan first, fenced off (MATERIALIZED): joined to documents straight away, the planner walks every live
# passage and tests each (300 ms at 10,000 passages, against a few ms).
MATCHING = (
    "WITH m AS MATERIALIZED (SELECT c.chunk_id, c.doc_id, c.seq, c.version_id, c.lexemes FROM chunks c"
    " WHERE c.layer = 3 AND c.lexemes @@ %(any)s::tsquery" + DOCS + ")"
)
LIVE_MATCHES = (
    " FROM m JOIN documents d ON d.doc_id = m.doc_id AND coalesce(d.served_version_id, d.current_version_id) ="
    " m.version_id WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record'"
)
# A term's document frequency among the live passages (cached per searcher).
DOCUMENT_FREQUENCY = MATCHING + " SELECT count(*)" + LIVE_MATCHES
# The BM25 candidates (passages holding any of the selective terms, live or not: the searcher knows the live ones)
# with each query term's frequency in them: the number of its positions in the passage's lexemes. The query's
# terms alone are kept (marked with weight A, every other lexeme D, then filtered) rather than every lexeme
# unnested and joined: 4 ms against 70 ms for 840 candidates. Scored by the searcher (pg_lists.bm25_scores).
TERM_FREQUENCIES = (
    "SELECT c.chunk_id, u.lexeme, cardinality(u.positions) FROM chunks c CROSS JOIN LATERAL"
    " unnest(ts_filter(setweight(setweight(c.lexemes, 'D'), 'A', %(terms)s::text[]), '{a}')) u"
    " WHERE c.layer = 3 AND c.lexemes @@ %(any)s::tsquery" + DOCS
)
BM25_K1, BM25_B = 1.5, 0.75
# A passage's length for BM25: the number of all its tokens (every position of every lexeme).
TOKENS = "(SELECT sum(cardinality(p.positions)) FROM unnest(c.lexemes) p)"
# The statements below are composed once here from the constant fragments above; values travel as parameters.
LIVE_COUNT = "SELECT count(*) FROM chunks c " + LIVE
PASSAGES_BY_DOCUMENT = "SELECT c.doc_id, count(*) FROM chunks c " + LIVE + " GROUP BY c.doc_id"
LIVE_COVERAGE = "SELECT count(*), count(c.lexemes), count(c.embedding) FROM chunks c " + LIVE
LIVE_AMONG = "SELECT c.chunk_id FROM chunks c " + LIVE + " AND c.chunk_id = ANY(%s)"
# A provision's own passages: by the last part of their section heading, else by a heading line in their text.
PROVISION_BY_HEADING = (
    "SELECT c.chunk_id FROM chunks c " + LIVE + DOCS + " AND d.citation = %(act)s"
    " AND lower(btrim(regexp_replace(c.section_path, '^.* > ', ''))) = %(head)s"
    " ORDER BY c.doc_id, c.seq"
)
PROVISION_BY_TEXT = (
    "SELECT c.chunk_id FROM chunks c " + LIVE + DOCS + " AND d.citation = %(act)s"
    " AND c.text ~ %(re)s ORDER BY c.doc_id, c.seq"
)
DECISION_PASSAGES = (
    "SELECT c.chunk_id FROM chunks c " + LIVE + DOCS + " AND c.doc_id = ANY(%(these)s) ORDER BY c.doc_id, c.seq"
)
CITING_PASSAGES = (
    "SELECT DISTINCT c.chunk_id, c.doc_id, c.seq FROM mentions m JOIN chunks c"
    " ON c.chunk_id = m.chunk_id "
    + LIVE
    + DOCS
    + " AND m.entity_id = ANY(%(wanted)s) AND NOT (c.chunk_id = ANY(%(own)s))"
    " ORDER BY c.doc_id, c.seq LIMIT %(k)s"
)
ACT_PASSAGES = "SELECT c.chunk_id, c.doc_id FROM chunks c " + LIVE + " AND c.doc_id = ANY(%s) ORDER BY c.chunk_id"
DOCUMENT_PASSAGES = (
    "SELECT c.chunk_id, c.page_start, c.page_end, c.section_path, c.text FROM chunks c "
    + LIVE
    + " AND c.doc_id = %s ORDER BY c.seq"
)

# Passages linking the activated entities, scored as EntityGraph.ranking: the sum of activation x specificity
# (given per entity) over the entities a passage links, divided by the square root of how many graph entities it
# links. Liveness is checked on the best of them afterwards (a join per linked passage costs seconds when a
# common entity is active).
GRAPH = (
    "WITH active(entity_id, weight) AS (SELECT * FROM unnest(%(ids)s::text[], %(weights)s::float8[])),"
    " linked AS (SELECT m.chunk_id, sum(a.weight) AS score FROM (SELECT DISTINCT chunk_id, entity_id FROM mentions"
    "  WHERE entity_id = ANY(%(ids)s::text[])) m JOIN active a ON a.entity_id = m.entity_id GROUP BY m.chunk_id),"
    " focus AS (SELECT m.chunk_id, count(DISTINCT m.entity_id) AS entities FROM mentions m"
    "  JOIN linked l ON l.chunk_id = m.chunk_id WHERE split_part(m.entity_id, ':', 1) = ANY(%(labels)s::text[])"
    "  GROUP BY m.chunk_id)"
    " SELECT l.chunk_id, l.score / sqrt(greatest(f.entities, 1)) AS score FROM linked l"
    " JOIN focus f ON f.chunk_id = l.chunk_id ORDER BY score DESC, l.chunk_id LIMIT %(k)s OFFSET %(skip)s"
)
GRAPH_FILTERED = GRAPH.replace(
    " JOIN focus f ON f.chunk_id = l.chunk_id",
    " JOIN focus f ON f.chunk_id = l.chunk_id JOIN chunks c ON c.chunk_id = l.chunk_id"
    " WHERE c.doc_id = ANY(%(docs)s::text[])",
)
CHUNK_ROWS = (
    "SELECT c.chunk_id, c.doc_id, c.page_start, c.page_end, c.section_path, c.text, c.seq"
    " FROM chunks c WHERE c.chunk_id = ANY(%s)"
)
# The passages of acts that may hold a statutory definition, in the bundle's row order.
DEFINITION_CANDIDATES = (
    "SELECT c.chunk_id, c.text, d.citation FROM chunks c " + LIVE + " AND d.citation IS NOT NULL"
    " AND (c.text LIKE '%%rozum%%' OR c.text LIKE '%%dále jen%%') ORDER BY c.doc_id, c.seq, c.chunk_id"
)
# Every n-th live passage's text in the bundle's row order (the typed-query lexicon's sample).
EVERY_NTH_TEXT = (
    "SELECT text FROM (SELECT c.text, row_number() OVER (ORDER BY c.doc_id, c.seq, c.chunk_id) - 1 AS i"
    " FROM chunks c " + LIVE + ") t WHERE i %% %s = 0 ORDER BY i"
)
