"""The game service's clocks: the enforcer's timeouts, a game's public clock, the rescan.

A timeout is a change like a move: the engine's ``timeout`` hook decides it and it goes through
the command path (``service.commands``), which advances the clock and hands a seat to a bot when
the timeout is one too many.
"""

from __future__ import annotations

from typing import Any

from games import get_game
from games.base import seat_hooks
from service import clocks, errors
from service.commands import GameCommands
from service.repository import GameRepository, now_ms


class GameDeadlines:
    def __init__(self, repository: GameRepository, commands: GameCommands):
        self.repository = repository
        self.store = repository.store
        self.commands = commands

    def enforce_clock(self, game_id: str, now: int | None = None) -> list[dict[str, Any]]:
        """Apply the timeout of the first human seat past its deadline (the engine's ``timeout``
        hook), at the version the deadline belongs to. Returns the timeouts applied (0 or 1; a
        further overdue seat is due again at once)."""
        now = now_ms() if now is None else now
        entry = self.repository.reload(game_id)
        cached = entry.cached
        if cached.status != "active" or cached.clock is None:
            self.store.clocks.schedule(game_id, None)
            return []
        late = [s for s in clocks.overdue(cached.clock, now) if cached.seat_kinds.get(s) == "human"]
        if not late:
            self.store.clocks.schedule(game_id, clocks.next_deadline(cached.clock))
            return []
        seat = late[0]
        game = get_game(cached.name)
        seats = seat_hooks(game)
        if seats is None:  # timed games are refused at creation for such engines
            self.store.clocks.schedule(game_id, None)
            return []
        try:
            outcome = self.commands.submit(
                game_id,
                lambda _cached: (seat, ""),
                {"type": "timeout", "seat": seat},
                cached.version,
                None,
                decide=seats.timeout,
                timed_out=True,
            )
        except errors.VersionConflict:
            return []  # the seat (or another) moved meanwhile: the new version has its own deadlines
        return [{"game_id": game_id, "seat": seat, "version": outcome.body["version"]}]

    def clock_of(self, game_id: str) -> dict[str, Any] | None:
        """The public clock of a timed game now (None for an untimed one)."""
        return clocks.public(self.store.clocks.of(game_id), now_ms())

    def rescan_clocks(self, page: int = 500) -> int:
        """Put every active timed game's next deadline into the enforcers' due set (never later than
        one already there): repairs a process that died between an append and its scheduling."""
        scheduled = 0
        cursor = None
        while True:
            ids = self.store.index.ids(status="active", before=cursor, limit=page)
            for game_id, clock in zip(ids, self.store.clocks.of_each(ids), strict=True):
                deadline = clocks.next_deadline(clock)
                if deadline is not None:
                    self.store.clocks.schedule(game_id, deadline, only_earlier=True)
                    scheduled += 1
            if len(ids) < page:
                return scheduled
            cursor = ids[-1]
