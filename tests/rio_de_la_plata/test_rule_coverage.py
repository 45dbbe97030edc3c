"""Which Rio de la Plata rule IDs are named by a test (name or docstring), as
tests/condottiere/test_rule_coverage.py does for Condottiere. ``RIO-GAP-n`` items are data, not rules,
and need no test (section 20). Every other ID must be named by at least one test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SPEC = HERE.parents[2] / "shared" / "rules" / "rio-de-la-plata.md"
RULE_ID = re.compile(r"\b(RIO-[A-Z]+-\d+)\b")


def spec_text() -> str:
    """The specification's text; its absence is a failure, not a skip: CI and every developer
    machine lay out ``shared/`` beside the clone, and a silent skip would drop the coverage check."""
    if not SPEC.is_file():
        pytest.fail(
            f"the rules specification {SPEC} is missing: the tests expect the shared/ directory "
            "(shared/rules/*.md) beside the repository's clone, as CI lays it out",
            pytrace=False,
        )
    return SPEC.read_text(encoding="utf-8")


def spec_ids() -> set[str]:
    ids = set(re.findall(r"`(RIO-[A-Z]+-\d+)`", spec_text()))
    return {i for i in ids if not i.startswith("RIO-GAP-")}


def ids_named_by_tests() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                if node.name.startswith("test_every_rio_rule_id"):
                    continue
                text = (ast.get_docstring(node) or "") + " " + node.name.upper().replace("_", "-")
                for rule in set(RULE_ID.findall(text)):
                    found.setdefault(rule, []).append(f"{path.name}::{node.name}")
    return found


def missing_ids() -> list[str]:
    return sorted(spec_ids() - set(ids_named_by_tests()))


def test_tests_name_only_rule_ids_the_specification_has():
    ids = spec_ids()
    assert len(ids) >= 200
    unknown = sorted(set(ids_named_by_tests()) - ids - {f"RIO-GAP-{n}" for n in range(1, 19)})
    assert not unknown, f"tests name rule IDs the specification does not have: {unknown}"


def test_every_rio_rule_id_is_tested():
    missing = missing_ids()
    assert not missing, f"{len(missing)} Rio rule IDs without a test: {missing}"
