"""The statements of the PostgreSQL serving backend (``serving.ranking.pg_search``), composed once from constant
fragments; values always travel as parameters."""

# A passage is live when it is layer 3 of the current version of an active document that is not a citation
# record: what mendel.index.corpus.load_layer gives the bundle.
LIVE = (
    "JOIN documents d ON d.doc_id = c.doc_id AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE c.layer = 3 AND d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record'"
)
DOCS = " AND (%(docs)s::text[] IS NULL OR c.doc_id = ANY(%(docs)s::text[]))"
# The same for the chunks of any layer (%(layer)s: 1 documents, 2 sections, 3 passages).
LIVE_IN_LAYER = (
    "JOIN documents d ON d.doc_id = c.doc_id AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE c.layer = %(layer)s AND d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record'"
)

# The document frequencies of the terms in at least %s live passages, read once per searcher (ts_stat over the
# live passages' lexemes): counting a common term's passages costs most (100 ms for one in half of 100,000
# passages), a rare term's little.
COMMON_TERMS = (
    "SELECT word, ndoc FROM ts_stat('SELECT c.lexemes FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id WHERE c.layer = 3"
    " AND d.status = ''active'' AND d.doc_type IS DISTINCT FROM ''citation_record''') WHERE ndoc >= %s"
)
# Terms' postings (chunk_postings, migration 0034), live or not (the searcher knows the live passages by their
# keys): one row a term, its postings packed as 6 bytes each (the passage key, then the frequency, big-endian) so
# that tens of thousands of them arrive as one value (fetched as rows, they cost 5 times more).
POSTINGS = (
    "SELECT term, string_agg(int4send(passage) || int2send(frequency), ''::bytea) FROM chunk_postings"
    " WHERE term = ANY(%(terms)s::text[]) GROUP BY term"
)
# The same for some passages only (by their keys): a common term's postings where the candidates are few.
POSTINGS_OF = (
    "SELECT term, string_agg(int4send(passage) || int2send(frequency), ''::bytea) FROM chunk_postings"
    " WHERE term = ANY(%(terms)s::text[]) AND passage = ANY(%(passages)s::integer[]) GROUP BY term"
)
# The upper layers' postings (layer_postings, migration 0035) alike, the frequency as 4 bytes (a term of a whole act
# can occur more often than a smallint holds).
LAYER_POSTINGS = (
    "SELECT term, string_agg(int4send(passage) || int4send(frequency), ''::bytea) FROM layer_postings"
    " WHERE layer = %(layer)s AND term = ANY(%(terms)s::text[]) GROUP BY term"
)
LAYER_POSTINGS_OF = (
    "SELECT term, string_agg(int4send(passage) || int4send(frequency), ''::bytea) FROM layer_postings"
    " WHERE layer = %(layer)s AND term = ANY(%(terms)s::text[]) AND passage = ANY(%(passages)s::integer[])"
    " GROUP BY term"
)
BM25_K1, BM25_B = 1.5, 0.75
# A passage's length for BM25: the number of all its tokens (every position of every lexeme).
TOKENS = "(SELECT sum(cardinality(p.positions)) FROM unnest(c.lexemes) p)"
# An upper layer's live chunks in the bundle's row order (mendel.index.corpus.load_layer), each with its key in
# layer_postings and its BM25 length (the sum of its term counts); the live chunks without terms or without a vector.
UPPER_POSITIONS = (
    "SELECT c.chunk_id, c.doc_id, c.section_path, c.passage_key, (SELECT sum(n) FROM unnest(c.term_counts) n)"
    " FROM chunks c " + LIVE_IN_LAYER + " ORDER BY c.doc_id, c.seq, c.chunk_id"
)
UPPER_COVERAGE = "SELECT count(*), count(c.term_names), count(c.embedding) FROM chunks c " + LIVE_IN_LAYER
# The document frequencies of an upper layer's terms in at least %(least)s of its live chunks (%(keys)s: their keys),
# read when the layer is first searched: one pass over the layer's postings (joined to the live chunks instead, the
# planner took 10 minutes at 100,000 passages; this takes a second).
UPPER_COMMON_TERMS = (
    "SELECT term, count(*) FROM layer_postings WHERE layer = %(layer)s AND passage = ANY(%(keys)s::integer[])"
    " GROUP BY term HAVING count(*) >= %(least)s"
)
# The statements below are composed once here from the constant fragments above; values travel as parameters.
LIVE_COUNT = "SELECT count(*) FROM chunks c " + LIVE
PASSAGES_BY_DOCUMENT = "SELECT c.doc_id, count(*) FROM chunks c " + LIVE + " GROUP BY c.doc_id"
LIVE_COVERAGE = "SELECT count(*), count(c.lexemes), count(c.embedding) FROM chunks c " + LIVE
# The passages nearest a vector through the HNSW index (hnsw.ef_search and hnsw.iterative_scan are set on the
# connection: SESSION_SEARCH), live or not: the searcher knows the live ones. Joined to documents instead, the
# planner sorts every live passage exactly (250 ms against 3 ms at 10,000).
NEAREST = (
    "SELECT c.chunk_id, 1 - (c.embedding <=> %(q)s::vector) FROM chunks c WHERE c.embedding IS NOT NULL"
    " AND c.layer = 3" + DOCS + " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(k)s"
)
# The same within an upper layer, the layer written out so the planner takes its partial HNSW index (migration 0035).
NEAREST_IN_LAYER = {number: NEAREST.replace("c.layer = 3", f"c.layer = {number}") for number in (1, 2)}
SESSION_SEARCH = "SELECT set_config('hnsw.ef_search', %s, false), set_config('hnsw.iterative_scan', %s, false)"
SEARCH_WIDER = "SELECT set_config('hnsw.ef_search', %s, true)"  # for one transaction
# A provision's own chunks in a layer (%(layer)s): by the last part of their section heading, else by a heading line in their text.
PROVISION_BY_HEADING = (
    "SELECT c.chunk_id FROM chunks c " + LIVE_IN_LAYER + DOCS + " AND d.citation = %(act)s"
    " AND lower(btrim(regexp_replace(c.section_path, '^.* > ', ''))) = %(head)s"
    " ORDER BY c.doc_id, c.seq"
)
PROVISION_BY_TEXT = (
    "SELECT c.chunk_id FROM chunks c " + LIVE_IN_LAYER + DOCS + " AND d.citation = %(act)s"
    " AND c.text ~ %(re)s ORDER BY c.doc_id, c.seq"
)
DECISION_PASSAGES = (
    "SELECT c.chunk_id FROM chunks c "
    + LIVE_IN_LAYER
    + DOCS
    + " AND c.doc_id = ANY(%(these)s) ORDER BY c.doc_id, c.seq"
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

# The graph's nodes, and each passage's links to them (its mentions of entities of the graph's labels): read once
# per searcher, the passages' side of the graph ranked in memory as the bundle's EntityGraph ranks it (scored in
# SQL, a common entity's tens of thousands of linked passages cost a second a query at 100,000 passages).
GRAPH_NODE_IDS = "SELECT entity_id FROM graph_nodes ORDER BY entity_id"
GRAPH_LINKS = (
    "SELECT chunk_id, array_agg(DISTINCT entity_id) FROM mentions"
    " WHERE split_part(entity_id, ':', 1) = ANY(%s::text[]) GROUP BY chunk_id"
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
