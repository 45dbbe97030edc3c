"""Helpers for tests that run real RQ workers: a worker class that knows the toy game (the worker
process imports this module through ``python -m worker --worker-class``).

``TOY_FACTS_DELAY`` (seconds) makes every game's statistics facts, and every game's log export (a
bulk export's step), take that long in the worker's process, so a test can kill it in the middle of
a job (the slowness lives here, not in the product).
"""

from __future__ import annotations

import os
import time

from rq import Worker

from replays import export, stats
from tests.api import toy_game

toy_game.register()

_DELAY = float(os.environ.get("TOY_FACTS_DELAY") or 0)
if _DELAY > 0:
    _game_facts = stats.game_facts

    def _slow_game_facts(*args, **kwargs):
        time.sleep(_DELAY)
        return _game_facts(*args, **kwargs)

    stats.game_facts = _slow_game_facts
    _export_log = export.export_log

    def _slow_export_log(*args, **kwargs):
        time.sleep(_DELAY)
        return _export_log(*args, **kwargs)

    export.export_log = _slow_export_log


class ToyWorker(Worker):
    """A plain RQ worker whose process can also replay the toy game."""
