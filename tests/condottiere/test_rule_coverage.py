"""Every rule ID of the specification is named by at least one test (its name or docstring)."""

from __future__ import annotations

import re
from pathlib import Path

from tests import rule_coverage

HERE = Path(__file__).parent
SPEC = rule_coverage.RULES / "condottiere.md"
RULE_ID = re.compile(
    r"\b((?:MAP|CARD|PIECE|SET|BAT|STR|WIN|SPR|DRU|BIS|SCA|HER|COU|SUR|END|RND|VIC|"
    r"OPT-DRAW|OPT-POINTS|OPT-BIG|OPT-CAP|OPT-HID|CL|RL|EX)-\d+)\b"
)


def spec_ids() -> set[str]:
    return set(re.findall(r"`([A-Z]+(?:-[A-Z]+)?-\d+)`", rule_coverage.spec_text(SPEC)))


def ids_named_by_tests() -> dict[str, list[str]]:
    return rule_coverage.ids_named_by_tests(HERE, RULE_ID, skip="test_every_rule_id_is_tested")


def test_every_rule_id_is_tested():
    """Coverage of the rules (issue 2, item 7): every ID of the specification is referenced."""
    ids = spec_ids()
    assert len(ids) >= 90
    found = ids_named_by_tests()
    missing = sorted(ids - set(found))
    assert not missing, f"rule IDs without a test: {missing}"
    unknown = sorted(set(found) - ids)
    assert not unknown, f"tests name rule IDs the specification does not have: {unknown}"
