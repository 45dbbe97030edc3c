"""One filter grammar for the archive and the statistics (docs/statistics.md, "Filters").

The names and meanings are the archive's (``/v1/archive``): ``player`` (repeatable: games with all
of them), ``account``, ``ruleset``, ``option`` (repeatable: all on), ``players`` (seats),
``winner``, ``outcome``, ``finished_from``/``finished_to`` and ``prearranged``; the statistics add
``rating_min``/``rating_max`` (every seat rated, within the band, when the game started) and
``table`` (``humans``: no server bot; ``bots``: only server bots; ``mixed``: both).

:func:`parse` turns a request's query (names -> lists of strings) into :class:`Filters` or raises
:class:`FilterProblem` with a stable code; :func:`where` turns filters into SQL over the analytical
store's ``games`` table (``store.facts``), with parameters, never with the values spliced in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from marshmallow import fields

RATING_LIMIT = 1000.0  # ratings are ordinals near 0..60; a band past this is a mistake
TABLES = ("humans", "bots", "mixed")
REPEATABLE = ("player", "option")
NAMES = (
    "player",
    "account",
    "ruleset",
    "option",
    "players",
    "winner",
    "outcome",
    "finished_from",
    "finished_to",
    "prearranged",
    "rating_min",
    "rating_max",
    "table",
)


class FilterProblem(Exception):
    """A refused filter: a 422 with ``code`` (stable) and a sentence."""

    def __init__(self, code: str, message: str, name: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.name = name


@dataclass(frozen=True)
class Filters:
    player: tuple[str, ...] = ()
    account: str | None = None  # an account id (the API resolves the handle)
    ruleset: str | None = None
    option: tuple[str, ...] = ()
    players: int | None = None
    winner: str | None = None
    outcome: str | None = None
    finished_from: int | None = None  # ms, inclusive
    finished_to: int | None = None  # ms, inclusive
    prearranged: bool | None = None
    rating_min: float | None = None
    rating_max: float | None = None
    table: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    # The ``player`` names that are account handles, folded, with their account ids (the API
    # resolves them): such a name finds that account's seats only, never a same-named seat that
    # is not the account's (an anonymous one, or one from before the handle was taken).
    holders: Mapping[str, str] = field(default_factory=dict)

    def key(self) -> tuple[Any, ...]:
        """A hashable form (the cache's key)."""
        return (
            tuple(sorted(p.casefold() for p in self.player)),
            self.account,
            self.ruleset,
            tuple(sorted(self.option)),
            self.players,
            self.winner.casefold() if self.winner else None,
            self.outcome,
            self.finished_from,
            self.finished_to,
            self.prearranged,
            self.rating_min,
            self.rating_max,
            self.table,
            tuple(sorted(self.holders.items())),
        )

    def shown(self) -> dict[str, Any]:
        """The filters as an answer echoes them (only those given)."""
        out: dict[str, Any] = {}
        for name in NAMES:
            value = getattr(self, name)
            if value in (None, ()):
                continue
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


def _one(query: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = query.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise FilterProblem("FILTER_REPEATED", f"{name} may be given once.", name)
    return values[0]


def _number(value: str | None, name: str, kind: type) -> Any:
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        raise FilterProblem("INVALID_FILTER", f"{name} must be a number.", name) from None


def moment_ms(value: str, end_of_day: bool = False) -> int:
    """An ISO date or date-time in ms since the epoch (UTC when it names no zone); with
    ``end_of_day`` a bare date is its whole day (its last ms). ValueError when it is neither."""
    moment = datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    ms = int(moment.timestamp() * 1000)
    if end_of_day and len(value) == 10:  # a bare date: the whole day
        ms += 24 * 3600 * 1000 - 1
    return ms


def _moment(value: str | None, name: str, end_of_day: bool = False) -> int | None:
    if value is None:
        return None
    try:
        return moment_ms(value, end_of_day)
    except ValueError:
        raise FilterProblem("INVALID_FILTER", f"{name} must be an ISO date or date-time.", name) from None


def parse(query: Mapping[str, Sequence[str]], others: Sequence[str] = ()) -> Filters:
    """The filters of a request's ``query`` (each name -> the values given); ``others``: the names
    the route takes besides filters (``game``, ``cursor``...), left to it."""
    unknown = sorted(set(query) - set(NAMES) - set(others))
    if unknown:
        raise FilterProblem(
            "UNKNOWN_FILTER", f"Unknown filter {unknown[0]!r}; filters: {', '.join(NAMES)}.", unknown[0]
        )
    for name in REPEATABLE:
        for value in query.get(name) or ():
            if not 1 <= len(value) <= 64:
                raise FilterProblem("INVALID_FILTER", f"{name} has 1 to 64 characters.", name)
    players = _number(_one(query, "players"), "players", int)
    if players is not None and not 1 <= players <= 99:
        raise FilterProblem("INVALID_FILTER", "players is a number of seats from 1 to 99.", "players")
    prearranged_text = _one(query, "prearranged")
    prearranged = None
    if prearranged_text is not None:
        # The spellings the archive's schema accepts (marshmallow's Boolean)
        if prearranged_text in fields.Boolean.truthy:
            prearranged = True
        elif prearranged_text in fields.Boolean.falsy:
            prearranged = False
        else:
            raise FilterProblem("INVALID_FILTER", "prearranged is true or false.", "prearranged")
    start = _moment(_one(query, "finished_from"), "finished_from")
    end = _moment(_one(query, "finished_to"), "finished_to", end_of_day=True)
    if start is not None and end is not None and start > end:
        raise FilterProblem("DATE_RANGE_BACKWARDS", "finished_from is after finished_to.", "finished_from")
    low = _number(_one(query, "rating_min"), "rating_min", float)
    high = _number(_one(query, "rating_max"), "rating_max", float)
    for name, value in (("rating_min", low), ("rating_max", high)):
        if value is not None and not -RATING_LIMIT <= value <= RATING_LIMIT:
            raise FilterProblem(
                "RATING_BAND_OUT_OF_RANGE", f"{name} lies from {-RATING_LIMIT:g} to {RATING_LIMIT:g}.", name
            )
    if low is not None and high is not None and low > high:
        raise FilterProblem("RATING_BAND_OUT_OF_RANGE", "rating_min is above rating_max.", "rating_min")
    table = _one(query, "table")
    if table is not None and table not in TABLES:
        raise FilterProblem("INVALID_FILTER", f"table is one of {', '.join(TABLES)}.", "table")
    text = {name: _one(query, name) for name in ("account", "ruleset", "winner", "outcome")}
    for name, given in text.items():
        if given is not None and not 1 <= len(given) <= 200:
            raise FilterProblem("INVALID_FILTER", f"{name} has 1 to 200 characters.", name)
    return Filters(
        player=tuple(query.get("player") or ()),
        account=text["account"],
        ruleset=text["ruleset"],
        option=tuple(query.get("option") or ()),
        players=players,
        winner=text["winner"],
        outcome=text["outcome"],
        finished_from=start,
        finished_to=end,
        prearranged=prearranged,
        rating_min=low,
        rating_max=high,
        table=table,
    )


def resolve(filters: Filters, account_id_of: Callable[[str], str | None]) -> Filters:
    """``filters`` as a query reads them: ``account``'s handle replaced by its id (a handle nobody
    has matches no game) and the ``player`` names that are handles tied to their accounts, the
    same meaning in the archive's search and in every statistic."""
    account = filters.account
    if account is not None:
        account = account_id_of(account) or ""
    holders = {
        name.casefold(): owner for name in filters.player if (owner := account_id_of(name)) is not None
    }
    return replace(filters, account=account, holders=holders)


def where(filters: Filters, alias: str = "g") -> tuple[str, list[Any]]:
    """SQL conditions over the ``games`` rows (``alias``) matching ``filters``, and their
    parameters. Names match case-insensitively, as the archive's do."""
    sql: list[str] = []
    params: list[Any] = []
    for name in filters.player:
        holder = filters.holders.get(name.casefold())
        if holder is not None:
            sql.append(f"{alias}.game_id IN (SELECT game_id FROM seats WHERE account = ?)")
            params.append(holder)
        else:
            sql.append(f"{alias}.game_id IN (SELECT game_id FROM seats WHERE name_folded = ?)")
            params.append(name.casefold())
    if filters.account is not None:
        sql.append(f"{alias}.game_id IN (SELECT game_id FROM seats WHERE account = ?)")
        params.append(filters.account)
    if filters.ruleset is not None:
        sql.append(f"{alias}.ruleset = ?")
        params.append(filters.ruleset)
    for option in filters.option:
        sql.append(f"list_contains({alias}.options, ?)")
        params.append(option)
    if filters.players is not None:
        sql.append(f"{alias}.player_count = ?")
        params.append(filters.players)
    if filters.winner is not None:
        sql.append(f"{alias}.game_id IN (SELECT game_id FROM seats WHERE name_folded = ? AND won)")
        params.append(filters.winner.casefold())
    if filters.outcome is not None:
        sql.append(f"{alias}.outcome = ?")
        params.append(filters.outcome)
    if filters.finished_from is not None:
        sql.append(f"{alias}.finished >= make_timestamp_ms(?)")
        params.append(filters.finished_from)
    if filters.finished_to is not None:
        sql.append(f"{alias}.finished <= make_timestamp_ms(?)")
        params.append(filters.finished_to)
    if filters.prearranged is not None:
        sql.append(f"{alias}.prearranged = ?")
        params.append(filters.prearranged)
    if filters.rating_min is not None:
        sql.append(f"{alias}.rating_min >= ?")
        params.append(filters.rating_min)
    if filters.rating_max is not None:
        sql.append(f"{alias}.rating_max <= ?")
        params.append(filters.rating_max)
    if filters.table == "humans":
        sql.append(f"{alias}.bots = 0")
    elif filters.table == "bots":
        sql.append(f"{alias}.humans = 0")
    elif filters.table == "mixed":
        sql.append(f"{alias}.bots > 0 AND {alias}.humans > 0")
    return (" AND ".join(sql) or "TRUE"), params
