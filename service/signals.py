"""Signals other components hook into (blinker, so workers and the API share them in-process).

``events_appended`` is sent after every accepted append (moves and the genesis events written when
the last seat is claimed), once the events are durably in Redis. Sender: the ``GameService`` that
appended (receivers may call back into it). Keyword arguments:

* ``game_id`` (str), ``game`` (engine name), ``version`` (int, the new version),
* ``events`` (list of full, unredacted events just appended), ``state`` (the engine state after them),
* ``finished`` (bool: the game is over), ``awaiting`` (list of seats whose decision is due),
* ``seat_kinds`` (dict seat -> "human"/"bot"), ``bots`` (dict seat -> bot level for bot seats).

Receivers run synchronously in the appending process; an exception in a receiver is logged and
swallowed (the move is already committed and the caller must still get its answer), so receivers
should only enqueue work (RQ jobs), never do it inline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blinker import Namespace

_signals = Namespace()

events_appended = _signals.signal("events-appended")


def connect_receiver(receiver: Callable[..., Any]) -> None:
    """Connect ``receiver`` to ``events_appended`` for the life of the process.

    Idempotent: blinker keeps one connection per receiver, so a receiver connected again (at
    import, by ``create_app``, by a worker) still runs once per append. Held strongly
    (``weak=False``) so it stays connected however it was defined."""
    events_appended.connect(receiver, weak=False)
