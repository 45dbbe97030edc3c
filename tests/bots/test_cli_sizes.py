"""No module of ``cli/`` over 500 lines (issue 29: cli/main.py had grown to 759, parser, play loop and
every command in one file). Counted as tests/test_module_sizes.py counts every package's modules; unlike
there, no module here may be longer with a reason: each area of commands is a module of its own."""

from __future__ import annotations

from tests.test_module_sizes import MODULE_LINES, ROOT, sizes


def test_cli_modules_stay_under_500_lines_issue_29() -> None:
    modules = sorted((ROOT / "cli").glob("*.py"))
    assert any(path.name == "main.py" for path in modules), "cli/ not found where the test looks"
    long = {path.name: lines for path in modules if (lines := sizes(path)[0]) > MODULE_LINES}
    assert not long, f"cli modules over {MODULE_LINES} lines: {long}"
