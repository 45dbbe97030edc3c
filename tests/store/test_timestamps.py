"""The API's one timestamp format (store.timestamps): RFC 3339, UTC, milliseconds, ``Z``. ``from_ms``
reuses the text of the last second it formatted (issue 12): the reuse must never carry one second's
text over to another."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from store import timestamps


def reference(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


@pytest.mark.parametrize(
    "sequence",
    [
        [1_764_500_000_000, 1_764_500_000_999, 1_764_500_001_000, 1_764_500_000_500],
        [0, 999, 1000, 59_999, 60_000, 0],
        [1_764_500_000_123] * 3 + [1_764_586_400_123, 1_764_500_000_123],
    ],
)
def test_from_ms_formats_each_moment_whatever_came_before(sequence):
    for ms in sequence:
        assert timestamps.from_ms(ms) == reference(ms)


def test_now_round_trips_through_to_ms():
    stamp = timestamps.now()
    assert timestamps.from_ms(timestamps.to_ms(stamp)) == stamp
