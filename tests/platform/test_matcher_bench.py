"""bench/matcher.py, the figure quick pairing's cost is judged by (a pass over 10,000 seeks must not
grow faster than n log n from 1,000): it reports the pass's CPU time beside the wall clock, and the
growth on both, because on the shared, loaded machine the wall clock's growth overstates the
pass's (longer measurements are preempted more often); and its machine-independent count, the
sweep's window checks per seek, stays flat (one window per step, so the sweep is linear and the
pass is the sort's n log n)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_matcher_bench_reports_cpu_growth_and_a_flat_count_of_window_checks():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "matcher.py"), "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "cpu ms" in out.splitlines()[1]
    for clock in ("cpu", "wall"):
        assert re.search(rf"^{clock} growth 1,000 -> 10,000: x[\d.]+ \(n log n: x13\.33\)", out, re.M), out
    counts = re.search(r"window checks per seek.*?: (.*)$", out, re.M)
    assert counts is not None, out
    per_seek = [float(part.split(": ")[1]) for part in counts.group(1).split(", ")]
    assert len(per_seek) == 4 and all(c <= 1 for c in per_seek)  # at most one window per seek
    assert per_seek[-1] <= per_seek[0]  # flat from 1,000 to 10,000 (it falls as tables fill)
