"""Leaving a seat before the start, and the rematch of a finished game.

Leaving: the seat's holder (its seat token, or the account token of the account bound to it) frees
it while the game is open; the seat is claimable again, and the account no longer lists the game.

Rematch: each seat of a finished game accepts (``POST /v1/games/{id}/rematch``); bot seats accept
with the first offer. Each acceptance is issued the token of the person's seat in the rematch (only
its hash is kept, with the offer). The acceptance that completes the set records, in the same
script, the new game's id and the finished game's ``rematch`` follow-up (the outbox), which creates
the game started (:func:`create_rematch`, one script that refuses a game that exists): the same
game, public configuration and time control (a fresh seed; the current rules revision), every seat
moved one place on (seat s plays seat s+1 mod n), the bots keeping their level, each person's seat
under the same name, bound to the same account and holding the token issued at its acceptance. So
nobody's token is rotated, and a process killed at any instant leaves neither an orphaned game nor
two: the janitor runs a follow-up a dead process left. An account may also play its new seat with
its account token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from games import get_game
from games.base import REVISION
from service import errors
from service.bound_tables import Started, begin, create_table_game
from service.cache import CachedGame
from service.faults import fault_point
from service.games import GameService, new_seed, start_meta
from service.identity import PLAY
from service.ids import new_game_id
from service.live import FeedSubscription
from service.ports import GameAccess
from service.repository import hash_token, new_token, now_iso, now_ms
from store import GameStore, parts
from store.seat_changes import news_key


def leave_seat(games: GameService, game_id: str, seat: int, token: str) -> None:
    """Free ``seat`` of an open game for the holder of ``token`` (GameStarted, NotYourSeat,
    InvalidToken otherwise; a refusal changes nothing)."""
    cached = games.repository.reload(game_id).cached
    if cached.status != "open":
        raise errors.GameStarted()
    mine = games.repository.seat_for_token(cached, token, PLAY)
    if mine != seat:
        raise errors.NotYourSeat()
    told = {"lobby": now_ms()}  # the live lobby: the seat is free again
    outcome, account = parts.seat_changes(games.store).leave(
        game_id, seat, cached.seat_hashes[seat], now_iso(), told, games.store.followup_grace_ms
    )
    games.cache.drop(game_id)
    if outcome == "not_found":
        raise errors.GameNotFound()
    if outcome == "not_open":
        raise errors.GameStarted()
    if outcome != "left":
        raise errors.NotYourSeat()
    games.followups.run(game_id, told)
    if account:
        parts.accounts(games.store).forget_game(account, game_id)


def rotated(seat: int, seat_count: int) -> int:
    """The seat a player of ``seat`` takes in the rematch."""
    return (seat + 1) % seat_count


def create_rematch(
    store: GameStore, meta: Mapping[str, str], game_id: str, new_id: str, token_hashes: Mapping[int, str]
) -> Started:
    """Create, unless it exists, the started rematch of the finished game ``meta`` describes
    (``service.bound_tables``): seats rotated, bots at their level, each person's seat under the
    same name and account and holding the token hash issued at its acceptance. A fresh seed."""
    game = get_game(meta["game"])
    count = int(meta["seat_count"])
    raw = {k: v for k, v in orjson.loads(meta.get("config") or "{}").items() if k != REVISION}
    config = game.configure({**raw, "seed": new_seed()})
    rated = meta["rated"] == "true" if meta.get("rated") in ("true", "false") else None
    control = orjson.loads(meta["clock"])["control"] if meta.get("clock") else None
    new_meta = start_meta(
        game, config, new_id, count, rated=rated, clock=control, more={"rematch_of": game_id}
    )
    seats: dict[int, dict[str, Any]] = {}
    hashes: dict[int, str] = {}
    for seat in range(count):
        mine = rotated(seat, count)
        name = meta.get(f"name:{seat}") or f"Seat {seat}"
        if meta.get(f"kind:{seat}") == "bot" and meta.get(f"bot:{seat}"):
            seats[mine] = {"name": name, "level": meta[f"bot:{seat}"]}
            hashes[mine] = hash_token(new_token())  # nobody holds a bot seat's token
        else:
            seats[mine] = {"name": name, "account": meta.get(f"account:{seat}") or None}
            hashes[mine] = token_hashes.get(mine) or hash_token(new_token())
    return create_table_game(store, new_id, config, seats, new_meta, hashes)


def rematch_followup(service: GameAccess, game_id: str, value: str) -> bool:
    """The follow-up ``rematch`` of the finished ``game_id``, recorded by the acceptance that
    completed the set: create the rematch under the id that acceptance recorded, once (the creating
    script refuses a game that exists), then run its own follow-ups and announce it on the finished
    game's streams. Idempotent: a second run finds the game made and only announces it again."""
    changes = parts.seat_changes(service.store)
    meta = service.store.meta(game_id)
    if meta is None:
        return True  # the finished game is gone (its keys past their horizon): nothing to make
    found = changes.rematch(game_id, int(meta["seat_count"]))
    if found.game is None:
        return True
    # A started game written once under an id known beforehand (a second run writes nothing).
    started = create_rematch(service.store, meta, game_id, found.game, found.token_hashes)
    fault_point("after_rematch_game")
    if started.made:
        begin(service, found.game, started.start)
    changes.rematch_made(game_id, found.game)
    return True


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
    return _answer(game_id, count, found.accepted, _made(games, found.game))


