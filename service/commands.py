"""The game service's command path: decide -> append -> follow-ups.

Every change a seat (or its clock) makes goes through :meth:`GameCommands.submit`: moves, resigning
and aborting (the engine's seat hooks), a timeout (``service.deadlines``), and a token rotation
(:meth:`GameCommands.rotate`, a server event appended by the rotation script). Decided on the
cached game, appended atomically with its follow-up actions (the outbox), decided again on the
newer game when the append meets a conflict, then delivered to this process's streams, the
follow-ups run and the clock scheduled.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from games import get_game
from games.base import SEAT_TOKEN_ROTATED, Game, GameError, decide_hooks, fold, seat_hooks
from service import clocks, errors
from service.cache import CachedGame
from service.changes import MoveOutcome, meta_fields, next_clock, refuse_handed_over, snapshot_of, turn_moved
from service.faults import fault_point
from service.followups import FollowUps, actions_for
from service.identity import PLAY
from service.live import LiveHub
from service.queries import GameView
from service.repository import Entry, GameRepository, hash_token, new_token, now_iso
from service.signals import events_appended
from store import SNAPSHOT_INTERVAL

log = logging.getLogger(__name__)

MAX_DECIDE_ATTEMPTS = 8


Answer = TypeVar("Answer")


@dataclass(frozen=True, slots=True)
class DecideAgain:
    """An attempt's other result: it decided on a stale copy or lost the race to append, so the
    change is decided again on ``entry`` (the newer copy)."""

    entry: Entry


@dataclass(frozen=True, slots=True)
class MoveInFlight:
    """A move being decided and appended: what stays the same over its attempts (who, what, and
    how it is decided)."""

    seat: int
    token_hash: str
    command: Mapping[str, Any]
    expected: int | None
    idem_field: str
    fingerprint: str
    game: Game[Any]
    decide: Callable[[Any, int], list[dict[str, Any]]] | None
    decide_and_evolve: Any
    whole_answer: bool
    timed_out: bool
    leaving: bool  # the seat is handed to the bot by this change (its account deleted)


_EVOLVERS: dict[str, tuple[Game[Any], Callable[..., Any] | None]] = {}  # name -> (game, its hook)


def decide_and_evolve_of(game: Game[Any]) -> Callable[..., Any] | None:
    if (found := _EVOLVERS.get(game.name)) is None or found[0] is not game:  # once per game object
        hooks = decide_hooks(game)
        found = _EVOLVERS[game.name] = (game, None if hooks is None else hooks.decide_and_evolve)
    return found[1]


class GameCommands:
    def __init__(
        self,
        repository: GameRepository,
        live: LiveHub,
        followups: FollowUps,
        remember_view: Callable[[tuple[str, int, Any], bytes], bytes],
        sender: object,
    ):
        self.repository = repository
        self.store = repository.store
        self.cache = repository.cache
        self.live = live
        self.followups = followups
        # The per-process encoded views (``GameQueries.remember_view``): a move's answer encodes
        # the seat's view once, and that seat's view stream sends the same bytes.
        self.remember_view = remember_view
        # ``events_appended``'s sender: the game service (receivers may call back into it).
        self.sender = sender

    def _started(self, game_id: str, resolve: Callable[[CachedGame], tuple[int, str]]) -> Entry:
        """The game a change is decided on; GameNotStarted while seats are free (once the token
        is checked on a fresh read: tokens of an open game are not cached)."""
        entry = self.repository.entry(game_id)
        if entry.cached.status == "open":
            resolve_open = self.repository.reload(game_id)  # tokens of an open game are not cached
            resolve(resolve_open.cached)
            raise errors.GameNotStarted()
        return entry

    def _retrying(self, entry: Entry, attempt: Callable[[Entry], Answer | DecideAgain]) -> Answer:
        """The command path's one retry loop (moves, resigning, aborting, timeouts, rotations):
        ``attempt`` decides and appends on ``entry``'s game and returns its answer, or
        :class:`DecideAgain` on a newer copy; after MAX_DECIDE_ATTEMPTS of those the change is
        refused (Busy: 503)."""
        for _ in range(MAX_DECIDE_ATTEMPTS):
            outcome = attempt(entry)
            if not isinstance(outcome, DecideAgain):
                return outcome
            entry = outcome.entry
        raise errors.Busy()

    def submit_command(
        self,
        game_id: str,
        token: str | None,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
        account: str | None = None,
    ) -> MoveOutcome:
        """Decide ``command`` for the seat of ``token`` and append its events atomically.

        With ``expected_version`` the move applies only at that version (else VersionConflict with
        the current one); without it, a stale cache is refreshed from the script's answer and the
        command re-decided. A retried ``idempotency_key`` returns the first answer unchanged.
        ``minimal``: the caller follows its view stream and wants only the new version, so the
        answer's events and view are not computed (unless a key needs the whole answer stored).
        ``account``: the id of the account whose ``token`` (holding ``play``) the caller checked
        in this very request (``GameQueries.cached_player``): the seat is then found from it on
        each attempt's copy without reading the token's entry again."""
        resolve = self._resolve_token(token, account)
        return self.submit(game_id, resolve, command, expected_version, idempotency_key, minimal=minimal)

    def _resolve_token(
        self, token: str | None, account: str | None = None
    ) -> Callable[[CachedGame], tuple[int, str]]:
        def resolve(cached: CachedGame) -> tuple[int, str]:
            if token is None:
                raise errors.InvalidToken()
            if account is not None:
                seat = self.repository.seat_of_account(cached, account)
            else:
                seat = self.repository.seat_for_token(cached, token, PLAY)
            return seat, cached.seat_hashes[seat]

        return resolve

    def resign(self, game_id: str, token: str | None) -> MoveOutcome:
        """The token's seat leaves the game for good; the engine's ``resign`` hook says what
        follows (``games.base.SeatHooks``)."""
        return self._seat_action(game_id, token, "resign")

    def abort(self, game_id: str, token: str | None) -> MoveOutcome:
        """End the game with no result while the engine allows it (``SeatHooks.abort``)."""
        return self._seat_action(game_id, token, "abort")

    def _seat_action(self, game_id: str, token: str | None, name: str) -> MoveOutcome:
        game = get_game(self.repository.name_of(game_id))
        seats = seat_hooks(game)
        if seats is None:
            raise errors.NotSupported(f"{game.title} games cannot {name}.")
        action = seats.resign if name == "resign" else seats.abort
        return self.submit(
            game_id,
            self._resolve_token(token),
            {"type": name},
            None,
            None,
            decide=lambda s, seat: action(s, seat),
        )

    def rotate_token(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Give the token's seat a new token; the old one stops working at once (one atomic script
        swaps the hash and records ``seat_token_rotated`` in the log)."""
        return self.rotate(game_id, self._resolve_token(token))

    def rotate(self, game_id: str, resolve: Callable[[CachedGame], tuple[int, str]]) -> dict[str, Any]:
        entry = self._started(game_id, resolve)
        return self._retrying(entry, lambda current: self._rotate_on(game_id, current, resolve))

    def _rotate_on(
        self, game_id: str, entry: Entry, resolve: Callable[[CachedGame], tuple[int, str]]
    ) -> dict[str, Any] | DecideAgain:
        """One attempt of a rotation (``seat_token_rotated``, appended by the rotation script, which
        swaps the seat's hash): its answer, or the game to decide on again. The token is checked
        on each attempt's copy: a rotation elsewhere may have replaced it."""
        cached = entry.cached
        try:
            seat, token_hash = resolve(cached)
        except errors.InvalidToken:
            if entry.fresh:
                raise
            return DecideAgain(self.repository.reload(game_id))
        if cached.status != "active":
            raise errors.RuleRefusal(GameError("GAME_OVER", "The game is over."))
        game = get_game(cached.name)
        event = {"type": SEAT_TOKEN_ROTATED, "v": 1, "seat": seat}
        state = game.evolve(cached.state, event)
        version = cached.version + 1
        fresh_token = new_token()
        result = self.store.rotate_token(
            game_id,
            seat=seat,
            token_hash=token_hash,
            new_token_hash=hash_token(fresh_token),
            expected_version=cached.version,
            events=[event],
            snapshot=snapshot_of(game, version, state),
            meta=meta_fields(game, state, now_iso()),
        )
        if result.outcome == "ok":
            hashes = {**cached.seat_hashes, seat: hash_token(fresh_token)}
            new = CachedGame(
                game_id=game_id,
                name=cached.name,
                version=version,
                status=cached.status,
                state=state,
                seat_hashes=hashes,
                seat_kinds=cached.seat_kinds,
                bots=cached.bots,
                clock=cached.clock,
                prearranged=cached.prearranged,
                seat_accounts=cached.seat_accounts,
                tournament=cached.tournament,
            )
            self.cache.put(new)
            self.live.deliver_local(game_id, cached.version, [event])  # its streams end now
            self.notify(new, [event])
            return {"game_id": game_id, "seat": seat, "token": fresh_token, "version": version}
        if result.outcome == "bad_token":
            self.cache.drop(game_id)
            raise errors.InvalidToken()
        return DecideAgain(self.repository.reload(game_id))  # conflict or finished meanwhile

    def submit_as_seat(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> MoveOutcome:
        """For trusted in-process callers (bot workers): act for a *bot* seat without its token."""

        def resolve(cached: CachedGame) -> tuple[int, str]:
            if cached.seat_kinds.get(seat) != "bot":
                raise errors.NotABotSeat()
            return seat, ""

        return self.submit(game_id, resolve, command, expected_version, idempotency_key)

    def submit(
        self,
        game_id: str,
        resolve: Callable[[CachedGame], tuple[int, str]],
        command: Mapping[str, Any],
        expected: int | None,
        idempotency_key: str | None,
        decide: Callable[[Any, int], list[dict[str, Any]]] | None = None,
        timed_out: bool = False,
        minimal: bool = False,
        leaving: bool = False,
    ) -> MoveOutcome:
        """The command path of a seat's change (a move, resign, abort, a timeout): ``resolve``
        names the seat and the token hash the append checks; ``decide`` (else the engine's) the
        events. Decided on the cached game, appended with its follow-up actions, retried on a
        newer copy after a lost race (:meth:`_retrying`)."""
        entry = self._started(game_id, resolve)
        try:
            try:
                seat, token_hash = resolve(entry.cached)
            except errors.InvalidToken:
                if entry.fresh:
                    raise
                # The token may be newer than this process's copy (rotated elsewhere): read again.
                entry = self.repository.reload(game_id)
                seat, token_hash = resolve(entry.cached)
        except errors.SeatTokensExpired:
            # A move for a game that ended long ago: what it would have been told with its token
            if idempotency_key:
                raise errors.RetryAfterFinish(entry.cached.version) from None
            raise errors.RuleRefusal(GameError("GAME_OVER", "The game is over.")) from None
        idem_field = f"{seat}:{idempotency_key}" if idempotency_key else ""
        # Only a key's retry is ever compared with the first request: without a key, nothing to hash.
        fingerprint = (
            hashlib.sha256(
                orjson.dumps({"command": command, "expected_version": expected}, option=orjson.OPT_SORT_KEYS)
            ).hexdigest()
            if idem_field
            else ""
        )
        game = get_game(entry.cached.name)
        # The engine's decide evolves its events anyway: take the state it reached (games.base.DecideHooks).
        decide_and_evolve = decide_and_evolve_of(game) if decide is None else None
        whole_answer = not minimal or bool(idem_field)
        move = MoveInFlight(
            seat=seat,
            token_hash=token_hash,
            command=command,
            expected=expected,
            idem_field=idem_field,
            fingerprint=fingerprint,
            game=game,
            decide=decide,
            decide_and_evolve=decide_and_evolve,
            whole_answer=whole_answer,
            timed_out=timed_out,
            leaving=leaving,
        )
        return self._retrying(entry, lambda current: self._move_on(game_id, current, move))

    def _move_on(self, game_id: str, entry: Entry, move: MoveInFlight) -> MoveOutcome | DecideAgain:
        """One attempt of a move: decided on ``entry``'s game and appended. Returns its answer, or
        :class:`DecideAgain` (a refusal or version decided on a stale copy, a lost race)."""
        seat, token_hash, command, expected = move.seat, move.token_hash, move.command, move.expected
        idem_field, fingerprint, game = move.idem_field, move.fingerprint, move.game
        decide, decide_and_evolve = move.decide, move.decide_and_evolve
        cached = entry.cached
        if expected is not None and expected != cached.version:
            if not entry.fresh:
                return DecideAgain(self.repository.reload(game_id))
            replayed = self._replay(game_id, idem_field, fingerprint)
            if replayed:
                return replayed
            if idem_field and cached.status == "finished":
                raise errors.RetryAfterFinish(cached.version)
            raise errors.VersionConflict(cached.version)
        try:
            refuse_handed_over(cached, seat, token_hash)
            if decide_and_evolve is not None:
                events, state = decide_and_evolve(cached.state, seat, dict(command))
            elif decide is not None:
                events = decide(cached.state, seat)
                state = fold(game, events, cached.state)
            else:
                events = game.decide(cached.state, seat, dict(command))
                state = fold(game, events, cached.state)
        except GameError as err:
            # A refusal decided on a cached state may be stale: only a fresh one is final.
            if not entry.fresh:
                return DecideAgain(self.repository.reload(game_id))
            replayed = self._replay(game_id, idem_field, fingerprint)
            if replayed:
                return replayed
            if idem_field and cached.status == "finished":
                raise errors.RetryAfterFinish(cached.version) from None
            raise errors.RuleRefusal(err) from None
        kinds, bots, clock = cached.seat_kinds, cached.bots, None  # an untimed move asks nothing more
        if cached.clock is not None or move.leaving:
            kinds, bots, clock, handover = next_clock(game, cached, state, seat, move.timed_out, move.leaving)
            if handover is not None:
                events = [*events, handover]
                state = game.evolve(state, handover)
        version = cached.version + len(events)
        stamp = now_iso()
        meta = meta_fields(game, state, stamp)
        if clock is not None:
            meta["clock"] = clock
        if kinds is not cached.seat_kinds:
            meta[f"kind:{seat}"], meta[f"bot:{seat}"] = "bot", bots[seat]
        new = CachedGame(
            game_id=game_id,
            name=cached.name,
            version=version,
            status=meta["status"],
            state=state,
            seat_hashes=cached.seat_hashes,
            seat_kinds=kinds,
            bots=bots,
            clock=clock,
            prearranged=cached.prearranged,
            seat_accounts=cached.seat_accounts,
            tournament=cached.tournament,
        )
        body: dict[str, Any] = {"game_id": game_id, "version": version}
        if move.whole_answer:
            body["events"] = [
                {"version": cached.version + i + 1, "event": game.redact(event, seat)}
                for i, event in enumerate(events)
            ]
            body["view"] = GameView(
                game, game_id, version, new.status, seat, state, clock, new.prearranged
            ).to_dict()
        followups = actions_for(game, state, version, new.status != cached.status, bots)
        if cached.seat_accounts and (new.status != cached.status or turn_moved(cached, game, meta)):
            followups["accounts"] = version  # an account's turn or game's end: its feed says so
        if cached.tournament and new.status == "finished" and cached.status != "finished":
            followups["tournament"] = version  # the table's result (service.tournament.runner)
        # Rewritten at every change of status and when the change crosses a multiple of the
        # interval; in between, the stored snapshot stays behind and a load folds the events
        # after it (store.scripts.SNAPSHOT_INTERVAL).
        snapshot_due = (
            new.status != cached.status or version // SNAPSHOT_INTERVAL != cached.version // SNAPSHOT_INTERVAL
        )
        result = self.store.append(
            game_id,
            expected_version=cached.version,
            events=events,
            snapshot=snapshot_of(game, version, state) if snapshot_due else None,
            meta=meta,
            seat=seat if token_hash else None,
            token_hash=token_hash,
            idempotency_field=idem_field,
            fingerprint=fingerprint,
            response={"status": 200, "body": body} if idem_field else None,
            followups=followups,
        )
        if result.outcome == "ok":
            self.cache.put(new)
            fault_point("after_commit")
            self.live.deliver_local(game_id, cached.version, events)
            if followups:  # with what was written: the accounts are told it, not read it back
                self.followups.run(game_id, followups, new, meta)
            self.schedule_clock(new)
            self.notify(new, events)
            view_json = None
            if "view" in body and clock is None:
                # The seat's own view stream sends these very bytes (a timed view's clock is
                # computed at each send: nothing to share).
                view_json = self.remember_view((game_id, version, seat), orjson.dumps(body["view"]))
            return MoveOutcome(200, body, seat=seat, view_json=view_json)
        if result.outcome == "replay":
            stored = result.response
            assert stored is not None, "the append script returns the stored response with 'replay'"
            return MoveOutcome(stored["status"], stored["body"], replayed=True, seat=seat)
        if result.outcome == "idem_mismatch":
            raise errors.IdempotencyKeyReused()
        if result.outcome == "bad_token":
            self.cache.drop(game_id)
            raise errors.InvalidToken()
        if result.outcome == "not_found":
            self.cache.drop(game_id)
            raise errors.GameNotFound()
        if result.outcome == "conflict" and expected is not None:
            raise errors.VersionConflict(result.version)
        if result.outcome == "conflict" and result.snapshot is not None and cached.clock is None:
            current = self.repository.from_snapshot(cached, game, result.snapshot, result.tail)
            if current.version == result.version:
                self.cache.put(current)
                return DecideAgain(Entry(current, fresh=True))
        # not_active (finished meanwhile), a conflict whose snapshot and events do not reach the
        # current version, or a timed game (its clock is in the metadata, not in the snapshot):
        # read everything again.
        return DecideAgain(self.repository.reload(game_id))

    # -- clocks -----------------------------------------------------------------------------------
    def schedule_clock(self, cached: CachedGame) -> None:
        """Tell the enforcers when this game's next deadline falls (after the append that set it: a
        crash in between is repaired by :meth:`rescan_clocks`)."""
        if cached.clock is None:
            return
        deadline = clocks.next_deadline(cached.clock) if cached.status == "active" else None
        self.store.clocks.schedule(cached.game_id, deadline)

    def _replay(self, game_id: str, idem_field: str, fingerprint: str) -> MoveOutcome | None:
        if not idem_field:
            return None
        seat = int(idem_field.partition(":")[0])
        stored = self.store.get_idempotent(game_id, idem_field)
        if stored is None:
            return None
        if stored[0] != fingerprint:
            raise errors.IdempotencyKeyReused()
        return MoveOutcome(stored[1]["status"], stored[1]["body"], replayed=True, seat=seat)

    def notify(self, cached: CachedGame, events: list[dict[str, Any]]) -> None:
        game = get_game(cached.name)
        try:
            events_appended.send(
                self.sender,
                game_id=cached.game_id,
                game=cached.name,
                version=cached.version,
                events=events,
                state=cached.state,
                finished=cached.status == "finished",
                awaiting=game.awaiting(cached.state),
                seat_kinds=dict(cached.seat_kinds),
                bots=dict(cached.bots),
            )
        except Exception:  # noqa: BLE001 - the append is committed; a receiver must not undo the answer
            log.exception("events_appended receiver failed for game %s v%s", cached.game_id, cached.version)
