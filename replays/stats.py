"""Statistics over archived games: per game, per player across the archive, and global.

The game-specific part is the game's ``game_facts(events)`` hook (one pass over a game's events,
see :class:`games.base.ArchiveHooks`); everything here is generic aggregation of those facts:
counters are summed, win rates computed, favourites ranked. Aggregators are incremental (``add``
one game at a time) so a job can stream a thousand logs without holding them all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.base import Event, Game, archive_hooks, configure_recorded, fold

FAVOURITES = 3
LENGTH_BUCKETS = 10


def game_facts(game: Game[Any], events: Sequence[Event]) -> dict[str, Any]:
    """The facts of one complete game: the game's hook, or generic facts from its result."""
    archive = archive_hooks(game)
    if archive is not None:
        facts = dict(archive.game_facts(events))
    else:
        state = fold(game, events)
        result = game.result(state) or {"winners": [], "reason": "unfinished"}
        seats = game.seat_count(configure_recorded(game, events[0].get("config", {}))) if events else 0
        facts = {
            "seats": seats,
            "first_seat": None,
            "winners": list(result.get("winners", [])),
            "outcome": result.get("reason", "unknown"),
            "chapters": 1,
            "seat_counters": [{} for _ in range(seats)],
            "seat_totals": [{} for _ in range(seats)],
            "counters": {},
            "detail": {},
        }
    facts.setdefault("events", len(events))
    return facts


def _add_counters(into: dict[str, Counter[str]], counters: Mapping[str, Mapping[str, int]]) -> None:
    for name, counts in counters.items():
        target = into.get(name)
        if target is None:
            target = into[name] = Counter()
        target.update(counts)


def _rate(wins: int, games: int) -> float | None:
    return round(wins / games, 4) if games else None


def _ranked(counter: Mapping[str, int], top: int | None = None) -> list[dict[str, Any]]:
    items = sorted(counter.items(), key=lambda item: (-item[1], str(item[0])))
    if top is not None:
        items = items[:top]
    return [{"key": key, "count": count} for key, count in items]


def _new_player() -> dict[str, Any]:
    """A player's row of :class:`PlayerStats` before any game is added."""
    return {"games": 0, "wins": 0, "by_seat": {}, "by_player_count": {}, "counters": {}, "totals": Counter()}


class PlayerStats:
    """Per player name, across many games."""

    def __init__(self) -> None:
        self.players: dict[str, dict[str, Any]] = {}

    def add(self, names: Sequence[str | None], facts: Mapping[str, Any]) -> None:
        winners = set(facts.get("winners") or ())
        count = facts["seats"]
        seat_counters = facts.get("seat_counters") or [{}] * count
        seat_totals = facts.get("seat_totals") or [{}] * count
        for seat in range(count):
            name = names[seat] if seat < len(names) else None
            if not name:
                continue
            entry = self.players.get(name)
            if entry is None:
                entry = self.players[name] = _new_player()
            won = seat in winners
            entry["games"] += 1
            entry["wins"] += won
            for table, key in ((entry["by_seat"], seat), (entry["by_player_count"], count)):
                row = table.setdefault(key, [0, 0])
                row[0] += 1
                row[1] += won
            _add_counters(entry["counters"], seat_counters[seat])
            entry["totals"].update(seat_totals[seat])

    def result(self, only: str | None = None) -> dict[str, Any]:
        out = {}
        for name, entry in sorted(self.players.items()):
            if only is not None and name != only:
                continue
            out[name] = {
                "games": entry["games"],
                "wins": entry["wins"],
                "win_rate": _rate(entry["wins"], entry["games"]),
                "by_seat": _rows(entry["by_seat"]),
                "by_player_count": _rows(entry["by_player_count"]),
                "totals": dict(sorted(entry["totals"].items())),
                "counters": {k: dict(sorted(v.items())) for k, v in sorted(entry["counters"].items())},
                "favourites": {k: _ranked(v, FAVOURITES) for k, v in sorted(entry["counters"].items())},
            }
        return out


def _rows(table: Mapping[Any, list[int]]) -> dict[str, dict[str, Any]]:
    return {
        str(key): {"games": games, "wins": wins, "win_rate": _rate(wins, games)}
        for key, (games, wins) in sorted(table.items())
    }


class GlobalStats:
    """Across the whole archive: first-seat advantage, contested keys, lengths, outcomes."""

    def __init__(self) -> None:
        self.games = 0
        self.outcomes: Counter[str] = Counter()
        self.first_seat_games = 0
        self.first_seat_wins = 0
        self.first_seat_expected = 0.0
        self.seat_wins: dict[int, list[int]] = {}
        self.counters: dict[str, Counter[str]] = {}
        self.chapter_lengths: list[int] = []
        self.event_lengths: list[int] = []
        self.by_player_count: Counter[int] = Counter()

    def add(self, facts: Mapping[str, Any]) -> None:
        self.games += 1
        seats = facts["seats"]
        winners = facts.get("winners") or ()
        self.by_player_count[seats] += 1
        self.outcomes[facts.get("outcome") or "unknown"] += 1
        first = facts.get("first_seat")
        if first is not None:
            self.first_seat_games += 1
            self.first_seat_wins += first in winners
            # Under no advantage the first seat wins its share of the victories of that game.
            self.first_seat_expected += (len(winners) / seats) if seats else 0.0
        for seat in range(seats):
            row = self.seat_wins.setdefault(seat, [0, 0])
            row[0] += 1
            row[1] += seat in winners
        _add_counters(self.counters, facts.get("counters") or {})
        self.chapter_lengths.append(int(facts.get("chapters") or 0))
        self.event_lengths.append(int(facts.get("events") or 0))

    def result(self) -> dict[str, Any]:
        first_rate = _rate(self.first_seat_wins, self.first_seat_games)
        expected = (
            round(self.first_seat_expected / self.first_seat_games, 4) if self.first_seat_games else None
        )
        return {
            "games": self.games,
            "by_player_count": {str(k): v for k, v in sorted(self.by_player_count.items())},
            "first_seat_advantage": {
                "games": self.first_seat_games,
                "wins": self.first_seat_wins,
                "win_rate": first_rate,
                "expected_win_rate": expected,
                "advantage": (
                    round(first_rate - expected, 4)
                    if first_rate is not None and expected is not None
                    else None
                ),
            },
            "win_rate_by_seat": _rows(self.seat_wins),
            "outcomes": dict(sorted(self.outcomes.items())),
            "length": {
                "chapters": distribution(self.chapter_lengths),
                "events": distribution(self.event_lengths),
            },
            "counters": {name: _ranked(counts) for name, counts in sorted(self.counters.items())},
        }


def distribution(values: Sequence[int], buckets: int = LENGTH_BUCKETS) -> dict[str, Any]:
    """min, max, mean, median, p90 and a histogram of at most ``buckets`` equal-width bins."""
    if not values:
        return {
            "count": 0,
            "min": None,
            "max": None,
            "mean": None,
            "median": None,
            "p90": None,
            "histogram": [],
        }
    ordered = sorted(values)
    count = len(ordered)
    low, high = ordered[0], ordered[-1]
    width = max(1, -(-(high - low + 1) // buckets))
    histogram: Counter[int] = Counter((value - low) // width for value in ordered)
    return {
        "count": count,
        "min": low,
        "max": high,
        "mean": round(sum(ordered) / count, 3),
        "median": _percentile(ordered, 50),
        "p90": _percentile(ordered, 90),
        "histogram": [
            {"from": low + i * width, "to": low + (i + 1) * width - 1, "count": histogram.get(i, 0)}
            for i in range((high - low) // width + 1)
        ],
    }


def _percentile(ordered: Sequence[int], percent: int) -> float:
    """Nearest-rank percentile (no interpolation: the value is one that occurred)."""
    rank = max(1, -(-percent * len(ordered) // 100))
    return ordered[rank - 1]


def per_game(game: Game[Any], events: Sequence[Event], names: Sequence[str | None] = ()) -> dict[str, Any]:
    facts = game_facts(game, events)
    facts["players"] = [
        {"seat": seat, "name": names[seat] if seat < len(names) else None} for seat in range(facts["seats"])
    ]
    return facts


def aggregate(
    game: Game[Any], games: Iterable[tuple[Sequence[str | None], Sequence[Event]]]
) -> tuple[PlayerStats, GlobalStats]:
    """Per-player and global statistics of ``games`` (pairs of seat names and complete logs)."""
    players, overall = PlayerStats(), GlobalStats()
    for names, events in games:
        facts = game_facts(game, events)
        players.add(names, facts)
        overall.add(facts)
    return players, overall


# -- aggregates kept in the store, updated once per archived game --------------------------------
#
# What the aggregators above compute from every game's facts, kept instead as counters that one
# more game only increments: a statistic is then read from its aggregate (its size depends on the
# number of distinct values, players, regions..., never on the number of games). Every figure above is
# a sum over games, a ratio of sums, or (lengths) a distribution, kept as a count per value, so
# the counters reproduce the same figures exactly. The game-specific part stays the game's
# ``game_facts`` hook: its facts are already in this generic additive shape (counters, totals, seats,
# winners), so folding them needs nothing from the game.
#
# Counter names are JSON arrays (``["seat", 2, "wins"]``): any name or key a game uses is kept
# unambiguous, with its type (an int seat stays an int).

LEADERS = 20
# A leader's score in a sorted set: wins first, then games (fewer than this many per player).
LEADER_SCALE = 10_000_000


def _field(*parts: Any) -> str:
    import orjson

    return orjson.dumps(list(parts)).decode()


def _parts(field: str) -> list[Any]:
    import orjson

    parts: list[Any] = orjson.loads(field)
    return parts


def _bump(into: dict[str, int], field: str, amount: int = 1) -> None:
    # Zeros are kept too: the aggregators list a counter a game mentioned even when it counts 0.
    into[field] = into.get(field, 0) + amount


def overall_increments(facts: Mapping[str, Any]) -> dict[str, int]:
    """The counters one game adds to its engine's global statistics (see :class:`GlobalStats`)."""
    out: dict[str, int] = {}
    seats = facts["seats"]
    winners = facts.get("winners") or ()
    _bump(out, _field("games"))
    _bump(out, _field("players", seats))
    _bump(out, _field("outcome", facts.get("outcome") or "unknown"))
    first = facts.get("first_seat")
    if first is not None:
        _bump(out, _field("first", "games"))
        _bump(out, _field("first", "wins"), int(first in winners))
        # Kept per number of seats: the expected rate is sum(len(winners) / seats), exactly.
        _bump(out, _field("first", "expected", seats), len(winners))
    for seat in range(seats):
        _bump(out, _field("seat", seat, "games"))
        _bump(out, _field("seat", seat, "wins"), int(seat in winners))
    for name, counts in (facts.get("counters") or {}).items():
        # The name alone, at 0: a counter a game mentioned with no keys (no region captured)
        # is still listed, empty, as the aggregator that reads every log lists it.
        _bump(out, _field("counter_name", name), 0)
        for key, count in counts.items():
            _bump(out, _field("counter", name, key), count)
    _bump(out, _field("chapters", int(facts.get("chapters") or 0)))
    _bump(out, _field("events", int(facts.get("events") or 0)))
    return out


def player_increments(facts: Mapping[str, Any], seats: Sequence[int]) -> dict[str, int]:
    """The counters one game adds to a player who held ``seats`` (see :class:`PlayerStats`)."""
    out: dict[str, int] = {}
    count = facts["seats"]
    winners = set(facts.get("winners") or ())
    seat_counters = facts.get("seat_counters") or [{}] * count
    seat_totals = facts.get("seat_totals") or [{}] * count
    for seat in seats:
        won = int(seat in winners)
        _bump(out, _field("games"))
        _bump(out, _field("wins"), won)
        for table, key in (("by_seat", seat), ("by_player_count", count)):
            _bump(out, _field(table, key, "games"))
            _bump(out, _field(table, key, "wins"), won)
        for name, counts in seat_counters[seat].items():
            _bump(out, _field("counter_name", name), 0)  # listed even when empty (see above)
            for key, amount in counts.items():
                _bump(out, _field("counter", name, key), amount)
        for key, amount in seat_totals[seat].items():
            _bump(out, _field("total", key), amount)
    return out


@dataclass(frozen=True)
class GameCounts:
    """Everything one archived game adds to the statistics of its engine."""

    overall: dict[str, int]
    players: dict[str, dict[str, int]]  # case-folded name -> counters
    leaders: dict[str, int]  # seat name as written -> leader score increment
    spellings: dict[str, str]  # case-folded name -> the spelling in this game


def game_counts(facts: Mapping[str, Any], names: Sequence[str | None]) -> GameCounts:
    """One game's increments: global, per player (names matched case-insensitively, as the player
    statistics do) and the leader board (names as written, as the global statistics list them)."""
    count = facts["seats"]
    winners = set(facts.get("winners") or ())
    by_player: dict[str, list[int]] = {}
    spellings: dict[str, str] = {}
    leaders: dict[str, int] = {}
    for seat in range(count):
        name = names[seat] if seat < len(names) else None
        if not name:
            continue
        by_player.setdefault(name.casefold(), []).append(seat)
        spellings.setdefault(name.casefold(), name)
        leaders[name] = leaders.get(name, 0) + LEADER_SCALE * int(seat in winners) + 1
    return GameCounts(
        overall=overall_increments(facts),
        players={folded: player_increments(facts, seats) for folded, seats in by_player.items()},
        leaders=leaders,
        spellings=spellings,
    )


def distribution_of_counts(counts: Mapping[int, int], buckets: int = LENGTH_BUCKETS) -> dict[str, Any]:
    """:func:`distribution` of a multiset given as value -> how many times (without expanding it)."""
    total = sum(counts.values())
    if not total:
        return distribution([], buckets)
    ordered = sorted(counts.items())
    low, high = ordered[0][0], ordered[-1][0]
    width = max(1, -(-(high - low + 1) // buckets))
    histogram: Counter[int] = Counter()
    for value, n in ordered:
        histogram[(value - low) // width] += n

    def percentile(percent: int) -> int:
        rank = max(1, -(-percent * total // 100))
        seen = 0
        for value, n in ordered:
            seen += n
            if seen >= rank:
                return value
        return high

    return {
        "count": total,
        "min": low,
        "max": high,
        "mean": round(sum(value * n for value, n in ordered) / total, 3),
        "median": percentile(50),
        "p90": percentile(90),
        "histogram": [
            {"from": low + i * width, "to": low + (i + 1) * width - 1, "count": histogram.get(i, 0)}
            for i in range((high - low) // width + 1)
        ],
    }


def overall_result(counters: Mapping[str, int], leaders: Sequence[tuple[str, int]]) -> dict[str, Any]:
    """:meth:`GlobalStats.result` (plus ``leaders``) from the kept counters and the leader board
    (name, score), best first."""
    from fractions import Fraction

    overall = GlobalStats()
    expected = Fraction(0)
    chapters: dict[int, int] = {}
    events: dict[int, int] = {}
    for field, n in counters.items():
        parts = _parts(field)
        head = parts[0]
        if head == "games":
            overall.games = n
        elif head == "players":
            overall.by_player_count[parts[1]] += n
        elif head == "outcome":
            overall.outcomes[parts[1]] += n
        elif head == "first":
            if parts[1] == "games":
                overall.first_seat_games = n
            elif parts[1] == "wins":
                overall.first_seat_wins = n
            else:
                expected += Fraction(n, parts[2]) if parts[2] else 0
        elif head == "seat":
            row = overall.seat_wins.setdefault(parts[1], [0, 0])
            row[0 if parts[2] == "games" else 1] += n
        elif head == "counter":
            overall.counters.setdefault(parts[1], Counter())[parts[2]] += n
        elif head == "counter_name":
            overall.counters.setdefault(parts[1], Counter())
        elif head == "chapters":
            chapters[parts[1]] = n
        elif head == "events":
            events[parts[1]] = n
    overall.first_seat_expected = float(expected)
    body = overall.result()
    body["length"] = {"chapters": distribution_of_counts(chapters), "events": distribution_of_counts(events)}
    body["leaders"] = [
        {
            "name": name,
            "games": score % LEADER_SCALE,
            "wins": score // LEADER_SCALE,
            "win_rate": _rate(score // LEADER_SCALE, score % LEADER_SCALE),
        }
        for name, score in leaders
    ]
    return body


def player_result(counters: Mapping[str, int]) -> dict[str, Any] | None:
    """One player's :meth:`PlayerStats.result` row from the kept counters (None: no game)."""
    if not counters.get(_field("games")):
        return None
    players = PlayerStats()
    entry = players.players["_"] = _new_player()
    for field, n in counters.items():
        parts = _parts(field)
        head = parts[0]
        if head in ("games", "wins"):
            entry[head] = n
        elif head in ("by_seat", "by_player_count"):
            row = entry[head].setdefault(parts[1], [0, 0])
            row[0 if parts[2] == "games" else 1] += n
        elif head == "counter":
            entry["counters"].setdefault(parts[1], Counter())[parts[2]] += n
        elif head == "counter_name":
            entry["counters"].setdefault(parts[1], Counter())
        elif head == "total":
            entry["totals"][parts[1]] += n
    result: dict[str, Any] = players.result()["_"]
    return result


def no_games_result() -> dict[str, Any]:
    """The :func:`player_result` row of a player with no game (an account that has played none)."""
    players = PlayerStats()
    players.players["_"] = _new_player()
    result: dict[str, Any] = players.result()["_"]
    return result


def field_head(field: str) -> Any:
    """What a kept counter's field counts (its first part: ``games``, ``by_seat``, ``counter``...)."""
    return _parts(field)[0]


def best_leaders(scored: Sequence[tuple[str, int]], top: int = LEADERS) -> list[tuple[str, int]]:
    """The leader board's order (most wins, then most games, then name) of (name, score) pairs."""
    return sorted(scored, key=lambda item: (-item[1], item[0]))[:top]
