"""Quick pairing: seeks, and the matcher that forms tables from them (``service.matching``).

An account asks for a game (``POST /v1/seeks``: game, configuration, clock, rated, a rating range,
whether bot accounts may join); its seek waits in its pool (``store.seeks``) while its owner has a
``/v1/me/stream`` open or keeps it alive (``POST /v1/seeks/{id}/keep``, within
:data:`KEEPALIVE_SECONDS`), as Lichess's seeks live while their owner's connection does. The
matcher (:meth:`SeekService.match`, each janitor tick: any number of processes may run it) first
finishes the tables a killed pass left, then drops dead seeks, then forms tables and, for each,
claims its seeks in one script and creates its started game with every seat bound in another
(refused when it exists: a table makes one game, once). The seekers hear ``game_started`` on their
stream and webhooks (the game's ``accounts`` follow-up). Where the app allows it, an anonymous
player seeks too (casual games only): its seek lives by its keep-alives, its answer carries once
the token of the seat it will be paired into, and it finds its game at
``GET /v1/seeks/{id}/game`` (the claim records each seek's game).

A seek's rating is the account's rating ``mu`` for that game (``service.ratings``; the default
prior without one); ``rating_range`` is in the same units.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Mapping
from typing import Any

from games import get_game
from games.base import GameError, normalise_seed, public_config, secret_config_keys
from replays.ratings import Rating
from service import errors
from service.account_tokens import Identity
from service.accounts import AccountService
from service.bound_tables import create_table_game
from service.faults import fault_point
from service.games import SEED_BITS, GameService, start_meta, time_control
from service.identity import PLAY, InsufficientScope
from service.ids import new_game_id
from service.matching import Seeker, Widening, form_tables
from service.meet_errors import InvalidSeek, SeekNotFound
from service.ratings import priors_of
from service.repository import hash_token, new_token, now_ms
from store import parts
from store.accounts import account_keys
from store.seeks import pool_id

KEEPALIVE_SECONDS = 30.0
DEFAULT_RANGE = 3.0
ANONYMOUS = "anon:"  # an anonymous seek's owner: this and its own id


def widening_from_env() -> Widening:
    """The matcher's widening (``SEEK_WIDEN_PER_SECOND``, ``SEEK_ANY_AFTER_SECONDS``)."""
    return Widening(
        per_second=float(os.environ.get("SEEK_WIDEN_PER_SECOND") or Widening.per_second),
        any_after_seconds=float(os.environ.get("SEEK_ANY_AFTER_SECONDS") or Widening.any_after_seconds),
    )


