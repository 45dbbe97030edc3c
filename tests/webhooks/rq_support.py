"""A worker process for the job-notice kill test: RQ's SimpleWorker runs each job in the worker's
own process, so ``FAULT_POINT`` kills the whole worker once (a forking worker would fork a fresh work
horse for every retry, each killed again at the same point), and it knows the toy game."""

from __future__ import annotations

from rq import SimpleWorker

from tests.api import toy_game

toy_game.register()


class ToySimpleWorker(SimpleWorker):
    """A plain in-process RQ worker whose process can also replay the toy game."""
