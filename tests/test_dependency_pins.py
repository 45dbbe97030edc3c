"""The dependencies whose private or undocumented internals the product uses are pinned to the
minor versions we tested, and the installed ones are inside those pins (issue 29, item 2).

The ranges are read from pyproject.toml itself, so this test and the pin cannot disagree: a
minor release outside a range (a fresh `pip install -U`, a lock file gone stale) fails here,
naming the modules to re-test, instead of breaking a move's fast path in production silently.
docs/architecture.md ("Private APIs of dependencies") says what each module uses and why."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

# distribution -> the product modules that lean on its internals
ADAPTERS = {
    "gunicorn": ("api.edge.move_worker", "api.edge.view_push", "api.edge.affinity"),
    "redis": ("store.pool", "store.cluster"),
    "flask-smorest": ("api", "api.common"),
    "webargs": ("api.common", "api.games"),
    "flask-limiter": ("api.ratelimit", "api.edge.move_path"),
    "flask-cors": ("api",),
}


def _requirements() -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    requirements = (Requirement(line) for line in project["dependencies"])
    return {canonicalize_name(r.name): r for r in requirements}


@pytest.mark.parametrize("dist", sorted(ADAPTERS))
def test_a_dependency_used_privately_is_pinned_and_installed_within_its_pin(dist: str) -> None:
    modules = ", ".join(ADAPTERS[dist])
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
