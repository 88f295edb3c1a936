-- Co-activation of entities in logged queries (query_log), folded nightly by serving.feedback.fold_query_log:
-- a and b are entity ids as the graph names them (LABEL:norm, e.g. 'LAW_REF:262/2006 Sb. § 52'), a < b in
-- code-point order (COLLATE "C", the order Python's sorted() gives); weight sums the queries that named both,
-- decayed by age. The entity graph build (mendel.index.graph) adds the weight to the a-b co-occurrence edge.
CREATE TABLE query_entity_edges (
    a          text COLLATE "C" NOT NULL,
    b          text COLLATE "C" NOT NULL,
    weight     double precision NOT NULL CHECK (weight > 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (a, b),
    CHECK (a < b)
);
