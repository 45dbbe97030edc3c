"""Comments and strings in product code stand alone: none points at a tracker entry ("issue 29",
"issues #12") that a reader of the repository does not have; the reason is said instead."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.test_import_cycles import PRODUCT_PACKAGES

ROOT = Path(__file__).resolve().parent.parent
ISSUE_NUMBER = re.compile(r"issues? #?\d+", re.IGNORECASE)
TEXT = (".py", ".js", ".lua", ".html", ".css", ".md", ".svg")


def _product_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *PRODUCT_PACKAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if name.endswith(TEXT) and (ROOT / name).is_file()]


def _mentions(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                found.append(f"{path}:{number}: {line.strip()}")
    return found


def test_no_product_file_names_an_issue_number():
    files = _product_files()
    assert any(path.suffix == ".py" for path in files) and any(path.suffix == ".js" for path in files)
    assert _mentions(files) == []


def test_the_scan_finds_an_issue_number_in_a_comment_or_a_string(tmp_path):
    """The pattern the guard scans with catches the forms the tracker's numbers were written in."""
    sample = tmp_path / "sample.py"
    sample.write_text('x = 1  # see issue 29\ny = "Issue #4"\nz = "issues 3 and 4"\nw = "a tissue"\n')
    assert [line.split(": ", 1)[1] for line in _mentions([sample])] == [
        "x = 1  # see issue 29",
        'y = "Issue #4"',
        'z = "issues 3 and 4"',
    ]
