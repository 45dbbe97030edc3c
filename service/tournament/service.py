"""The tournament resource: create, join, withdraw, start, and the standings recounted from the
rounds' results. Every refusal is a :class:`service.errors.ServiceError` with a stable code, raised
before anything is written, or decided inside the store's script (capacity, status, twice), so a
refused request changes nothing."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from bots import levels as bot_levels
from games import get_game
from games.base import GameError, first_seat_config
from service import clocks, errors
from service.account_tokens import Identity
from service.faults import fault_point
from service.identity import PLAY, InsufficientScope
from service.repository import now_ms
from service.tournament import rounds, schedule
from service.tournament.errors import TableSizeNotAllowed
from service.tournament.rounds import settings_of
from store import parts
from store.tournaments import ACTION, WITHDRAWAL, StoredTournament, TimedStart, outbox_id

ENTRY = ("anyone", "list", "code")
FORMATS = ("swiss", "elimination")


class TournamentNotFound(errors.ServiceError):
    status, code, title = 404, "TOURNAMENT_NOT_FOUND", "No such tournament"


class TournamentNotOpen(errors.ServiceError):
    status, code, title = 409, "TOURNAMENT_NOT_OPEN", "The tournament has started or finished"


class TournamentFull(errors.ServiceError):
    status, code, title = 409, "TOURNAMENT_FULL", "The tournament is full"


class AlreadyEntered(errors.ServiceError):
    status, code, title = 409, "ALREADY_ENTERED", "This account has entered already"


class NotEntered(errors.ServiceError):
    status, code, title = 409, "NOT_ENTERED", "This account is not an entrant"


class NotAdmitted(errors.ServiceError):
    status, code, title = 403, "NOT_ADMITTED", "This tournament's entry does not admit this account"


class NotOrganiser(errors.ServiceError):
    status, code, title = 403, "NOT_ORGANISER", "Only the tournament's organiser may do this"


class InvalidTournament(errors.ServiceError):
    status, code, title = 422, "INVALID_TOURNAMENT", "The tournament's settings are not valid"


class TournamentChanged(errors.ServiceError):
    status, code, title = 409, "TOURNAMENT_CHANGED", "The entrants changed while starting: try again"


def allowed_sizes(game_name: str, config: Mapping[str, Any]) -> list[int]:
    """The table sizes the game accepts with ``config`` (asked of the game's own ``configure``)."""
    game = get_game(game_name)
    sizes = []
    for k in range(2, 9):
        try:
            game.configure({**config, "players": k})
        except (GameError, ValueError, KeyError, TypeError):
            continue
        sizes.append(k)
    return sizes


def first_seat_starts(settings: Mapping[str, Any]) -> bool:
    """Whether seat 0 of this tournament's tables makes its game's first move: the game lets a
    configuration say who starts and the organiser's configuration does not already say it (else
    the pairing still balances seat 0, but it is only a seat)."""
    try:
        game = get_game(str(settings["game"]))
    except Exception:  # noqa: BLE001 - a game no longer installed starts nobody
        return False
    raw = {**settings["config"], "players": settings["table_size"]}
    return first_seat_config(game, raw, 0) is not None


def _require_play(identity: Identity) -> None:
    if PLAY not in identity.scopes:
        raise InsufficientScope(PLAY)


class TournamentService:
    def __init__(self, store: Any, games: Any = None):
        """``games``: the game service whose follow-ups start the tables at once (without it, as in
        the pure service's tests, the tournament's follow-up waits in its outbox for a sweeper)."""
        self.store = parts.tournaments(store)
        self.games = games

    def _run_followup(self, tournament_id: str, value: str) -> None:
        if self.games is not None:
            self.games.followups.run(outbox_id(tournament_id), {ACTION: value})

    def create(self, identity: Identity, body: Mapping[str, Any]) -> dict[str, Any]:
        _require_play(identity)
        game = body.get("game")
        try:
            get_game(str(game))
        except Exception as exc:  # noqa: BLE001 - an unknown name, whatever the registry raises
            raise errors.UnknownGame(f"No game named {game!r}") from exc
        config = dict(body.get("config") or {})
        size = body.get("table_size")
        sizes = allowed_sizes(str(game), config)
        if not isinstance(size, int) or size not in sizes:
            raise TableSizeNotAllowed(f"Tables of {size!r}: {game} allows {sizes}")
        entry = body.get("entry", "anyone")
        fmt = body.get("format", "swiss")
        rounds = body.get("rounds", 3)
        capacity = body.get("capacity", 0)
        if entry not in ENTRY or fmt not in FORMATS:
            raise InvalidTournament(f"entry is one of {ENTRY}, format one of {FORMATS}")
        if not isinstance(rounds, int) or not 1 <= rounds <= 30:
            raise InvalidTournament("rounds: from 1 to 30")
        if not isinstance(capacity, int) or capacity < 0:
            raise InvalidTournament("capacity: 0 (no limit) or more")
        try:
            control = clocks.control(body.get("clock"), bot_levels(str(game)))
        except clocks.ClockError as err:
            raise errors.InvalidClock(str(err)) from None
        start = schedule.parse_start(body.get("starts_at"), now_ms())
        settings = {
            "game": game,
            "config": config,
            "clock": control,
            "table_size": size,
            "min_size": min(sizes),
            "max_size": max(sizes),
            "rounds": rounds,
            "format": fmt,
            "advance": body.get("advance", 2),
            "duplicate": bool(body.get("duplicate", False)),
            # Late entry (Swiss only): joining a running tournament, paired from its next round.
            "late_entry": bool(body.get("late_entry", False)) and fmt == "swiss",
            "rated": bool(body.get("rated", False)),
            "bots": bool(body.get("bots", True)),
            "entry": entry,
            "accounts": list(body.get("accounts") or []) if entry == "list" else [],
            "code": secrets.token_urlsafe(9) if entry == "code" else "",
            "capacity": capacity,
            "title": str(body.get("title") or f"{game} tournament")[:80],
            # None: the organiser starts it; else the workers do then (service.tournament.schedule)
            "starts_at": start[0] if start else None,
        }
        tournament_id = secrets.token_hex(8)
        self.store.create(tournament_id, identity.account_id, settings, now_ms(), start[1] if start else None)
        out = self.view(tournament_id)
        if settings["code"]:
            out["code"] = settings["code"]  # shown to the organiser, never in a public view
        return out

    def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        out = []
        for tournament_id in self.store.ids(limit):
            try:
                out.append(self.view(tournament_id))
            except TournamentNotFound:
                continue
        return out

    def _load(self, tournament_id: str) -> StoredTournament:
        found = self.store.load(tournament_id)
        if found is None:
            raise TournamentNotFound()
        return found

    @staticmethod
    def _settings(found: StoredTournament) -> dict[str, Any]:
        return settings_of(found)

    def join(
        self,
        tournament_id: str,
        identity: Identity,
        name: str,
        rating: float = 1500.0,
        bot: bool = False,
        code: str = "",
    ) -> dict[str, Any]:
        _require_play(identity)
        found = self._load(tournament_id)
        settings = self._settings(found)
        late = found.record["status"] == "running" and bool(settings.get("late_entry"))
        if found.record["status"] != "open" and not late:
            raise TournamentNotOpen()
        if bot and not settings["bots"]:
            raise NotAdmitted("This tournament admits no bot accounts")
        if settings["entry"] == "list" and identity.account_id not in settings["accounts"]:
            raise NotAdmitted()
        if settings["entry"] == "code" and not hmac.compare_digest(code, settings["code"]):
            raise NotAdmitted("A join code is needed")
        entrant = {"name": name, "rating": rating, "bot": bot, "joined": now_ms(), "withdrawn": False}
        start = schedule.timed_start(found, now_ms(), self.store.grace_ms)
        outcome = self.store.join(
            tournament_id, identity.account_id, entrant, settings["capacity"], late, start
        )
        self._refused(outcome)
        self._start_if_due(tournament_id, outcome, start, settings)
        return self.view(tournament_id)

    def _start_if_due(
        self, tournament_id: str, outcome: str, start: TimedStart | None, settings: Mapping[str, Any]
    ) -> None:
        """A join or withdrawal past the start time that recorded the start's follow-up runs it
        here (``service.tournament.schedule``); killed before, the janitor's sweep runs it."""
        if start is None or not outcome.endswith("_start"):
            return
        fault_point("after_tournament_entry_start")  # tests/faults: recorded with the entrant, not run
        if now_ms() >= (schedule.start_ms(settings) or 0):
            self._run_followup(tournament_id, start.value)

    def add_bot(self, tournament_id: str, identity: Identity, level: str) -> dict[str, Any]:
        """The organiser enters one of the server's bots (a level of the game), which plays its
        tables on the server: it fills a field, and places the server's levels among the entrants."""
        _require_play(identity)
        found = self._load(tournament_id)
        settings = self._settings(found)
        if found.record["organiser"] != identity.account_id:
            raise NotOrganiser()
        if not settings["bots"]:
            raise NotAdmitted("This tournament admits no bots")
        if level not in bot_levels(settings["game"]):
            raise InvalidTournament(f"{settings['game']} has no bot level {level!r}")
        entrant_id = f"bot.{level}.{secrets.token_hex(4)}"
        # numbered, so nine "random bot"s stay apart in the standings and at the tables
        number = 1 + sum(1 for e in found.entrants.values() if e.get("level") == level)
        entrant = {
            "name": f"{level} bot {number}",
            "rating": 1500.0,
            "bot": True,
            "level": level,
            "joined": now_ms(),
            "withdrawn": False,
        }
        start = schedule.timed_start(found, now_ms(), self.store.grace_ms)
        outcome = self.store.join(tournament_id, entrant_id, entrant, settings["capacity"], start=start)
        self._refused(outcome)
        self._start_if_due(tournament_id, outcome, start, settings)
        return self.view(tournament_id)

    def withdraw(self, tournament_id: str, identity: Identity) -> dict[str, Any]:
        _require_play(identity)
        found = self._load(tournament_id)
        had = found.entrants.get(identity.account_id)
        if had is None or had.get("withdrawn"):
            raise NotEntered()
        start = schedule.timed_start(found, now_ms(), self.store.grace_ms)
        outcome = self.store.withdraw(tournament_id, identity.account_id, {**had, "withdrawn": True}, start)
        self._refused(outcome)
        self._start_if_due(tournament_id, outcome, start, self._settings(found))
        if outcome == "withdrawn_running":
            # Its seat at a running table goes to the bot now, as a no-show's (runner.advance);
            # killed before, the janitor's sweep runs the follow-up recorded with the withdrawal.
            fault_point("after_tournament_withdrawal")  # tests/faults: withdrawn, seat not handed over
            self._run_followup(tournament_id, WITHDRAWAL)
        return self.view(tournament_id)

    @staticmethod
    def _refused(outcome: str) -> None:
        if outcome in ("joined", "joined_start", "recorded") or outcome.startswith("withdrawn"):
            return
        raise {
            "not_found": TournamentNotFound,
            "not_open": TournamentNotOpen,
            "finished": TournamentNotOpen,
            "already_entered": AlreadyEntered,
            "full": TournamentFull,
            "not_entered": NotEntered,
            "changed": TournamentChanged,
        }.get(outcome, TournamentNotOpen)()

    def start(self, tournament_id: str, identity: Identity) -> dict[str, Any]:
        """The organiser's manual start: round 1 paired and recorded in one script, only if the
        entrants are still those it paired (a join in between refuses it: try again)."""
        _require_play(identity)
        found = self._load(tournament_id)
        if found.record["organiser"] != identity.account_id:
            raise NotOrganiser()
        if found.record["status"] != "open":
            raise TournamentNotOpen()
        outcome = self.store.record_round(
            tournament_id, 1, rounds.next_round(found, 1), found.record["version"], "running"
        )
        self._refused(outcome)
        fault_point("after_tournament_start")
        self._run_followup(tournament_id, "r1")  # the tables' games, at once (or by the janitor)
        return self.view(tournament_id)

    def record_result(
        self, tournament_id: str, number: int, table: int, placing: list[list[str]]
    ) -> dict[str, Any]:
        """A table's result (its finished game's placing: groups of tied entrant ids, best first),
        recorded once; the round's last result records the follow-up that pairs the next round or
        finishes the tournament (``service.tournament.runner``), run at once when this service has
        the game service. The table games' ends call the store directly, through the runner."""
        found = self._load(tournament_id)
        tables = found.rounds.get(number, {}).get("tables", [])
        if not 0 <= table < len(tables):
            raise InvalidTournament(f"Round {number} has no table {table}")
        players = tables[table]["players"]
        if sorted(p for g in placing for p in g) != sorted(players):
            raise InvalidTournament("A placing lists exactly the table's players")
        if self.store.record_result(tournament_id, number, table, placing) == "complete":
            if self.games is None:
                self.next_step(self._load(tournament_id))
            self._run_followup(tournament_id, f"d{number}")
        return self.view(tournament_id)

    def next_step(self, found: StoredTournament) -> str:
        return rounds.next_step(self.store, found)

    @staticmethod
    def pair_next(found: StoredTournament) -> list[list[str]]:
        return rounds.pair_next(found)

    @staticmethod
    def standings_of(found: StoredTournament) -> list[Any]:
        return rounds.standings_of(found)

    def export(self, tournament_id: str) -> Iterator[bytes]:
        """The tournament as NDJSON: a ``tournament`` line (settings, entrants), one ``game`` line
        per table (round, table, game id, entrants in seat order, placing, the game's public
        summary with its commitment and result, and its log as anyone may read it: redacted while
        it runs, whole once it ended), then a ``standings`` line. 404 before the first line."""
        found = self._load(tournament_id)
        return self._export_lines(found)

    def _export_lines(self, found: StoredTournament) -> Iterator[bytes]:
        settings = self._settings(found)
        settings.pop("code", None)
        head = {
            "type": "tournament",
            "id": found.id,
            "status": found.record["status"],
            "round": int(found.record.get("round") or 0),
            "settings": settings,
            "entrants": self._entrants(found),
        }
        yield orjson.dumps(head) + b"\n"
        names = {a: e.get("name") for a, e in found.entrants.items()}
        for number, r in sorted(found.rounds.items()):
            for index, table in enumerate(r["tables"]):
                line: dict[str, Any] = {
                    "type": "game",
                    "round": number,
                    "table": index,
                    "game_id": table["game"],
                    "players": [{"entrant": p, "name": names.get(p)} for p in table["players"]],
                    "placing": table.get("placing"),
                    "round_commitment": r.get("commitment"),
                }
                if self.games is not None and self.games.store.meta(table["game"]) is not None:
                    line["game"] = self.games.get_summary(table["game"])
                    line["events"] = self._events(table["game"])
                yield orjson.dumps(line) + b"\n"
        yield orjson.dumps({"type": "standings", "standings": rounds.standings_view(found)}) + b"\n"

    def _events(self, game_id: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        while True:
            page = self.games.read_events(game_id, None, after=len(events), limit=1000)
            events.extend(page.events)
            if not page.events or events[-1]["version"] >= page.version:
                return events

    @staticmethod
    def _entrants(found: StoredTournament) -> list[dict[str, Any]]:
        return [
            {
                "account": a,
                "name": e["name"],
                "withdrawn": bool(e.get("withdrawn")),
                "bot": e.get("level"),
            }
            for a, e in sorted(found.entrants.items(), key=lambda kv: kv[1]["joined"])
        ]

    def view(self, tournament_id: str) -> dict[str, Any]:
        found = self._load(tournament_id)
        settings = self._settings(found)
        settings.pop("code", None)
        return {
            "id": tournament_id,
            "status": found.record["status"],
            "organiser": found.record["organiser"],
            "round": int(found.record.get("round", 0)),
            "settings": settings,
            "entrants": self._entrants(found),
            "rounds": [
                {"round": n, "tables": r["tables"], "commitment": r.get("commitment")}
                for n, r in sorted(found.rounds.items())
            ],
            "standings": rounds.standings_view(found),
            "first_seat_starts": first_seat_starts(settings),
        }
