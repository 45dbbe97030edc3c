"""Follow-up work of committed changes, carried out at least once (the consumer of the outbox).

The service decides, with each change, which follow-up actions it implies (:func:`actions_for`), and
the append or claim script records them with the events (``store.outbox``). The process that made
the change then runs them at once (:meth:`FollowUps.run`); a sweeper (``worker.janitor``) runs them
for games whose process died before finishing (:meth:`FollowUps.sweep`). Actions:

| action | value | done by | done when |
| --- | --- | --- | --- |
| ``index`` | status | here | the cross-game index lists the game under its current status |
| ``archive`` | version | here | the finished game is in the archive and due for compaction |
| ``facts`` | version | ``service.facts`` (not in web processes) | the game's facts are in the facts store |
| ``verify`` | version | ``service.jobs`` | its verify job is recorded and enqueued |
| ``bot`` | version | ``service.bot_turns`` | no bot seat is awaited any more (the turn was played) |
| ``accounts`` | version | ``service.account_followup`` | every bound account was told (its games, feed) |
| ``lobby`` | ms | here | the live lobby was told an open game's seats changed (claimed, left) |
| ``challenge`` | notices | ``service.challenge_followup`` | every party was told (feed, webhooks) |
| ``rematch`` | 1 | ``service.rematch`` (via ``service.composition``) | the rematch exists |
| ``tournament`` | version, or a step | ``service.tournament.runner`` | its result is in its tournament |
| ``ladder`` | a pairing | ``service.ladder`` (composition root) | every ladder pairing has its game |

(``tournament`` in a tournament's own outbox, ``store.tournaments``: the round's tables are started,
the next round paired or the tournament finished, the entrants told.)

``index``, ``lobby``, ``archive`` and ``accounts`` need only the store (the service's own); ``verify`` and
``bot`` enqueue jobs, ``challenge`` tells a challenge's parties (the receivers, given with the job
service), and ``facts`` is CPU work kept out of the web process. Which handlers a process runs is
given to :class:`FollowUps` when it is built (``service.composition``, the one place services are
built, which also adds ``tournament`` with the receivers: its handler starts games through
``service.bound_start``, which imports this module, so it cannot be imported here; every worker,
the janitor and the clock enforcer run them all; the web process all but ``facts``, which folds a
log, about a second of CPU for a Rio de la Plata game, and would stall every request its worker
serves meanwhile: the janitor writes facts after the grace period). A service built without an
action's handler leaves that action pending for the janitor. No process-wide registry: what a
service does never depends on what else ran in its process.

Its collaborators (the handlers of jobs, bot turns and accounts, the archive's) are imported at the
top: none of them imports this module or ``service.games`` (they type the game service with
``service.ports``), so no import circle runs through the follow-ups.

A handler returns True when its action is done (it is then acknowledged, unless the change wrote a
newer value meanwhile) and False to leave it for a later run. Handlers are idempotent: an action may
run twice (a process dies after the work, before the acknowledgement; a sweeper overlaps a slow
process); such runs are counted (``Outbox.stats``, ``duplicates:<action>``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from games.base import Game
from service.account_followup import GameNow, accounts_followup, tell_bound_accounts
from service.aggregates import enter_archive
from service.bot_turns import bot_followup
from service.cache import CachedGame
from service.challenge_followup import challenge_followup
from service.compaction import Compaction
from service.facts import facts_followup
from service.jobs import JobService
from service.ports import GameAccess, StoreHolder
from service.webhook_events import game_status_changed
from store import parts

log = logging.getLogger(__name__)

Handler = Callable[[GameAccess, str, str], bool]
ORDER = (
    "index",
    "lobby",
    "archive",
    "facts",
    "verify",
    "bot",
    "accounts",
    "challenge",
    "rematch",
    "tournament",
    "ladder",
)


def actions_for(
    game: Game[Any], state: Any, version: int, status_changed: bool, bot_seats: Any
) -> dict[str, Any]:
    """The follow-up actions a change to ``version`` (state ``state``) implies."""
    over = game.is_over(state)
    actions: dict[str, Any] = {}
    if status_changed or over:
        actions["index"] = "finished" if over else "active"
    if over:
        actions["archive"] = version
        actions["facts"] = version
        actions["verify"] = version
    elif any(seat in bot_seats for seat in game.awaiting(state)):
        actions["bot"] = version
    return actions


@dataclass
class RunReport:
    done: int = 0
    left: int = 0
    duplicates: int = 0


class FollowUps:
    def __init__(self, service: GameAccess, handlers: Mapping[str, Handler]):
        """``handlers``: the actions this service carries out (:func:`handlers`); any other stays
        pending for a sweeper whose service has it."""
        self.service = service
        self.outbox = parts.outbox(service.store)
        self.handlers = dict(handlers)

    def run(
        self,
        game_id: str,
        recorded: Mapping[str, Any] | None = None,
        changed: CachedGame | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> RunReport:
        """Carry out the pending actions of ``game_id``; never raises (the change is committed).

        ``recorded``: the actions (and values) the caller's change has just recorded; only those
        are run, without reading the outbox back (anything older in it is a sweeper's). The done
        actions are acknowledged together at the end, in one round trip: a process that dies
        before leaves them all to a sweeper, which runs them again (they are idempotent).
        ``changed`` and ``fields``: the game after that change (a move's) and the metadata fields
        it wrote, which ``accounts`` then tells the accounts without reading the game's metadata
        back (a round trip, and the decoding of the whole hash, on every move of a game with a
        bound seat that told it)."""
        written = GameNow.of_change(changed, fields) if changed is not None and fields is not None else None
        report = RunReport()
        if recorded is not None:
            pending = {action: str(value) for action, value in recorded.items()}
        else:
            try:
                pending = self.outbox.pending(game_id)
            except Exception:  # noqa: BLE001 - left for the sweeper
                log.exception("could not read the outbox of %s", game_id)
                return report
        done: list[tuple[str, str]] = []
        for action in sorted(pending, key=lambda a: ORDER.index(a) if a in ORDER else len(ORDER)):
            value = pending[action]
            handler = self.handlers.get(action)
            if handler is None:
                report.left += 1
                continue
            try:
                if written is not None and handler is tell_accounts:
                    ok = tell_bound_accounts(self.service, game_id, written)
                else:
                    ok = handler(self.service, game_id, value)
                if not ok:
                    report.left += 1
                    continue
            except Exception:  # noqa: BLE001 - the action stays pending: a later run retries it
                log.exception("follow-up %s=%s of %s failed", action, value, game_id)
                report.left += 1
                continue
            done.append((action, value))
        if not done:
            return report
        try:
            removed = self.outbox.ack_all(game_id, done)
        except Exception:  # noqa: BLE001 - still pending: a sweeper runs them again
            log.exception("could not acknowledge the follow-ups of %s", game_id)
            report.left += len(done)
            return report
        report.done += len(done)
        report.duplicates += removed.count(False)
        return report

    def sweep(self, lease_ms: int) -> int:
        """Run the actions of every game whose grace period is over (each game leased for
        ``lease_ms``, so a game with work left comes back after it). Returns how many games."""
        count = 0
        for slot, seen in self.outbox.due_hints():
            for game_id in self.outbox.take_due_in(slot, lease_ms):
                self.run(game_id)
                count += 1
            self.outbox.settle_hint(slot, seen)
        return count


# -- the handlers that need only the store -------------------------------------------------------


def index_game(service: StoreHolder, game_id: str, value: str) -> bool:
    """Index the game under its *current* status (not ``value``: a later change may have written a
    newer one), and again if the status moved while writing."""
    for _ in range(3):
        meta = service.store.meta(game_id)
        if meta is None:
            return True
        service.store.index.add(game_id, meta["game"], meta["status"])
        current = service.store.status_and_version(game_id)
        if current is None or current[0] == meta["status"]:
            _tell_game_webhooks(service, game_id, meta)
            _tell_lobby(service, game_id, meta)
            return True
    return False


def _tell_game_webhooks(service: StoreHolder, game_id: str, meta: dict[str, Any]) -> None:
    # A game's start and end, for its creator's game-wide webhooks (idempotent)
    game_status_changed(parts.webhooks(service.store), game_id, meta)


def lobby_game(service: StoreHolder, game_id: str, value: str) -> bool:
    """The ``lobby`` action of a seat claimed or left while the game stays open: the live lobby
    says the game ``changed`` (its free seats). A game no longer open was told by ``index``."""
    meta = service.store.meta(game_id)
    if meta is not None and meta["status"] == "open":
        _tell_lobby(service, game_id, meta, "changed")
    return True


def _tell_lobby(service: StoreHolder, game_id: str, meta: dict[str, Any], change: str = "added") -> None:
    # The live lobby lists open games that anyone may join (a challenge's game never was one).
    if meta.get("challenge") or meta.get("seek"):
        return
    if meta["status"] == "open":
        count = int(meta["seat_count"])
        data = {
            "id": game_id,
            "game": meta["game"],
            "title": meta.get("title", meta["game"]),
            "seat_count": count,
            "free_seats": [s for s in range(count) if f"kind:{s}" not in meta],
            "created": meta.get("created"),
        }
        parts.lobby(service.store).publish("game", game_id, change, data)
    else:
        parts.lobby(service.store).publish("game", game_id, "gone", None)


@dataclass(frozen=True)
class ArchiveGame:
    """The ``archive`` action: a finished game enters the archive, and its compaction is scheduled."""

    compaction: Compaction

    def __call__(self, service: StoreHolder, game_id: str, value: str) -> bool:
        found = parts.load_log(service.store, game_id)
        if found is None or not found.finished:
            return True
        # Every finished game is compacted a while later (service.compaction), archived or not.
        self.compaction.schedule(game_id, found.meta.get("finished"))
        if (found.result or {}).get("rated") is False:
            return True  # an aborted game is verified, never archived
        enter_archive(parts.archive(service.store), found)  # with its statistics (service.aggregates)
        return True


def tell_accounts(service: StoreHolder, game_id: str, value: str) -> bool:
    return accounts_followup(service, game_id, value)


def handlers(compaction: Compaction, jobs: JobService | None, *, facts: bool = True) -> dict[str, Handler]:
    """The handlers of a game service: the actions that need only the store (``index``,
    ``archive``, ``accounts``), and with ``jobs`` (the receivers) those that enqueue jobs or tell
    other parties (a finished game's ``verify`` job, a ``bot``'s turn, a ``challenge``'s notices)
    and, unless ``facts`` is False (the web process), an archived game's ``facts``."""
    own: dict[str, Handler] = {
        "index": index_game,
        "archive": ArchiveGame(compaction),
        "accounts": tell_accounts,
        "lobby": lobby_game,
    }
    if jobs is None:
        return own
    receivers: dict[str, Handler] = {
        "verify": jobs.verify_followup,
        "bot": bot_followup,
        "challenge": challenge_followup,
    }
    if facts:
        receivers["facts"] = facts_followup
    return {**own, **receivers}
