"""Graphs beyond the entity co-occurrence graph: the hand-kept domain graph (``domain.py``: areas of law,
institutions and acts, with a question router) and the export of both graphs to a Bolt server speaking
Neo4j 5 Cypher (``neo4j_export.py``)."""
