"""Challenges: an account invites accounts (and leaves seats open, or to server bots) to a game.

Modelled on Lichess's challenge API: the challenged accept or decline with a reason code
(:data:`schemas.challenges.DECLINE_REASONS`), the challenger cancels, an unanswered challenge
expires (the janitor,
:meth:`ChallengeService.expire_due`). The id of a challenge is the id of the game it becomes:
the answer that leaves no seat pending creates the game with every seat bound and started, in
one store script (``store.challenges``). What the parties are told (``challenge``,
``challenge_canceled``, ``challenge_declined``, ``challenge_expired``) is recorded by the same
script and delivered by the ``challenge`` follow-up (``service.challenge_followup``) to their
feeds (``/v1/me/stream``) and webhooks; ``game_started`` comes from the game's own ``accounts``
follow-up, as for any game.

Seat order: ``random`` (the challenger, the invitees and the open seats shuffled over the seats
no bot takes, when the challenge is made, so everyone sees their seat before answering) or
``given`` (the challenger names each seat's holder). An open seat is taken by the first
signed-in account that accepts it (or anyone, with ``anonymous``: the taker then gets the seat
token, once). The seed is drawn at creation and kept with the challenge, secret until the game
is over, exactly as a created game's (``summary_config``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Any

import orjson

from games import get_game
from games.base import GameError, secret_config_keys
from service import errors
from service.account_tokens import Identity
from service.accounts import AccountService
from service.bound_start import bound_start
from service.challenge_view import parties, view_of
from service.faults import fault_point
from service.games import GameService, new_seed, start_meta, time_control
from service.identity import PLAY, AlreadySeated, InsufficientScope
from service.ids import new_game_id
from service.meet_errors import (
    AccountRequired,
    ChallengeNotFound,
    ChallengeNotPending,
    InvalidChallenge,
    NotChallenger,
    NotInvited,
    UnknownAccount,
)
from service.repository import hash_token, new_token, now_iso, now_ms
from store import parts
from store.challenges import StoredChallenge

SEAT_ORDERS = ("random", "given")
DEFAULT_EXPIRES_SECONDS = 600
MAX_EXPIRES_SECONDS = 7 * 24 * 3600
KINDS = ("challenge", "challenge_canceled", "challenge_declined", "challenge_expired")


class ChallengeService:
    def __init__(self, games: GameService, accounts: AccountService | None = None):
        """``accounts`` None: only what needs no account (reading, expiring: the janitor)."""
        self.games = games
        self._accounts_service = accounts
        self.store = parts.challenges(games.store)

    @property
    def accounts(self) -> AccountService:
        assert self._accounts_service is not None, "made without accounts: it can only read and expire"
        return self._accounts_service

    # -- making one --------------------------------------------------------------------------------
    def create(self, identity: Identity, body: Mapping[str, Any]) -> dict[str, Any]:
        _require_play(identity)
        try:
            game = get_game(body["game"])
        except KeyError:
            raise errors.UnknownGame(f"No game engine named {body['game']!r}") from None
        raw = dict(body.get("config") or {})
        prearranged = any(raw.get(key) is not None for key in secret_config_keys(game))
        if raw.get("seed") is None:
            raw["seed"] = new_seed()
        try:
            config = game.configure(raw)
            seat_count = game.seat_count(config)
        except GameError as err:
            raise errors.RuleRefusal(err) from None
        control = time_control(game.name, body.get("clock"))
        bots = self.games.validate_bots(game.name, body.get("bots") or {}, seat_count)
        holders = self._holders(identity.account_id, body, seat_count, bots)
        challenge_id = new_game_id()
        stamp, now = now_iso(), now_ms()
        expires_ms = now + 1000 * int(body.get("expires_in") or DEFAULT_EXPIRES_SECONDS)
        meta = start_meta(
            game,
            config,
            challenge_id,
            seat_count,
            rated=bool(body.get("rated", True)),
            clock=control,
            more={"challenge": challenge_id},
            prearranged=prearranged,
            created=stamp,
        )
        challenger = self.accounts.handle_of(identity.account_id)
        summary = {
            "id": challenge_id,
            "game": game.name,
            "title": game.title,
            "config": meta["config"],
            "clock": control,
            "rated": meta["rated"],
            "seat_count": seat_count,
            "seat_order": body.get("seat_order", "random"),
            "challenger": challenger,
            "anonymous": bool(body.get("anonymous", False)),
            "created": stamp,
            "expires": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires_ms / 1000)),
            "url": f"/v1/challenges/{challenge_id}",
        }
        record = {
            "status": "pending",
            "challenger": identity.account_id,
            "public": summary,
            "config": config,
            "meta": meta,
            "expires": expires_ms,
            "created_ms": now,
            "anonymous": "1" if summary["anonymous"] else "0",
        }
        seats = {seat: self._seat_entry(holder) for seat, holder in holders.items()}
        for entry in seats.values():
            if entry.get("account") == identity.account_id:
                entry["answer"] = "accepted"  # the challenger's own seat
        for seat, level in bots.items():
            seats[seat] = {"kind": "bot", "level": level, "name": f"{level} bot", "answer": "accepted"}
            seats[seat]["token_hash"] = hash_token(new_token())
        draft = StoredChallenge(
            challenge_id,
            {"status": "pending", "challenger": identity.account_id, "public": _dumps(summary)},
            seats,
            [],
        )
        notice = {"kind": "challenge", "to": parties(draft), "data": view_of(draft)}
        if not self.store.create(challenge_id, record, seats, notice, {"challenge": 1}, expires_ms):
            raise errors.Busy("The reserved id was taken: send the challenge again")
        self.games.followups.run(challenge_id, {"challenge": 1})
        return self.get(challenge_id)

    def _holders(
        self, challenger: str, body: Mapping[str, Any], seat_count: int, bots: Mapping[int, str]
    ) -> dict[int, dict[str, Any]]:
        """Who holds each seat no bot takes: ``{"account": id}`` or ``{"open": True}``."""
        order = body.get("seat_order", "random")
        if order == "given":
            given = body.get("seats") or {}
            wanted: dict[int, str] = {}
            for key, who in given.items():
                seat = int(key) if str(key).isdigit() else -1
                if not 0 <= seat < seat_count or seat in bots or seat in wanted:
                    raise InvalidChallenge(f"Seat {key!r} is not a free seat of this game")
                wanted[seat] = who
            if len(wanted) + len(bots) != seat_count:
                raise InvalidChallenge("With seat_order 'given', name the holder of every seat no bot takes")
            handles = [h for h in wanted.values() if h != "open"]
            people = self._accounts(challenger, handles, must_include_challenger=True)
            by_handle = dict(zip(handles, people, strict=True))
            return {
                seat: ({"open": True} if who == "open" else {"account": by_handle[who]})
                for seat, who in wanted.items()
            }
        invited = list(body.get("invite") or [])
        people = [challenger, *self._accounts(challenger, invited, must_include_challenger=False)]
        holders: list[dict[str, Any]] = [{"account": a} for a in people]
        holders += [{"open": True} for _ in range(int(body.get("open_seats") or 0))]
        free = [s for s in range(seat_count) if s not in bots]
        if len(holders) != len(free):
            raise InvalidChallenge(
                f"This game has {seat_count} seats: the challenger, {len(invited)} invited, "
                f"{int(body.get('open_seats') or 0)} open and {len(bots)} bots make "
                f"{len(holders) + len(bots)}"
            )
        secrets.SystemRandom().shuffle(holders)
        return dict(zip(free, holders, strict=True))

    def _accounts(self, challenger: str, handles: list[str], must_include_challenger: bool) -> list[str]:
        ids: list[str] = []
        for handle in handles:
            account_id = self.accounts.account_id_of(handle)
            if account_id is None:
                raise UnknownAccount(f"No account named {handle!r}")
            if account_id in ids:
                raise InvalidChallenge(f"{handle!r} is named twice")
            ids.append(account_id)
        if must_include_challenger and challenger not in ids:
            raise InvalidChallenge("With seat_order 'given', the challenger holds one of the seats")
        if not must_include_challenger and challenger in ids:
            raise InvalidChallenge("The challenger cannot invite itself")
        return ids

    def _seat_entry(self, holder: Mapping[str, Any]) -> dict[str, Any]:
        if holder.get("open"):
            return {"kind": "open", "answer": "pending", "name": None}
        account_id = holder["account"]
        record = self.accounts.store.record(account_id) or {}
        return {
            "kind": "account",
            "account": account_id,
            "name": record.get("handle"),
            "bot_account": record.get("bot") in ("1", "true", "True"),
            "answer": "pending",
            # An account's seat is played with the account's token: this one is thrown away.
            "token_hash": hash_token(new_token()),
        }

    # -- reading -------------------------------------------------------------------------------------
    def _load(self, challenge_id: str) -> StoredChallenge:
        found = self.store.load(challenge_id) if challenge_id.isalnum() else None
        if found is None:
            raise ChallengeNotFound()
        return found

    def get(self, challenge_id: str) -> dict[str, Any]:
        return view_of(self._load(challenge_id))

    def mine(self, identity: Identity) -> dict[str, Any]:
        """The pending challenges the account is a party to: those it made, those it may answer."""
        incoming: list[dict[str, Any]] = []
        outgoing: list[dict[str, Any]] = []
        for found in self.store.load_many(self.store.of_account(identity.account_id)):
            if found is None or found.status != "pending":
                continue
            (outgoing if found.record["challenger"] == identity.account_id else incoming).append(
                view_of(found)
            )
        return {"incoming": incoming, "outgoing": outgoing}

    def open_challenges(self) -> list[dict[str, Any]]:
        found = self.store.load_many(self.store.open_ids())
        return [view_of(f) for f in found if f is not None and f.status == "pending"]

    # -- answering -----------------------------------------------------------------------------------
    def accept(
        self, challenge_id: str, identity: Identity | None, seat: int | None = None, name: str | None = None
    ) -> dict[str, Any]:
        """Accept an invitation, or take an open seat. The answer that leaves no seat pending starts
        the game. Returns the challenge, the seat and (anonymous takers only) the seat's token."""
        if identity is not None:
            _require_play(identity)
        who = identity.account_id if identity is not None else ""
        for _ in range(4):
            found = self._load(challenge_id)
            if found.status != "pending":
                raise ChallengeNotPending(f"The challenge is {found.status}")
            mine = self._seat_for(found, who, seat)
            entry = dict(found.seats[mine])
            token = None
            if entry["kind"] == "open":
                if who:
                    record = self.accounts.store.record(who) or {}
                    entry.update(account=who, name=record.get("handle"), token_hash=hash_token(new_token()))
                else:
                    token = new_token()
                    entry.update(name=(name or "Guest")[:40], token_hash=hash_token(token))
            entry["answer"] = "accepted"
            seats = {**found.seats, mine: entry}
            pending = [s for s, e in seats.items() if e["answer"] == "pending"]
            count = len(found.notices)
            if pending:
                outcome, detail = self.store.answer(
                    challenge_id,
                    seat=mine,
                    who=who,
                    seat_entry=entry,
                    notice=None,
                    followups={"challenge": count},
                )
                actions: dict[str, Any] = {"challenge": count}
            else:
                start = self._start(found, seats, count)
                outcome, detail = self.store.answer(
                    challenge_id, seat=mine, who=who, seat_entry=entry, notice=None, **start
                )
                actions = start["followups"]
            if outcome in ("need_start", "stale"):
                continue
            self._refused(outcome, detail)
            if outcome == "started":
                fault_point("after_challenge_start")
                loaded = self.games.repository.reload(challenge_id)
                self.games.followups.run(challenge_id, actions)
                self.games.commands.schedule_clock(loaded.cached)
                self.games.commands.notify(loaded.cached, start["genesis"])
            else:
                self.games.followups.run(challenge_id, actions)
            return {
                "challenge": self.get(challenge_id),
                "seat": mine,
                "token": token,
                "started": outcome == "started",
                "game_id": challenge_id,
            }
        raise errors.Busy("The challenge changed too often while answering; retry")

    @staticmethod
    def _seat_for(found: StoredChallenge, who: str, seat: int | None) -> int:
        invited = [s for s, e in found.seats.items() if e.get("account") == who and e["kind"] == "account"]
        if who and invited:
            if found.seats[invited[0]]["answer"] != "pending":
                raise ChallengeNotPending("You have accepted this challenge already")
            return invited[0]
        free = [s for s, e in sorted(found.seats.items()) if e["kind"] == "open" and e["answer"] == "pending"]
        if seat is not None:
            if seat not in free:
                raise errors.SeatTaken(f"Seat {seat} is not a free open seat of this challenge")
            return seat
        if not free:
            if not who:
                raise AccountRequired()
            raise NotInvited()
        return free[0]

    @staticmethod
    def _refused(outcome: str, detail: Any) -> None:
        if outcome in ("accepted", "started"):
            return
        if outcome == "not_found":
            raise ChallengeNotFound()
        if outcome == "not_pending":
            raise ChallengeNotPending(f"The challenge is {detail}")
        if outcome in ("taken", "no_such_seat"):
            raise errors.SeatTaken("That seat is taken")
        if outcome == "already_seated":
            raise AlreadySeated()
        if outcome == "account_required":
            raise AccountRequired()
        raise NotInvited()

    @staticmethod
    def _start(found: StoredChallenge, seats: Mapping[int, Mapping[str, Any]], count: int) -> dict[str, Any]:
        """The game's start as the last answer writes it (``service.bound_start``)."""
        return bound_start(
            _loads(found.record["meta"]), _loads(found.record["config"]), seats, {"challenge": count}
        )

    def decline(self, challenge_id: str, identity: Identity, reason: str) -> dict[str, Any]:
        _require_play(identity)
        return self._settle(challenge_id, "declined", identity.account_id, reason, "challenge_declined")

    def cancel(self, challenge_id: str, identity: Identity) -> dict[str, Any]:
        _require_play(identity)
        return self._settle(challenge_id, "canceled", identity.account_id, "", "challenge_canceled")

    def _settle(
        self, challenge_id: str, status: str, who: str, reason: str, kind: str, now: int | None = None
    ) -> dict[str, Any]:
        found = self._load(challenge_id)
        draft = StoredChallenge(
            found.id, {**found.record, "status": status, "reason": reason}, found.seats, []
        )
        data = view_of(draft)
        if status == "declined":
            data["declined_by"] = next(
                (e.get("name") for e in found.seats.values() if e.get("account") == who), None
            )
        notice = {"kind": kind, "to": parties(found), "data": data}
        count = len(found.notices) + 1
        outcome, had = self.store.settle(challenge_id, status, who, reason, notice, {"challenge": count}, now)
        if outcome == "not_found":
            raise ChallengeNotFound()
        if outcome == "not_pending":
            raise ChallengeNotPending(f"The challenge is {had}")
        if outcome == "not_challenger":
            raise NotChallenger()
        if outcome == "not_invited":
            raise NotInvited("Only an invited account whose answer is pending may decline")
        if outcome == "not_due":
            return view_of(found)
        self.games.followups.run(challenge_id, {"challenge": count})
        return self.get(challenge_id)

    def expire_due(self, now: int | None = None) -> int:
        """Expire the pending challenges past their time (the janitor, every tick). Ids whose
        challenge is gone or answered are dropped from the index. Returns how many expired."""
        expired = 0
        now = now if now is not None else now_ms()
        for challenge_id in self.store.due_expiries(now):
            found = self.store.load(challenge_id)
            if found is None or found.status != "pending":
                self.store.forget_expiry(challenge_id)
                continue
            try:
                self._settle(challenge_id, "expired", "", "", "challenge_expired", now)
            except ChallengeNotPending:
                pass
            else:
                expired += 1
            self.store.forget_expiry(challenge_id)
        return expired


def _require_play(identity: Identity) -> None:
    if PLAY not in identity.scopes:
        raise InsufficientScope(PLAY)


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _loads(value: str) -> Any:
    return orjson.loads(value)