def _made(games: GameService, new_id: str | None) -> str | None:
    """``new_id`` once the game exists: a creation a dead process left to the janitor is not
    announced before it is done."""
    return new_id if new_id is not None and games.store.meta(new_id) is not None else None


def _answer(game_id: str, count: int, accepted: tuple[int, ...], made: str | None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "accepted": list(accepted),
        "waiting_for": [s for s in range(count) if s not in accepted],
        "rematch": made,
    }


def offer_rematch(games: GameService, game_id: str, token: str) -> dict[str, Any]:
    """The token's seat offers (or accepts) the rematch of the finished ``game_id``. Every answer
    names this player's ``seat`` in the rematch and the ``token`` issued for it (valid once the
    rematch starts; a second acceptance before then issues another, and the earlier one is dropped).
    Once every seat has accepted, the answer carries the new game's id."""
    meta = games.repository.meta(game_id)
    if meta["status"] != "finished":
        raise errors.GameNotOver()
    cached = games.repository.reload(game_id).cached
    seat = games.repository.seat_for_token(cached, token, PLAY)
    count = int(meta["seat_count"])
    mine = rotated(seat, count)
    issued = new_token()
    store = parts.seat_changes(games.store)
    found = store.accept_rematch(
        game_id,
        seat,
        count,
        _bot_seats(meta, count),
        new_game_id=new_game_id(),
        new_seat=mine,
        token_hash=hash_token(issued),
        grace_ms=games.store.followup_grace_ms,
    )
    answer = _answer(game_id, count, found.accepted, found.game)
    if found.outcome == "accepted":
        return {**answer, "seat": mine, "token": issued}
    if found.outcome == "completed":
        fault_point("after_rematch_accept")
        games.followups.run(game_id, {"rematch": 1})
        return {**answer, "rematch": _made(games, found.game), "seat": mine, "token": issued}
    # Accepted again after the set was complete: the issued token did not count. A new one for the
    # seat, by a rotation (the earlier one stops working), once the game exists.
    assert found.game is not None, "a complete set names its game"
    if games.store.meta(found.game) is None:
        games.followups.run(game_id)  # a creation a dead process left: done here, or by the janitor
        if games.store.meta(found.game) is None:
            raise errors.Busy("The rematch is being created: ask again in a moment")
    return {**answer, "seat": mine, "token": _new_token_for(games, found.game, mine)}


def _new_token_for(games: GameService, game_id: str, seat: int) -> str:
    """A fresh token for ``seat`` of the rematch (its token rotated: the earlier one stops working)."""

    def resolve(cached: CachedGame) -> tuple[int, str]:
        if cached.seat_kinds.get(seat) != "human":
            raise errors.NotYourSeat()
        return seat, cached.seat_hashes[seat]

    token: str = games.commands.rotate(game_id, resolve)["token"]
    return token
