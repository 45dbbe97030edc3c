"""A tournament's rounds from its stored record: the next round's pairing (or the finish), the
standings recounted from every finished table, and a round as recorded. Shared by the resource
(``service.tournament.service``) and the follow-up that runs the tournament
(``service.tournament.runner``)."""

from __future__ import annotations

from typing import Any

import orjson

from service.ids import derived_game_id
from service.tournament.errors import TableSizeNotAllowed
from service.tournament.scoring import TableResult, standings
from service.tournament.swiss import history, swiss_round
from service.tournament.tables import TableSizeError, table_sizes
from store.tournaments import StoredTournament, TournamentStore


def settings_of(found: StoredTournament) -> dict[str, Any]:
    return dict(orjson.loads(found.record["config"]))


def table_game_id(tournament_id: str, number: int, table: int) -> str:
    """The id of round ``number``'s table ``table``: derived from the three, so every attempt to
    create that table's game names the same game (``service.ids.derived_game_id``)."""
    return derived_game_id(f"tournament:{tournament_id}:{number}:{table}")


def round_record(tournament_id: str, number: int, tables: list[list[str]]) -> dict[str, Any]:
    """A round as recorded: each table's players in seat order and its game's id (the record names
    the game before it exists)."""
    return {
        "tables": [
            {"game": table_game_id(tournament_id, number, i), "players": players}
            for i, players in enumerate(tables)
        ]
    }


def next_step(store: TournamentStore, found: StoredTournament) -> str:
    """After a complete round: pair and record the next one (with the follow-up that starts its
    tables), or finish the tournament after its last. Each is recorded once, whoever runs it."""
    current = int(found.record.get("round") or 0)
    if found.record["status"] != "running" or current == 0:
        return "nothing"
    if not all(t.get("placing") for t in found.rounds[current]["tables"]):
        return "nothing"
    if current >= settings_of(found)["rounds"]:
        return store.finish(found.id, current)
    tables = pair_next(found)
    return store.record_round(
        found.id, current + 1, round_record(found.id, current + 1, tables), "", "running"
    )


def pair_next(found: StoredTournament) -> list[list[str]]:
    """The next round's tables (entrant ids in seat order) from the standings so far."""
    settings = settings_of(found)
    table = standings_of(found)
    withdrawn = {a for a, e in found.entrants.items() if e.get("withdrawn")}
    past = [[t["players"] for t in r["tables"]] for _, r in sorted(found.rounds.items())]
    met, seats = history(past)
    try:
        table_sizes(len(found.entrants) - len(withdrawn), settings["table_size"], settings["min_size"])
        return swiss_round(
            [s.player for s in table],
            {s.player: float(s.score) for s in table},
            settings["table_size"],
            settings["min_size"],
            met,
            seats,
            withdrawn,
            settings["max_size"],
        )
    except TableSizeError as exc:
        raise TableSizeNotAllowed(str(exc)) from exc


def standings_of(found: StoredTournament) -> list[Any]:
    """Standings recounted from every finished table's placing (``placing`` in a round's table:
    groups of tied entrant ids, best first, written when its game finished)."""
    ratings = {a: float(e.get("rating", 1500)) for a, e in found.entrants.items()}
    rounds = []
    for _, r in sorted(found.rounds.items()):
        done = [
            TableResult(tuple(t["players"]), tuple(tuple(g) for g in t["placing"]))
            for t in r["tables"]
            if t.get("placing")
        ]
        rounds.append(done)
    return standings(ratings, rounds)


def standings_view(found: StoredTournament) -> list[dict[str, Any]]:
    names = {a: e.get("name") for a, e in found.entrants.items()}
    return [
        {
            "rank": s.rank,
            "account": s.player,
            "name": names.get(s.player),
            "score": float(s.score),
            "opponents": float(s.opponents),
        }
        for s in standings_of(found)
    ]
