"""Helpers for tests that run real RQ workers: a worker class that knows the toy game (the worker
process imports this module through ``rq worker --worker-class``)."""

from __future__ import annotations

from rq import Worker

from tests.api import toy_game

toy_game.register()


class ToyWorker(Worker):
    """A plain RQ worker whose process can also replay the toy game."""
