"""No module of the product library imports itself back, however indirectly (type-only imports apart)."""

from __future__ import annotations

import grimp
import networkx


def test_the_library_has_no_import_cycle():
    imports = grimp.build_graph("mendel", exclude_type_checking_imports=True)
    graph = networkx.DiGraph()
    for module in imports.modules:
        for imported in imports.find_modules_directly_imported_by(module):
            graph.add_edge(module, imported)
    cycles = [sorted(c) for c in networkx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == []
