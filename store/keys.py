"""Redis key layout. Every key of one game carries the hash tag ``{g:<id>}`` so the keys of a game
live in one Cluster slot and one Lua script may touch them all. Cross-game indexes are plain keys
that are never touched inside a per-game script."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class GameKeys:
    events: str  # stream: entry ID "<version>-1", field "e" = event JSON
    snapshot: str  # string: JSON {"version": n, "state": ...}
    meta: str  # hash: public metadata (name, public config, status, seats, version, times)
    seats: str  # hash: seat -> sha256(token) hex
    idem: str  # hash: "<seat>:<idempotency key>" -> "<fingerprint>\n<response JSON>"
    config: str  # string: the full configuration (seed included): secret until the game starts
    outbox: str  # hash: follow-up action -> the version/status it is for (store/outbox.py)
    log: str  # string: a finished game's whole log, compressed, once compacted (store/compact.py)


@lru_cache(maxsize=4096)  # the live games' keys, asked for on every move and every live read
def game_keys(game_id: str) -> GameKeys:
    tag = f"{{g:{game_id}}}"
    return GameKeys(
        events=f"game:{tag}:events",
        snapshot=f"game:{tag}:snapshot",
        meta=f"game:{tag}:meta",
        seats=f"game:{tag}:seats",
        idem=f"game:{tag}:idem",
        config=f"game:{tag}:config",
        outbox=f"game:{tag}:outbox",
        log=f"game:{tag}:log",
    )


def stream_ticket(game_id: str, ticket_hash: str) -> str:
    """A stream ticket of one game (string: the seat), found only under the game it was issued for."""
    return f"game:{{g:{game_id}}}:ticket:{ticket_hash}"


def device_link(game_id: str, code_hash: str) -> str:
    """A one-time device link of one game (string: the seat it hands over), found only under its game."""
    return f"game:{{g:{game_id}}}:device:{code_hash}"


def device_links_of_seat(game_id: str, seat: int) -> str:
    """A seat's live device links (sorted set: code hash -> expiry ms), which bounds how many it holds."""
    return f"game:{{g:{game_id}}}:devices:{seat}"


# Cross-game index: one sorted set per engine and status, whose members all have score 0, ordered by
# member (the game id, which is time-sortable), so "newest first" is ZRANGE ... BYLEX REV and a cursor
# is a game id. A game is in exactly one of them; the listings across engines or statuses merge a
# few of them (``store.games.GameStore.list_ids``) instead of keeping a game in four sets: each
# entry of a big sorted set costs about 129 bytes, kept for every finished game (bench/memory.py).
INDEX_NAMES = "games:index:names"  # set: the engines that have ever had a game (a handful)
STATUSES = ("open", "active", "finished")


def index_by_game_status(name: str, status: str) -> str:
    return f"games:index:game:{name}:status:{status}"


# Timed games: game id -> the time (ms since the epoch) of its next deadline. Written after each
# append of a timed game (and repaired by the enforcers' rescan); read by ``worker.clocks``.
CLOCKS_DUE = "clocks:due"
