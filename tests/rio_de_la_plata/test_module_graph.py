"""Rio de la Plata's engine modules import one another as a DAG (issue 29, item 3): no circle, and
no import inside a function, where a circle would hide from a reader (and from an import contract
that only sees the module's top). The layer contract "Rio's rules are layered" in pyproject.toml
fixes the order of the rules' own modules; this test covers every module of the package, those of
its battle/ subpackage included."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

import games.rio_de_la_plata

PACKAGE = "games.rio_de_la_plata"
PACKAGE_DIR = Path(games.rio_de_la_plata.__file__).parent


def _imports_within_package() -> dict[str, set[str]]:
    graph = grimp.build_graph("games", cache_dir=None)
    modules = {m for m in graph.modules if m.startswith(PACKAGE + ".")}
    return {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}


def _a_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle (its modules in order), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        path.append(module)
        for imported in sorted(edges.get(module, ())):
            cycle = visit(imported)
            if cycle is not None:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(edges):
        cycle = visit(module)
        if cycle is not None:
            return cycle
    return None


def test_rio_modules_import_one_another_without_a_circle() -> None:
    edges = _imports_within_package()
    assert any(edges.values()), "no import found among Rio's modules: the graph was not built"
    cycle = _a_cycle(edges)
    assert cycle is None, "an import circle among Rio's modules: " + " -> ".join(cycle or ())


def test_rio_modules_import_only_at_their_top() -> None:
    nested = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        top = set(map(id, tree.body))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                nested.append(f"{path.relative_to(PACKAGE_DIR)}:{node.lineno}")
    assert not nested, f"imports inside functions or blocks (a circle dodged?): {', '.join(nested)}"
