"""The static checks CI runs with the suite: ruff (lint and format), the layer contracts of
pyproject.toml ([tool.importlinter], docs/architecture.md) and mypy ([tool.mypy]).

Each runs as a subprocess of this virtualenv's own tools from the repository root, so a wrong import,
an unformatted file or a type error fails `./run test` like any other test. Warm, the four take
about two seconds together (mypy and import-linter keep caches in the work tree).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

CHECKS = {
    "ruff_lint": ["ruff", "check", "--no-fix", "."],
    "ruff_format": ["ruff", "format", "--check", "."],
    "layer_contracts": ["lint-imports"],
    "mypy": ["mypy"],
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_static_check_passes(name: str) -> None:
    """Runs one check over the whole configured tree; its own report is the failure message."""
    tool, *args = CHECKS[name]
    executable = BIN / tool
    assert executable.exists(), f"{tool} is not installed in {BIN}: it belongs to the dev extras"
    completed = subprocess.run(
        [str(executable), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    report = (completed.stdout + completed.stderr)[-20000:]
    assert completed.returncode == 0, f"{' '.join([tool, *args])} failed:\n{report}"
