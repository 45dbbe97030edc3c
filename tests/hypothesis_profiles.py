"""Hypothesis profiles of the suite (registered and chosen in tests/conftest.py).

* ``dev`` (the default): random examples, the example database in ``.hypothesis/``, and on a
  failure the ``@reproduce_failure`` blob printed.
* ``ci`` (chosen when the environment says ``CI=true``): derandomised, so every CI run draws the
  same examples and a CI failure reproduces locally with ``--hypothesis-profile=ci``; no example
  database; the blob printed.
* ``long`` (``./run test --hypothesis-profile=long``): ten times the examples, for a local soak.

Tests that set their own example count (expensive games) pass it through :func:`examples`, which
scales it with the profile, so ``long`` runs more of those too; ``dev`` and ``ci`` run the same
counts, and so take the same time.
"""

from __future__ import annotations

from hypothesis import settings

BASE_EXAMPLES = 100  # Hypothesis's own default: dev and ci
LONG_EXAMPLES = 1000


def register() -> None:
    settings.register_profile("dev", max_examples=BASE_EXAMPLES, print_blob=True)
    settings.register_profile(
        "ci", max_examples=BASE_EXAMPLES, derandomize=True, database=None, print_blob=True
    )
    settings.register_profile("long", max_examples=LONG_EXAMPLES, deadline=None, print_blob=True)


def examples(count: int) -> int:
    """``count`` examples under ``dev`` and ``ci``; proportionally more under ``long`` (the loaded
    profile's example count over the base one). Call it at import time, in ``@settings``: the
    profile is loaded before test modules are collected."""
    return max(1, count * settings.default.max_examples // BASE_EXAMPLES)
