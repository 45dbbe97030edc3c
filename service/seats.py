"""Claiming seats: a claim, and the claim that fills the last seat and starts the game
(its genesis events, snapshot, clock and follow-ups appended atomically with it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bots import levels as bot_levels
from games import get_game
from games.base import COMMITMENT, Game, fold
from service import clocks, errors
from service.cache import CachedGame
from service.changes import meta_fields, snapshot_of
from service.commands import GameCommands
from service.faults import fault_point
from service.followups import FollowUps, actions_for
from service.identity import AlreadySeated
from service.repository import GameRepository, hash_token, json_field, new_token, now_iso, now_ms
from store import ClaimResult


@dataclass(frozen=True)
class ClaimOutcome:
    game_id: str
    seat: int
    name: str
    kind: str
    bot: str | None
    token: str | None  # shown once; None for bot seats (only trusted workers act for them)
    started: bool
    version: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "token": self.token,
            "started": self.started,
            "version": self.version,
        }


class _NothingToLeave(Exception):
    """The seat is no longer a human's in an active game: nothing to hand over."""


class SeatClaims:
    def __init__(self, repository: GameRepository, commands: GameCommands, followups: FollowUps):
        self.repository = repository
        self.store = repository.store
        self.commands = commands
        self.followups = followups

    def claim_seat(
        self,
        game_id: str,
        name: str | None = None,
        seat: int | None = None,
        bot: str | None = None,
        account: str | None = None,
    ) -> ClaimOutcome:
        """Claim ``seat`` (or the lowest free one) for a human ``name`` or a ``bot`` level. The claim
        that fills the last seat starts the game (genesis events appended atomically with it).
        ``account``: the account (id) the seat is bound to (``service.identity``)."""
        meta = self.repository.meta(game_id)
        if bot is not None:
            levels = bot_levels(meta["game"])
            if bot not in levels:
                raise errors.InvalidBot(f"No bot level {bot!r} for {meta['game']}", levels=levels)
        if meta["status"] != "open":
            raise errors.GameFull()
        if seat is not None and not 0 <= seat < int(meta["seat_count"]):
            raise errors.NoSuchSeat(f"Seats of this game are 0..{int(meta['seat_count']) - 1}")
        game = get_game(meta["game"])
        display = name if name is not None else f"{bot} bot"
        return self.claim(
            game_id, game, None, seat=seat, name=display, bot=bot, meta=meta, account=account or ""
        )

    def leave_to_bot(self, game_id: str, seat: int) -> bool:
        """Hand ``seat`` of a started, unfinished game to the random bot for good, as too many
        timeouts would (``seat_handed_to_bot``): the account behind it is being deleted, so the
        others can finish, and the ratings count it as the seat leaving (last place). Returns
        whether it was handed over now (False: not a human seat, not started, or over)."""

        def resolve(cached: CachedGame) -> tuple[int, str]:
            if cached.status != "active" or cached.seat_kinds.get(seat) != "human":
                raise _NothingToLeave()
            return seat, ""

        try:
            self.commands.submit(
                game_id, resolve, {"type": "leave"}, None, None, decide=lambda _state, _seat: [], leaving=True
            )
        except (_NothingToLeave, errors.GameNotStarted, errors.GameNotFound, errors.RuleRefusal):
            return False
        return True

    def claim(
        self,
        game_id: str,
        game: Game[Any],
        config: Mapping[str, Any] | None,
        *,
        seat: int | None,
        name: str,
        bot: str | None,
        meta: Mapping[str, str] | None = None,
        account: str = "",
    ) -> ClaimOutcome:
        """``meta``: the game's metadata as the caller just read it (else read here); ``config``:
        its full configuration (None: read here, when this claim may start the game).

        A claim that leaves other seats free, by ``meta``, is sent without the game's start: the
        genesis events, their snapshot and the start's follow-ups are computed, sent and recorded
        by the last claim only (the first three claims of a four-seat game went from
        0.83-1.4 ms to 0.57-0.63 ms of web CPU each, one round trip fewer). Should other claims
        have come in since ``meta`` was read, the script refuses the short claim untouched and it
        is sent again with the start."""
        token = new_token()  # bots get one too, thrown away: nobody can act for them over HTTP
        claimant: dict[str, Any] = {  # who claims: the same in both claims below
            "seat": seat,
            "name": name,
            "token_hash": hash_token(token),
            "kind": "bot" if bot else "human",
            "bot": bot,
            "account": account,
        }
        # An account's claim tells the account's feed (the 'accounts' follow-up, service.account_followup).
        own: dict[str, Any] = {"accounts": 0} if account else {}
        if meta is not None:
            count = int(meta["seat_count"])
            if sum(1 for s in range(count) if f"kind:{s}" in meta) + 1 < count:
                # The game stays open: the live lobby is told its free seats changed (``lobby``).
                own["lobby"] = now_ms()
                result = self.store.claim(game_id, **claimant, now=now_iso(), followups_on_start=own)
                if result.outcome != "need_start":
                    claimed = self._claimed(game_id, result, seat, name, bot, token)
                    if own:
                        self.followups.run(game_id, own)
                    return claimed
                meta = None  # stale: the clock below needs every seat's kind as it is now
        if config is None:
            config = self.store.full_config(game_id)
            if config is None:  # written with the game's metadata: absent only if the game is gone
                raise errors.GameNotFound()
        genesis = game.start(dict(config))
        state = fold(game, genesis)
        stamp = now_iso()
        meta_on_start = meta_fields(game, state, stamp, started=True)
        if meta is None:
            meta = self.store.meta(game_id) or {}
        committed = json_field(meta.get("commitment"))
        if committed is not None and genesis:
            # The commitment published at creation opens the log (games.base.COMMITMENT).
            genesis[0] = {**genesis[0], COMMITMENT: committed}
        clock = json_field(meta.get("clock"))
        if clock is not None:
            # Only read when this claim fills the last seat: then every other seat's kind is known
            # and this claim takes the given seat or the only free one.
            count = int(meta["seat_count"])
            kinds = {s: meta.get(f"kind:{s}") for s in range(count)}
            mine = seat if seat is not None else next((s for s, k in kinds.items() if k is None), None)
            if mine is not None:  # else no seat is free: the claim script refuses it below
                kinds[mine] = "bot" if bot else "human"
            humans = [s for s, k in kinds.items() if k == "human"]
            meta_on_start["clock"] = clocks.advance(clock, now_ms(), game.awaiting(state), humans)
        start_actions = actions_for(game, state, len(genesis), True, ())
        if not game.is_over(state):
            # Which seats are bots is known only once all are claimed: "bot" is recorded on every
            # start and its handler finds out (done at once when a human is awaited).
            start_actions["bot"] = len(genesis)
        result = self.store.claim(
            game_id,
            **claimant,
            now=stamp,
            genesis=genesis,
            snapshot=snapshot_of(game, len(genesis), state),
            meta_on_start=meta_on_start,
            followups_on_start=start_actions,
        )
        claimed = self._claimed(game_id, result, seat, name, bot, token)
        if claimed.started:
            fault_point("after_start")
            loaded = self.repository.reload(game_id)
            if result.bound:  # the script recorded it with the start's version
                start_actions["accounts"] = result.version
            self.followups.run(game_id, start_actions)
            self.commands.schedule_clock(loaded.cached)
            self.commands.notify(loaded.cached, genesis)
        return claimed

    @staticmethod
    def _claimed(
        game_id: str, result: ClaimResult, seat: int | None, name: str, bot: str | None, token: str
    ) -> ClaimOutcome:
        """The outcome of a claim the script answered (its refusals raised)."""
        if result.outcome == "not_found":
            raise errors.GameNotFound()
        if result.outcome in ("not_open", "full"):
            raise errors.GameFull()
        if result.outcome == "taken":
            raise errors.SeatTaken(f"Seat {seat} is already taken")
        if result.outcome == "no_such_seat":
            raise errors.NoSuchSeat()
        if result.outcome == "already_seated":
            raise AlreadySeated()
        assert result.outcome in ("claimed", "started"), f"unexpected claim outcome {result.outcome}"
        assert result.seat is not None, "the claim script returns the seat with 'claimed' and 'started'"
        return ClaimOutcome(
            game_id=game_id,
            seat=result.seat,
            name=name,
            kind="bot" if bot else "human",
            bot=bot,
            token=None if bot else token,
            started=result.outcome == "started",
            version=result.version,
        )
