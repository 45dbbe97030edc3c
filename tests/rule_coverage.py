"""Which rule IDs of a game's specification the tests of its test directory name (in a test's name or
docstring): the rule-coverage tests of each game call these with their specification and ID pattern."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

# The specifications live in shared/, beside the repository (as on developer machines and in CI).
RULES = Path(__file__).parents[2] / "shared" / "rules"


def spec_text(spec: Path) -> str:
    """The specification's text; its absence is a failure, not a skip: CI and every developer
    machine lay out ``shared/`` beside the clone, and a silent skip would drop the coverage check."""
    if not spec.is_file():
        pytest.fail(
            f"the rules specification {spec} is missing: the tests expect the shared/ directory "
            "(shared/rules/*.md) beside the repository's clone, as CI lays it out",
            pytrace=False,
        )
    return spec.read_text(encoding="utf-8")


def ids_named_by_tests(directory: Path, rule_id: re.Pattern[str], skip: str) -> dict[str, list[str]]:
    """Each rule ID that ``rule_id`` finds in a test's name or docstring, with the tests naming it;
    the coverage test ``skip`` (which names no rule of its own) is passed over."""
    found: dict[str, list[str]] = {}
    for path in sorted(directory.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                if node.name == skip:
                    continue
                text = (ast.get_docstring(node) or "") + " " + node.name.upper().replace("_", "-")
                for rule in set(rule_id.findall(text)):
                    found.setdefault(rule, []).append(f"{path.name}::{node.name}")
    return found
