"""No new import circle among the product's modules (issue 29).

The graph is grimp's (the library import-linter is built on), with imports under TYPE_CHECKING and
inside functions counted: each is a dependency a reader must follow. Issue 29 emptied the list of
known circles, so the test now fails on any circle at all; the list stays as the mechanism should
one ever have to be admitted for a while (it fails on a listed circle that is gone, so it only
shrinks and stays true).
"""

from __future__ import annotations

import grimp

PRODUCT_PACKAGES = (
    "games",
    "replays",
    "schemas",
    "store",
    "service",
    "api",
    "worker",
    "web",
    "bots",
    "cli",
    "launcher",
)

# Issue 29: emptied (the last one, games.condottiere <-> render <-> stats, went in stop 39).
KNOWN_CYCLES: set[frozenset[str]] = set()


def import_cycles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    ours = {module for module in graph.modules if module.split(".")[0] in PRODUCT_PACKAGES}
    edges = {
        module: sorted(graph.find_modules_directly_imported_by(module) & ours) for module in sorted(ours)
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(ours):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            for position in range(next_edge, len(edges[node])):
                target = edges[node][position]
                if target not in index:
                    work.append((node, position + 1))
                    work.append((target, 0))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.add(frozenset(component))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return found


def test_import_cycles_finds_a_circle_it_is_given() -> None:
    graph = grimp.ImportGraph()
    for module in ("api.a", "api.b", "api.c", "store.d"):
        graph.add_module(module)
    graph.add_import(importer="api.a", imported="api.b")
    graph.add_import(importer="api.b", imported="api.c")
    graph.add_import(importer="api.c", imported="api.a")
    graph.add_import(importer="api.c", imported="store.d")
    assert import_cycles(graph) == {frozenset({"api.a", "api.b", "api.c"})}


def test_no_import_circle_beyond_the_known_ones_issue_29() -> None:
    graph = grimp.build_graph(*PRODUCT_PACKAGES)
    cycles = import_cycles(graph)
    new = [sorted(cycle) for cycle in cycles - KNOWN_CYCLES]
    gone = [sorted(cycle) for cycle in KNOWN_CYCLES - cycles]
    assert not new, f"new import circles: {new}"
    assert not gone, f"circles no longer there (remove them from KNOWN_CYCLES): {gone}"
