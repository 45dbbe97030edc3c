"""Which Rio de la Plata rule IDs are named by a test (name or docstring), as
tests/condottiere/test_rule_coverage.py does for Condottiere. ``RIO-GAP-n`` items are data, not rules,
and need no test (section 20). Every other ID must be named by at least one test."""

from __future__ import annotations

import re
from pathlib import Path

from tests import rule_coverage

HERE = Path(__file__).parent
SPEC = rule_coverage.RULES / "rio-de-la-plata.md"
# The engine's own rulings with IDs (undo), defined in the protocol document, not the specification.
PROTOCOL = HERE.parents[1] / "docs" / "rio-de-la-plata-protocol.md"
RULE_ID = re.compile(r"\b(RIO-[A-Z]+-\d+)\b")


def spec_ids() -> set[str]:
    ids = set(re.findall(r"`(RIO-[A-Z]+-\d+)`", rule_coverage.spec_text(SPEC)))
    return {i for i in ids if not i.startswith("RIO-GAP-")}


def protocol_ids() -> set[str]:
    return set(re.findall(r"^- `(RIO-[A-Z]+-\d+)`", PROTOCOL.read_text(encoding="utf-8"), re.MULTILINE))


def ids_named_by_tests() -> dict[str, list[str]]:
    return rule_coverage.ids_named_by_tests(HERE, RULE_ID, skip="test_every_rio_rule_id_is_tested")


def missing_ids() -> list[str]:
    return sorted(spec_ids() - set(ids_named_by_tests()))


def test_tests_name_only_rule_ids_the_specification_has():
    ids = spec_ids()
    assert len(ids) >= 200
    unknown = sorted(
        set(ids_named_by_tests()) - ids - protocol_ids() - {f"RIO-GAP-{n}" for n in range(1, 19)}
    )
    assert not unknown, f"tests name rule IDs the specification does not have: {unknown}"


def test_every_ruling_of_the_protocol_is_tested():
    """The protocol's own rulings (RIO-UNDO-n) are named by tests too, as the specification's are."""
    rulings = protocol_ids()
    assert {f"RIO-UNDO-{n}" for n in range(1, 6)} <= rulings
    missing = sorted(rulings - set(ids_named_by_tests()))
    assert not missing, f"protocol rulings without a test: {missing}"


def test_every_rio_rule_id_is_tested():
    missing = missing_ids()
    assert not missing, f"{len(missing)} Rio rule IDs without a test: {missing}"
