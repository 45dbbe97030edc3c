"""Running a tournament: its rounds' tables started as games, their results written from the
finished games, the next round paired or the tournament finished, the entrants told.

All of it is the follow-up action ``tournament`` (``service.followups``), in two outboxes:

- the tournament's own (``store.tournaments.outbox_id``), recorded by the script that records a
  round (value ``r<n>``), by the one that writes a round's last result (``d<n>``) and by the one that
  finishes the tournament (``f``), by the creation of one with a start time (``s``, due then:
  ``service.tournament.schedule`` starts it), and by a withdrawal while it runs (``w``). Its
  handler, :func:`advance`, brings the tournament forward from whatever state it finds: it
  creates every table game of the current round (each under an id derived from the tournament,
  round and table, created only if absent: ``store.bound_games``), hands a withdrawn entrant's
  seat at a running table to the bot (as a no-show's clock does), tells each entrant its table,
  and when every table has its result pairs the next round (recorded once: a round is recorded
  only as the next one) or finishes the tournament (once), then goes on;
- a table game's, recorded by the move that ends it (``service.commands``). Its handler,
  :func:`record_table`, writes the table's placing (once: the first result stands) and, when that
  completes the round, runs the tournament's follow-up at once.

Either may be killed at any instant: what it recorded is pending in an outbox, and the janitor runs
it again; a second run creates no table twice (the id is taken), writes no result twice and pairs
no round twice, and every notice is keyed (told once).

Placings come from the engine's outcome as the ratings read it (``replays.ratings.ranks_of``): the
winners first, every other seat next, a seat that left its game (handed to the bot after too many
timeouts: a no-show) last, whatever its bot did after.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from games import get_game
from games.base import first_seat_config
from replays.ratings import left_seats, ranks_of
from service import bound_tables, webhook_events
from service.faults import fault_point
from service.games import new_seed, start_meta
from service.ports import GameAccess
from service.repository import now_ms
from service.tournament import schedule
from service.tournament.rounds import next_step, settings_of, standings_view, table_game_id
from store import parts
from store.tournaments import ACTION, StoredTournament, outbox_id, tournament_id_of

log = logging.getLogger(__name__)

NOTICE_KEEP_SECONDS = 30 * 24 * 3600


def tournament_followup(service: GameAccess, target: str, value: str) -> bool:
    """The ``tournament`` action of ``target``: a tournament's own outbox, or a table game's."""
    tournament_id = tournament_id_of(target)
    if tournament_id is not None:
        return advance(service, tournament_id)
    return record_table(service, target)


# -- a table game's end ----------------------------------------------------------------------------


def placing_of(
    players: list[str], result: Mapping[str, Any] | None, events: list[dict[str, Any]]
) -> list[list[str]]:
    """Groups of tied entrant ids, best first, from a finished game (seat s is ``players[s]``)."""
    winners = [int(s) for s in (result or {}).get("winners") or []]
    ranks = ranks_of(len(players), winners, left_seats(events))
    return [[players[s] for s in range(len(players)) if ranks[s] == rank] for rank in sorted(set(ranks))]


def record_table(service: GameAccess, game_id: str) -> bool:
    found = parts.load_log(service.store, game_id)
    if found is None or not found.finished or not found.meta.get("tournament"):
        return True
    fault_point("before_tournament_result")  # tests/faults: the game ended, its result not written
    tournament_id = found.meta["tournament"]
    number, index = int(found.meta["tournament_round"]), int(found.meta["tournament_table"])
    tournaments = parts.tournaments(service.store)
    stored = tournaments.load(tournament_id)
    if stored is None:
        return True
    players = stored.rounds[number]["tables"][index]["players"]
    placing = placing_of(players, found.result, found.events)
    outcome = tournaments.record_result(tournament_id, number, index, placing)
    fault_point("after_tournament_result")
    if outcome == "complete":
        service.followups.run(outbox_id(tournament_id), {ACTION: f"d{number}"})
    return True


# -- the tournament's own follow-up ------------------------------------------------------------------


def advance(service: GameAccess, tournament_id: str) -> bool:
    """Bring the tournament forward as far as it can go now (the module's docstring)."""
    tournaments = parts.tournaments(service.store)
    for _ in range(64):
        found = tournaments.load(tournament_id)
        if found is None:
            return True
        status, current = found.record["status"], int(found.record.get("round") or 0)
        if status == "open":
            started = schedule.start_when_due(tournaments, found, now_ms())
            if started == "early":  # put back to the start time (the sweep leased it sooner)
                parts.outbox(service.store).reschedule(
                    outbox_id(tournament_id), schedule.start_ms(settings_of(found)) or 0
                )
                return False
            if started in ("recorded", "recorded_before", "changed"):
                continue
            return True
        if status == "finished":
            tell_finished(service, found)
            return True
        if status != "running" or current == 0:
            return True
        tables = found.rounds[current]["tables"]
        for index in range(len(tables)):
            start_table(service, found, current, index)
            fault_point("between_tournament_tables")
        hand_over_withdrawn(service, found, current)
        tell_round(service, found, current)
        if not all(t.get("placing") for t in tables):
            return True
        next_step(tournaments, found)
        fault_point("after_tournament_pairing")
    return False


def hand_over_withdrawn(service: GameAccess, found: StoredTournament, number: int) -> None:
    """Every withdrawn entrant's seat at a running table of round ``number`` handed to the bot for
    good, as a no-show's clock hands it (``seat_handed_to_bot``): the others finish the game, the
    seat places last (:func:`placing_of`), and its token no longer moves it. Idempotent: a seat
    already handed over, or a game over, is left as it is."""
    for index, table in enumerate(found.rounds[number]["tables"]):
        if table.get("placing"):
            continue
        for seat, entrant_id in enumerate(table["players"]):
            if found.entrants.get(entrant_id, {}).get("withdrawn"):
                service.leave_to_bot(table_game_id(found.id, number, index), seat)


def seat_of(entrant_id: str, entrant: Mapping[str, Any]) -> dict[str, Any]:
    """A table seat for an entrant: a server bot's level, or the account bound to it."""
    if entrant.get("level"):
        return {"name": entrant.get("name"), "level": entrant["level"]}
    return {"name": entrant.get("name"), "account": entrant_id}


def start_table(service: GameAccess, found: StoredTournament, number: int, index: int) -> str:
    """Create the table's game unless it exists; its seats in the table's order, bound."""
    settings = settings_of(found)
    players = found.rounds[number]["tables"][index]["players"]
    game_id = table_game_id(found.id, number, index)
    game = get_game(settings["game"])
    # A duplicate round's tables share its one seed (its commitment is in every table's game).
    round_ = found.rounds[number]
    seed = round_["seed"] if "seed" in round_ else new_seed()
    raw = {**settings["config"], "players": len(players), "seed": seed}
    # The pairing gave seat 0 to the player due the first seat: the game starts with it where the
    # game lets a configuration say who starts (else its rules decide, and no page says otherwise).
    config = game.configure(first_seat_config(game, raw, 0) or raw)
    more: dict[str, Any] = {"tournament": found.id, "tournament_round": number, "tournament_table": index}
    if round_.get("commitment"):
        more["round_commitment"] = round_["commitment"]
    rated = bool(settings.get("rated"))
    meta = start_meta(
        game, config, game_id, len(players), rated=rated, clock=settings.get("clock"), more=more
    )
    seats = {seat: seat_of(p, found.entrants.get(p, {})) for seat, p in enumerate(players)}
    bound_tables.start_table(service, game_id, config, seats, meta)
    return game_id


# -- telling the entrants ----------------------------------------------------------------------------


def _tell(service: GameAccess, account_id: str, notice: str, kind: str, data: Mapping[str, Any]) -> None:
    webhook_events.job_finished(
        parts.webhooks(service.store), account_id, notice, kind, data, NOTICE_KEEP_SECONDS
    )


def tell_round(service: GameAccess, found: StoredTournament, number: int) -> None:
    """``tournament_round_started`` for every account at a table of round ``number``, with its own
    table and game (once per round and account: the notice is keyed)."""
    settings = settings_of(found)
    for index, table in enumerate(found.rounds[number]["tables"]):
        game_id = table_game_id(found.id, number, index)
        for seat, entrant_id in enumerate(table["players"]):
            if found.entrants.get(entrant_id, {}).get("level"):
                continue  # a server bot is told nothing
            data = {
                "tournament": found.id,
                "title": settings.get("title"),
                "game": settings.get("game"),
                "round": number,
                "table": index,
                "seat": seat,
                "game_id": game_id,
            }
            _tell(
                service, entrant_id, f"tournament:{found.id}:round:{number}", "tournament_round_started", data
            )


def tell_finished(service: GameAccess, found: StoredTournament) -> None:
    """``tournament_finished`` with the final standings, for every account that entered."""
    settings = settings_of(found)
    standings = standings_view(found)
    data = {
        "tournament": found.id,
        "title": settings.get("title"),
        "game": settings.get("game"),
        "rounds": int(found.record.get("round") or 0),
        "standings": standings,
    }
    for entrant_id, entrant in found.entrants.items():
        if entrant.get("level"):
            continue
        _tell(service, entrant_id, f"tournament:{found.id}:finished", "tournament_finished", data)
