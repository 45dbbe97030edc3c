"""The Lua scripts that change a game are called through one typed wrapper each
(store.scripts.AppendCall, ClaimCall, RotateCall) that names its KEYS and its fixed ARGV: each
wrapper's arity matches what its Lua reads. And the store's parts are built once per connection."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from store import GameStore, bound_games, parts, scripts, tournaments

ROOT = Path(__file__).resolve().parents[2]


def _body(source: str) -> str:
    """The script without the shared prelude (whose ARGV positions are computed, not literal)."""
    return source[len(scripts._WRITE_EVENTS) :] if source.startswith(scripts._WRITE_EVENTS) else source


def _highest(source: str, table: str) -> int:
    return max((int(n) for n in re.findall(rf"\b{table}\[(\d+)\]", _body(source))), default=0)


# Parts whose scripts all have their wrapper: a ``CALLS`` tuple, registered in one loop.
WRAPPED = {"bound_games.py": bound_games.CALLS, "tournaments.py": tournaments.CALLS}
ALL_CALLS = (*scripts.CALLS, *(call for calls in WRAPPED.values() for call in calls))


@pytest.mark.parametrize("call", ALL_CALLS, ids=lambda call: call.__name__)
def test_each_wrapper_names_every_key_and_fixed_argument_its_lua_reads(call):
    assert _highest(call.SCRIPT, "KEYS") == len(call.KEYS)
    assert _highest(call.SCRIPT, "ARGV") == len(call.arg_names())


@pytest.mark.parametrize("call", ALL_CALLS, ids=lambda call: call.__name__)
def test_each_wrapper_sends_keys_and_arguments_in_its_declared_order(call):
    names = [f.name for f in fields(call)]
    made = call(**{name: name for name in names if name != "rest"}, rest=["tail"])
    assert made.keys() == list(call.KEYS) == names[: len(call.KEYS)]
    assert made.args() == [*names[len(call.KEYS) : -1], "tail"]


def test_the_arity_check_sees_a_wrapper_that_drifts_from_its_lua():
    body = "return {KEYS[3], ARGV[4], ARGV[11]}"
    assert (_highest(body, "KEYS"), _highest(body, "ARGV")) == (3, 11)
    assert _highest(scripts.APPEND, "ARGV") != len(scripts.RotateCall.arg_names())


# The store's other scripts, run by their own part on a few call sites each: not wrapped yet.
NOT_WRAPPED_YET = {
    "account_deletion.py": 1,
    "accounts.py": 6,
    "archive.py": 3,
    "bot_accounts.py": 1,
    "challenges.py": 3,
    "chat.py": 1,
    "compact.py": 2,
    "jobs.py": 3,
    "outbox.py": 4,
    "passes.py": 1,
    "ratings.py": 1,
    "seat_changes.py": 2,
    "seeks.py": 5,
    "webhooks.py": 9,
}


def test_every_other_script_is_listed_until_it_has_its_wrapper():
    registered = {
        path.name: len(re.findall(r"register_script\(", path.read_text()))
        for path in sorted((ROOT / "store").glob("*.py"))
    }
    assert registered.pop("games.py") == len(scripts.CALLS)
    for name in WRAPPED:
        assert registered.pop(name) == 1  # ``{call: register_script(call.SCRIPT) for call in CALLS}``
    assert {name: n for name, n in registered.items() if n} == NOT_WRAPPED_YET


def test_a_part_is_built_once_per_connection(redis_client):
    store = GameStore(redis_client)
    assert parts.outbox(store) is parts.outbox(store)
    assert parts.accounts(store) is parts.accounts(GameStore(redis_client))  # the same client
    assert parts.archive(store, engines=("a",)) is not parts.archive(store)
    if hasattr(redis_client, "connection_pool"):  # a cluster client has a pool per node instead
        other = GameStore(redis_client.__class__(connection_pool=redis_client.connection_pool))
        assert parts.outbox(other) is not parts.outbox(store)
