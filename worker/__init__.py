"""RQ job functions (``worker.jobs``), enqueueing (``worker.enqueue``) and bot turns
(``worker.bots``). Importing the package connects the game-finished receiver, so every process
that appends moves (web or worker) archives the games it finishes."""

from worker.enqueue import connect_signals

connect_signals()
