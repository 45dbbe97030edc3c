"""The dependencies whose private or undocumented internals the product uses are pinned to the
minor versions we tested, and the installed ones are inside those pins (issue 29, item 2).

The ranges are read from pyproject.toml itself, so this test and the pin cannot disagree: a
minor release outside a range (a fresh `pip install -U`, a lock file gone stale) fails here,
naming the modules to re-test, instead of breaking a move's fast path in production silently.
docs/architecture.md ("Private APIs of dependencies") says what each module uses and why."""

from __future__ import annotations

import ast
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.test_import_cycles import PRODUCT_PACKAGES

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

# distribution -> the ONE product module that leans on its internals (its adapter): every private or
# undocumented use of a dependency lives there, behind small public functions the callers use
# (docs/architecture.md, "Private APIs of dependencies").
ADAPTERS: dict[str, str] = {
    "gunicorn": "api.edge.gunicorn_adapter",
    "redis": "store.redis_adapter",
    "flask-smorest": "api.smorest_adapter",
    "webargs": "api.webargs_adapter",
    "flask-limiter": "api.ratelimit",
    "flask-cors": "api.cors_adapter",
}


def _requirements() -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    requirements = (Requirement(line) for line in project["dependencies"])
    return {canonicalize_name(r.name): r for r in requirements}


@pytest.mark.parametrize("dist", sorted(ADAPTERS))
def test_a_dependency_used_privately_is_pinned_and_installed_within_its_pin(dist: str) -> None:
    modules = ADAPTERS[dist]
    requirement = _requirements().get(canonicalize_name(dist))
    assert requirement is not None, f"{dist} (private API used by {modules}) is not a dependency"
    bounded = any(spec.operator in ("<", "<=", "==", "~=") for spec in requirement.specifier)
    assert bounded, (
        f"pyproject.toml pins {requirement} with no upper bound, while {modules} rely on its "
        "private API: bound it to the tested minor version"
    )
    installed = Version(metadata.version(dist))
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"{dist} {installed} is installed, outside the tested range {requirement.specifier} of "
        f"pyproject.toml: {modules} rely on its private API (docs/architecture.md, 'Private APIs of "
        "dependencies'). Run their tests against this version, then widen the pin, or install a "
        "tested one."
    )


ROOT = PYPROJECT.parent


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def private_uses(source: str, distributions: dict[str, list[str]]) -> set[tuple[str, str]]:
    """(distribution, dotted name) for each private name of an installed distribution that
    ``source`` imports or reads through an imported module: ``from redis._parsers import x``,
    ``import gunicorn._x``, ``from flask_cors.core import _y``, ``redis._parsers.helpers.z``.
    What it cannot see: a private attribute of an object a dependency hands back
    (``req._expected_100_continue``), or a public-looking name a package does not export
    (``flask_cors.core.get_cors_headers``); those are the adapters' own, listed by hand in
    docs/decisions/0004-private-apis-in-one-adapter.md's table."""
    tree = ast.parse(source)
    found: set[tuple[str, str]] = set()
    aliases: dict[str, str] = {}  # local name -> dotted module it stands for

    def third_party(dotted: str) -> str | None:
        top = dotted.split(".")[0]
        dists = distributions.get(top)
        return dists[0] if dists and top not in PRODUCT_PACKAGES else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                dist = third_party(alias.name)
                if dist is None:
                    continue
                aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
                if any(_private(part) for part in alias.name.split(".")):
                    found.add((dist, alias.name))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            dist = third_party(node.module)
            if dist is None:
                continue
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                aliases[alias.asname or alias.name] = dotted
                if any(_private(part) for part in dotted.split(".")):
                    found.add((dist, dotted))
    inner_attributes = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner_attributes:  # whole chains only
            chain, inner = [node.attr], node.value
            while isinstance(inner, ast.Attribute):
                chain.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in aliases:
                dotted = ".".join([aliases[inner.id], *reversed(chain)])
                dist = third_party(dotted)
                if dist and any(_private(part) for part in reversed(chain)):
                    found.add((dist, dotted))
    return found


def _module_path(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


@pytest.mark.parametrize("dist", sorted(ADAPTERS))
def test_a_dependency_used_privately_has_one_adapter_module_whose_docstring_names_its_pin(dist: str) -> None:
    """One adapter per dependency (issue 29): a second module would scatter a copy of the
    library's internals again, so ``ADAPTERS`` takes one module name, and the module says which
    versions it was tested with (the pin)."""
    module = ADAPTERS[dist]
    assert isinstance(module, str) and "," not in module and " " not in module, (
        f"{dist} has more than one adapter module ({module!r}): move its private uses into one"
    )
    path = _module_path(module)
    assert path.is_file(), f"{dist}'s adapter {module} does not exist ({path})"
    others = [other for other, name in ADAPTERS.items() if name == module and other != dist]
    assert not others, f"{module} adapts {dist} and {', '.join(others)}: one module per dependency"
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    requirement = _requirements()[canonicalize_name(dist)]
    missing = [str(spec) for spec in requirement.specifier if str(spec) not in doc]
    assert not missing, f"{module}'s docstring does not name the tested pin {requirement.specifier}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_product_module_but_a_pinned_adapter_uses_a_private_name_of_a_dependency() -> None:
    """Issue 29's "no product module imports a private name of a dependency except the pinned
    adapters": the one module ``ADAPTERS`` names per distribution, which the test above keeps pinned."""
    distributions = {
        top: [canonicalize_name(d) for d in dists] for top, dists in metadata.packages_distributions().items()
    }
    stray = []
    for package in PRODUCT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = _module_name(path)
            for dist, name in sorted(private_uses(path.read_text(), distributions)):
                if module != ADAPTERS.get(dist):
                    stray.append(f"{module}: {name} ({dist})")
    assert not stray, "private names of dependencies outside their pinned adapters:\n" + "\n".join(stray)


def test_the_private_name_finder_sees_imports_and_module_attributes() -> None:
    distributions = {"redis": ["redis"], "flask_cors": ["flask-cors"], "orjson": ["orjson"]}
    source = (
        "import redis\nimport orjson\nfrom flask_cors.core import _private_thing\n"
        "x = redis._parsers.helpers.callbacks\ny = orjson.dumps\nz = self._mine\n"
    )
    assert private_uses(source, distributions) == {
        ("flask-cors", "flask_cors.core._private_thing"),
        ("redis", "redis._parsers.helpers.callbacks"),
    }
