"""The browser code (web/static/*.js, games/*/web/*.js) passes its linter with zero warnings: Biome,
pinned in package.json and package-lock.json at the repository's root (./run's ensure_client_tools
installs it with npm ci), configured by biome.jsonc."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIOME = ROOT / "node_modules" / ".bin" / "biome"


def test_the_linter_is_pinned_to_one_version():
    wanted = json.loads((ROOT / "package.json").read_text())["devDependencies"]["@biomejs/biome"]
    assert wanted[0].isdigit(), f"an exact version, not a range: {wanted}"
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/@biomejs/biome"]
    assert locked["version"] == wanted


def test_the_browser_code_has_no_lint_warning():
    if not BIOME.exists():
        pytest.fail("Biome is not installed: ./run test installs it (npm ci at the repository's root)")
    result = subprocess.run(
        [str(BIOME), "lint", "--error-on-warnings", "--max-diagnostics=50"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    checked = int(next(line for line in report.splitlines() if line.startswith("Checked")).split()[1])
    assert checked >= 20, f"the linter saw too few files: {report}"