class SeekService:
    def __init__(
        self, games: GameService, accounts: AccountService | None = None, widening: Widening | None = None
    ):
        self.games = games
        self._accounts = accounts
        self.store = parts.seeks(games.store)
        self.widening = widening or widening_from_env()

    # -- seeking ---------------------------------------------------------------------------------
    def seek(self, identity: Identity | None, body: Mapping[str, Any]) -> dict[str, Any]:
        """An account's seek, or (``identity`` None) an anonymous player's: casual only, kept alive
        by its keep-alives, its answer carrying once the ``token`` of the seat it will be paired
        into (which also keeps or withdraws the seek)."""
        if identity is not None and PLAY not in identity.scopes:
            raise InsufficientScope(PLAY)
        rated = body.get("rated")
        if identity is None and rated:
            raise InvalidSeek("An anonymous seek is casual: rated games are between accounts")
        try:
            game = get_game(body["game"])
        except KeyError:
            raise errors.UnknownGame(f"No game engine named {body['game']!r}") from None
        raw = dict(body.get("config") or {})
        if any(raw.get(key) is not None for key in secret_config_keys(game)):
            raise InvalidSeek("A seek cannot fix the shuffles (seed, deck order): its game is a stranger's")
        try:
            config = game.configure({**raw, "seed": 1})
            seats = game.seat_count(config)
        except GameError as err:
            raise errors.RuleRefusal(err) from None
        control = time_control(game.name, body.get("clock"))
        description = {
            "game": game.name,
            "config": public_config(game, config),
            "clock": control,
            "rated": identity is not None and rated is not False,
            "seats": seats,
        }
        pool = pool_id(description)
        now = now_ms()
        seek_id = f"{pool}.{secrets.token_hex(6)}"
        token = None
        if identity is None:
            token = new_token()
            who: dict[str, Any] = {
                "account": f"{ANONYMOUS}{seek_id}",  # its own owner: no account to hold one seek
                "handle": body.get("name") or "Guest",
                "rating": Rating().mu,  # no rating: the prior's
                "is_bot": False,
                "token_hash": hash_token(token),
            }
        else:
            assert self._accounts is not None
            record = self._accounts.store.record(identity.account_id) or {}
            stored = parts.ratings(self.games.store).ratings(game.name, [identity.account_id])
            who = {
                "account": identity.account_id,
                "handle": record.get("handle"),
                "rating": (priors_of(stored).get(identity.account_id) or Rating()).mu,
                "is_bot": record.get("bot") in ("1", "true", "True"),
            }
        seek: dict[str, Any] = {
            "id": seek_id,
            **who,
            "rating": round(who["rating"], 2),
            "range": float(body.get("rating_range", DEFAULT_RANGE)),
            "bots_ok": bool(body.get("bots", True)),
            "since_ms": now,
            "alive_until": now + int(KEEPALIVE_SECONDS * 1000),
        }
        other = self.store.add(pool, description, seek)
        if other is not None:
            raise InvalidSeek("This account already seeks such a game", seek_id=other)
        parts.lobby(self.games.store).publish("seek", seek_id, "added", _public(seek, description))
        made = _public(seek, description)
        return made if token is None else {**made, "token": token}

    def get(self, seek_id: str) -> dict[str, Any]:
        pool = seek_id.partition(".")[0]
        seek = self.store.get(pool, seek_id) if pool.isalnum() else None
        if seek is None:
            raise SeekNotFound()
        return _public(seek, self.store.pools().get(pool, {}))

    def _owner(self, identity: Identity | None, seek_id: str, token: str | None) -> str:
        """Who may keep or withdraw ``seek_id``: the account, or the holder of an anonymous seek's
        token (anything else: SeekNotFound, as for a seek that is not there)."""
        if identity is not None:
            return identity.account_id
        pool = seek_id.partition(".")[0]
        found = self.store.get(pool, seek_id) if pool.isalnum() else None
        held = (found or {}).get("token_hash")
        if not held or token is None or not hmac.compare_digest(held, hash_token(token)):
            raise SeekNotFound()
        return f"{ANONYMOUS}{seek_id}"

    def cancel(self, identity: Identity | None, seek_id: str, token: str | None = None) -> None:
        pool = seek_id.partition(".")[0]
        owner = self._owner(identity, seek_id, token)
        removed = self.store.remove(pool, seek_id, owner) if pool.isalnum() else 0
        if removed != 1:
            raise SeekNotFound()
        parts.lobby(self.games.store).publish("seek", seek_id, "gone", None)

    def keep_alive(self, identity: Identity | None, seek_id: str, token: str | None = None) -> dict[str, Any]:
        pool = seek_id.partition(".")[0]
        owner = self._owner(identity, seek_id, token)
        until = now_ms() + int(KEEPALIVE_SECONDS * 1000)
        if not pool.isalnum() or self.store.keep_alive(pool, seek_id, owner, until) != 1:
            raise SeekNotFound()
        return self.get(seek_id)

    def pairing(self, seek_id: str) -> dict[str, Any]:
        """The game a seek was paired into (for an hour after): how an anonymous seeker, who has
        no stream to be told on, finds its table. SeekNotFound while it waits or when unknown."""
        pool = seek_id.partition(".")[0]
        game_id = self.store.paired(pool, seek_id) if pool.isalnum() else None
        if game_id is None:
            raise SeekNotFound()
        return {"seek_id": seek_id, "game_id": game_id}

    def open_seeks(self) -> list[dict[str, Any]]:
        found = []
        for pool, description in self.store.pools().items():
            found += [_public(s, description) for s in self.store.seeks(pool)]
        return found

    # -- the matcher -----------------------------------------------------------------------------
    def match(self, now: int | None = None) -> dict[str, int]:
        """One pass over every pool. Returns counts: games made, tables finished from a killed
        pass, seeks dropped as dead."""
        report = {"games": 0, "finished": 0, "dropped": 0}
        for pool, description in self.store.pools().items():
            for game_id, table in self.store.tables(pool).items():
                self._make_game(pool, game_id, table)
                report["finished"] += 1
            now = now if now is not None else now_ms()
            live = []
            for seek in self.store.seeks(pool):
                anonymous = seek["account"].startswith(ANONYMOUS)  # kept alive by keep-alives alone
                if seek["alive_until"] < now and (
                    anonymous or not self.store.has_open_stream(account_keys(seek["account"]).streams, now)
                ):
                    if self.store.remove(pool, seek["id"]) == 1:
                        parts.lobby(self.games.store).publish("seek", seek["id"], "gone", None)
                        report["dropped"] += 1
                    continue
                live.append(seek)
            by_id = {s["id"]: s for s in live}
            seekers = [
                Seeker(s["id"], s["rating"], s["range"], s["since_ms"], s["bots_ok"], s["is_bot"])
                for s in live
            ]
            for group in form_tables(seekers, int(description["seats"]), now, self.widening):
                members = [by_id[s.id] for s in group]
                secrets.SystemRandom().shuffle(members)  # seat order: drawn
                game_id = new_game_id()
                table = {
                    "description": description,
                    "seeks": members,
                    "seed": str(secrets.randbits(SEED_BITS)),
                }
                if not self.store.claim(pool, game_id, table, [m["id"] for m in members]):
                    continue  # another matcher took one of them first
                fault_point("after_seek_claim")
                self._make_game(pool, game_id, table)
                report["games"] += 1
        return report

    def _make_game(self, pool: str, game_id: str, table: Mapping[str, Any]) -> None:
        description = table["description"]
        game = get_game(description["game"])
        # Drawn as create_game draws it; the table's JSON carries it as a string.
        config = game.configure({**description["config"], "seed": normalise_seed(int(table["seed"]))})
        count = int(description["seats"])
        meta = start_meta(
            game,
            config,
            game_id,
            count,
            rated=bool(description["rated"]),
            clock=description.get("clock"),
            more={"seek": pool},
        )
        seats = {
            seat: {
                "name": s.get("handle"),
                "account": None if s["account"].startswith(ANONYMOUS) else s["account"],
            }
            for seat, s in enumerate(table["seeks"])
        }
        started = create_table_game(
            self.games.store,
            game_id,
            config,
            seats,
            meta,
            # An anonymous seeker's seat holds the token its seek was given; an account's seat is
            # played with the account's token (this one is thrown away).
            token_hashes={
                seat: s.get("token_hash") or hash_token(new_token()) for seat, s in enumerate(table["seeks"])
            },
        )
        fault_point("after_seek_game")
        if started.made:
            loaded = self.games.repository.reload(game_id)
            self.games.followups.run(game_id, started.start["followups"])
            self.games.commands.schedule_clock(loaded.cached)
            self.games.commands.notify(loaded.cached, started.start["genesis"])
        # Whoever finishes the table says its seeks are gone (the lobby may hear it twice).
        lobby = parts.lobby(self.games.store)
        for s in table["seeks"]:
            lobby.publish("seek", s["id"], "gone", None)
        self.store.table_done(pool, game_id)


def _public(seek: Mapping[str, Any], description: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": seek["id"],
        "handle": seek.get("handle"),
        "game": description.get("game"),
        "config": description.get("config"),
        "clock": description.get("clock"),
        "rated": description.get("rated"),
        "seats": description.get("seats"),
        "rating": seek["rating"],
        "rating_range": seek["range"],
        "bots": seek["bots_ok"],
        "bot_account": seek["is_bot"],
        "since": seek["since_ms"],
        "alive_until": seek["alive_until"],
    }
