"""A tournament's rounds from its stored record: the next round's pairing (or the finish), the
standings recounted from every finished table, and a round as recorded. Shared by the resource
(``service.tournament.service``) and the follow-up that runs the tournament
(``service.tournament.runner``)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import orjson

from replays import fairness
from service.games import SEED_BITS
from service.ids import derived_game_id
from service.tournament.elimination import advancing, by_round_reached, elimination_tables, reached
from service.tournament.errors import TableSizeNotAllowed
from service.tournament.scoring import (
    TableResult,
    duplicate_points,
    duplicate_seating,
    standings,
)
from service.tournament.swiss import history, swiss_round
from service.tournament.tables import TableSizeError, table_sizes
from store.tournaments import StoredTournament, TournamentStore


def settings_of(found: StoredTournament) -> dict[str, Any]:
    return dict(orjson.loads(found.record["config"]))


def table_game_id(tournament_id: str, number: int, table: int) -> str:
    """The id of round ``number``'s table ``table``: derived from the three, so every attempt to
    create that table's game names the same game (``service.ids.derived_game_id``)."""
    return derived_game_id(f"tournament:{tournament_id}:{number}:{table}")


def round_key(tournament_id: str, number: int) -> str:
    """What a duplicate round's commitment binds its seed to (as a game's binds to its id)."""
    return fairness.tournament_round_key(tournament_id, number)


def round_record(
    tournament_id: str,
    number: int,
    tables: list[list[str]],
    settings: Mapping[str, Any] | None = None,
    seeding: list[str] | None = None,
) -> dict[str, Any]:
    """A round as recorded: each table's players in seat order and its game's id (the record names
    the game before it exists). A duplicate round also keeps its one ``seed`` (secret: no view or
    export shows a round's fields but its tables and ``commitment``) and the public commitment to it;
    an elimination round its ``seeding`` (who the next round's advance is ordered by)."""
    record: dict[str, Any] = {
        "tables": [
            {"game": table_game_id(tournament_id, number, i), "players": players}
            for i, players in enumerate(tables)
        ]
    }
    if settings is not None and settings.get("duplicate"):
        seed = secrets.randbits(SEED_BITS)
        record["seed"] = str(seed) if seed > 2**53 - 1 else seed
        record["commitment"] = fairness.commitment(record["seed"], round_key(tournament_id, number), False)
    if seeding is not None:
        record["seeding"] = seeding
    return record


def next_step(store: TournamentStore, found: StoredTournament) -> str:
    """After a complete round: pair and record the next one (with the follow-up that starts its
    tables), or finish the tournament after its last. Each is recorded once, whoever runs it."""
    current = int(found.record.get("round") or 0)
    if found.record["status"] != "running" or current == 0:
        return "nothing"
    if not all(t.get("placing") for t in found.rounds[current]["tables"]):
        return "nothing"
    settings = settings_of(found)
    last = (
        len(found.rounds[current]["tables"]) == 1
        if settings.get("format") == "elimination"
        else current >= settings["rounds"]
    )
    if last:
        return store.finish(found.id, current)
    try:
        following = next_round(found, current + 1)
    except TableSizeNotAllowed:
        # Withdrawals left too few to fill a table: it ends with the standings so far (a follow-up
        # that raised instead would be retried forever).
        return store.finish(found.id, current)
    return store.record_round(found.id, current + 1, following, "", "running")


def next_round(found: StoredTournament, number: int) -> dict[str, Any]:
    """Round ``number``'s record, paired by the tournament's format: Swiss, or elimination (round 1
        seeded by rating, then the best ``advance`` of every table, ``elimination.advancing``); a
        duplicate round's seats rotated across the tables of one deal (``scoring.duplicate_seating``; in
    a Swiss after round 1, all but its first seat, which the pairing balances)."""
    settings = settings_of(found)
    if settings.get("format") != "elimination":
        tables = pair_next(found)
        if settings.get("duplicate"):
            # after round 1 the pairing gave each first seat to a player due it: kept there
            tables = duplicate_seating(tables, keep_first=bool(found.rounds))
        return round_record(found.id, number, tables, settings)
    withdrawn = {a for a, e in found.entrants.items() if e.get("withdrawn")}
    if number == 1:
        ratings = {a: float(e.get("rating", 1500)) for a, e in found.entrants.items()}
        seeding = sorted((a for a in found.entrants if a not in withdrawn), key=lambda a: (-ratings[a], a))
    else:
        before = found.rounds[number - 1]
        placings = [t["placing"] for t in before["tables"]]
        advance = int(settings["advance"])
        seeding = [p for p in advancing(placings, before["seeding"], advance) if p not in withdrawn]
    try:
        tables = elimination_tables(
            seeding,
            settings["table_size"],
            settings["min_size"],
            int(settings["advance"]),
            settings["max_size"],
        )
    except TableSizeError as exc:
        raise TableSizeNotAllowed(str(exc)) from exc
    if settings.get("duplicate"):
        tables = duplicate_seating(tables)
    return round_record(found.id, number, tables, settings, seeding)


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
    groups of tied entrant ids, best first, written when its game finished). A duplicate round's
    points compare each player with everyone who held the same seat of the same deal
    (``scoring.duplicate_points``) once all its tables have finished (until then: placement points)."""
    ratings = {a: float(e.get("rating", 1500)) for a, e in found.entrants.items()}
    rounds = []
    points = []
    for _, r in sorted(found.rounds.items()):
        done = [
            TableResult(tuple(t["players"]), tuple(tuple(g) for g in t["placing"]))
            for t in r["tables"]
            if t.get("placing")
        ]
        rounds.append(done)
        whole = "seed" in r and len(done) == len(r["tables"])
        # None: a plain round's placement points, summed as integer units (scoring's fast path)
        points.append(duplicate_points(done) if whole else None)
    return standings(ratings, rounds, points)


def standings_view(found: StoredTournament) -> list[dict[str, Any]]:
    """The standings as the API shows them. An elimination ranks by the round reached
    (``elimination.by_round_reached``) and says, per entrant, that ``round`` and its ``place`` at
    that round's table (None while the table plays)."""
    names = {a: e.get("name") for a, e in found.entrants.items()}
    table = standings_of(found)
    if settings_of(found).get("format") != "elimination":
        return [_standing(s, s.rank, names) for s in table]
    reach = reached(
        [[(t["players"], t.get("placing")) for t in r["tables"]] for _, r in sorted(found.rounds.items())]
    )
    by_player = {s.player: s for s in table}
    order = by_round_reached([s.player for s in table], reach)
    out = []
    for rank, player in enumerate(order, start=1):
        number, place = reach.get(player, (0, None))
        out.append({**_standing(by_player[player], rank, names), "round": number, "place": place})
    return out


def _standing(s: Any, rank: int, names: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "rank": rank,
        "account": s.player,
        "name": names.get(s.player),
        "score": float(s.score),
        "opponents": float(s.opponents),
    }
