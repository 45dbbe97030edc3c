"""Leaving a seat before the start, and the rematch of a finished game.

Leaving: the seat's holder (its seat token, or the account token of the account bound to it) frees
it while the game is open; the seat is claimable again, and the account no longer lists the game.

Rematch: each seat of a finished game accepts (``POST /v1/games/{id}/rematch``); bot seats accept
with the first offer. The acceptance that completes the set creates the new game
(:func:`create_rematch`, a function of a finished game's metadata that other ways of making games
can reuse): the same game, public configuration and time control (a fresh seed; the current rules
revision), every seat moved one place on (seat s plays seat s+1 mod n), the bots keeping their
level, each person's seat claimed under the same name and bound to the same account. The store's
script lets exactly one acceptance create it; one that died while creating is taken over by the
next acceptance after ``REMATCH_STALE_MS``. Each person then collects a token for the new seat by
accepting again (that rotates the new seat's token: an earlier one stops working); an account may
also act with its account token.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import orjson

from games.base import REVISION
from service import errors
from service.cache import CachedGame
from service.games import GameService
from service.identity import PLAY
from service.live import FeedSubscription
from service.repository import now_iso
from store import parts
from store.seat_changes import news_key

REMATCH_STALE_MS = 30_000


def leave_seat(games: GameService, game_id: str, seat: int, token: str) -> None:
    """Free ``seat`` of an open game for the holder of ``token`` (GameStarted, NotYourSeat,
    InvalidToken otherwise; a refusal changes nothing)."""
    cached = games.repository.reload(game_id).cached
    if cached.status != "open":
        raise errors.GameStarted()
    mine = games.repository.seat_for_token(cached, token, PLAY)
    if mine != seat:
        raise errors.NotYourSeat()
    outcome, account = parts.seat_changes(games.store).leave(
        game_id, seat, cached.seat_hashes[seat], now_iso()
    )
    games.cache.drop(game_id)
    if outcome == "not_found":
        raise errors.GameNotFound()
    if outcome == "not_open":
        raise errors.GameStarted()
    if outcome != "left":
        raise errors.NotYourSeat()
    if account:
        parts.accounts(games.store).forget_game(account, game_id)


def rotated(seat: int, seat_count: int) -> int:
    """The seat a player of ``seat`` takes in the rematch."""
    return (seat + 1) % seat_count


def create_rematch(games: GameService, meta: Mapping[str, str]) -> tuple[str, dict[int, str]]:
    """A new game like the finished one ``meta`` describes, seats rotated (module docstring).
    Returns its id and each person's new seat -> its token (shown once)."""
    count = int(meta["seat_count"])
    config = {k: v for k, v in orjson.loads(meta.get("config") or "{}").items() if k != REVISION}
    clock = orjson.loads(meta["clock"])["control"] if meta.get("clock") else None
    bots = {
        str(rotated(s, count)): meta[f"bot:{s}"]
        for s in range(count)
        if meta.get(f"kind:{s}") == "bot" and meta.get(f"bot:{s}")
    }
    summary = games.create_game(meta["game"], config, bots=bots, clock=clock)
    new_id = summary["id"]
    tokens: dict[int, str] = {}
    for seat in range(count):
        if str(rotated(seat, count)) in bots:
            continue
        claimed = games.claim_seat(
            new_id,
            name=meta.get(f"name:{seat}") or f"Seat {seat}",
            seat=rotated(seat, count),
            account=meta.get(f"account:{seat}") or None,
        )
        if claimed.token is not None:
            tokens[claimed.seat] = claimed.token
    return new_id, tokens


def _bot_seats(meta: Mapping[str, str], count: int) -> list[int]:
    return [s for s in range(count) if meta.get(f"kind:{s}") == "bot"]


def follow_rematch(games: GameService, game_id: str) -> FeedSubscription:
    """A wake-up at each change of ``game_id``'s rematch offer (an acceptance, the new game), from
    the process's live reader, for the finished game's streams that announce it."""
    store = parts.seat_changes(games.store)
    return games.live.follow_feed(news_key(game_id), lambda: store.news_last_id(game_id))


def rematch_state(games: GameService, game_id: str) -> dict[str, Any]:
    """Who accepted the rematch of ``game_id`` and the new game once it exists (no secret)."""
    meta = games.repository.meta(game_id)
    count = int(meta["seat_count"])
    found = parts.seat_changes(games.store).rematch(game_id, count)
    return _answer(game_id, count, found.accepted, found.game)


def _answer(game_id: str, count: int, accepted: tuple[int, ...], made: str | None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "accepted": list(accepted),
        "waiting_for": [s for s in range(count) if s not in accepted],
        "rematch": made,
    }


def offer_rematch(games: GameService, game_id: str, token: str) -> dict[str, Any]:
    """The token's seat offers (or accepts) the rematch of the finished ``game_id``. Once every seat
    has, the answer carries the new game's id and this player's new ``seat`` and ``token``."""
    meta = games.repository.meta(game_id)
    if meta["status"] != "finished":
        raise errors.GameNotOver()
    cached = games.repository.reload(game_id).cached
    seat = games.repository.seat_for_token(cached, token, PLAY)
    count = int(meta["seat_count"])
    store = parts.seat_changes(games.store)
    found = store.accept_rematch(
        game_id, seat, count, _bot_seats(meta, count), int(time.time() * 1000), REMATCH_STALE_MS
    )
    answer = _answer(game_id, count, found.accepted, found.game)
    if found.outcome == "accepted":
        return answer
    mine = rotated(seat, count)
    if found.outcome == "create":
        new_id, tokens = create_rematch(games, meta)
        store.rematch_made(game_id, new_id)
        return {**answer, "rematch": new_id, "seat": mine, "token": tokens.get(mine)}
    assert found.game is not None, "a created rematch names its game"
    return {**answer, "seat": mine, "token": _new_token_for(games, found.game, mine)}


def _new_token_for(games: GameService, game_id: str, seat: int) -> str:
    """A fresh token for ``seat`` of the rematch (its token rotated: the earlier one stops working)."""

    def resolve(cached: CachedGame) -> tuple[int, str]:
        if cached.seat_kinds.get(seat) != "human":
            raise errors.NotYourSeat()
        return seat, cached.seat_hashes[seat]

    token: str = games.commands.rotate(game_id, resolve)["token"]
    return token
