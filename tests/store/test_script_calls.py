"""Every Lua script of the store is called through one typed wrapper (a ``store.scripts.ScriptCall``
such as ``AppendCall``) that names its KEYS and its fixed ARGV: each wrapper's arity matches what
its Lua reads. And the store's parts are built once per connection."""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

import pytest

from store import GameStore, parts, scripts

ROOT = Path(__file__).resolve().parents[2]


def _body(call: type[scripts.ScriptCall]) -> str:
    """The script without its shared prelude (whose KEYS and ARGV positions are computed)."""
    assert call.SCRIPT.startswith(call.PRELUDE)
    return call.SCRIPT[len(call.PRELUDE) :]


def _highest(source: str, table: str) -> int:
    return max((int(n) for n in re.findall(rf"\b{table}\[(\d+)\]", source)), default=0)


def _all_calls() -> list[type[scripts.ScriptCall]]:
    """Every typed call of the store: the subclasses of ``ScriptCall`` in its modules."""
    for path in sorted((ROOT / "store").glob("*.py")):
        importlib.import_module(f"store.{path.stem}")
    found: list[type[scripts.ScriptCall]] = []
    pending = list(scripts.ScriptCall.__subclasses__())
    while pending:
        call = pending.pop()
        pending.extend(call.__subclasses__())
        # dataclass(slots=True) makes a new class: the one its module names is the call.
        if getattr(sys.modules[call.__module__], call.__name__, None) is call:
            found.append(call)
    return sorted(found, key=lambda call: (call.__module__, call.__name__))


CALLS = _all_calls()


def _name(call: type[scripts.ScriptCall]) -> str:
    return f"{call.__module__.removeprefix('store.')}.{call.__name__}"


@pytest.mark.parametrize("call", CALLS, ids=_name)
def test_each_wrapper_names_every_key_and_fixed_argument_its_lua_reads(call):
    names = [f.name for f in fields(call)]
    body = _body(call)
    assert _highest(body, "KEYS") == len(call.KEYS)
    if "rest_keys" not in names:  # else the keys after the named ones are read in a loop
        assert not re.search(r"KEYS\[[^\]\d]", call.SCRIPT), "a computed KEYS index"
    assert _highest(body, "ARGV") == len(call.arg_names())


@pytest.mark.parametrize("call", CALLS, ids=_name)
def test_each_wrapper_sends_keys_and_arguments_in_its_declared_order(call):
    names = [f.name for f in fields(call)]
    tails = {"rest": ["tail"], "rest_keys": ["key tail"]}
    made = call(**{name: tails.get(name, name) for name in names})
    named_keys = names[: len(call.KEYS)]
    assert list(call.KEYS) == named_keys
    assert made.keys() == [*named_keys, *(["key tail"] if "rest_keys" in names else [])]
    fixed = [name for name in names[len(call.KEYS) :] if name not in tails]
    assert list(call.arg_names()) == fixed
    assert made.args() == [*fixed, "tail"]


def test_the_arity_check_sees_a_wrapper_that_drifts_from_its_lua():
    body = "return {KEYS[3], ARGV[4], ARGV[11]}"
    assert (_highest(body, "KEYS"), _highest(body, "ARGV")) == (3, 11)
    assert _highest(_body(scripts.AppendCall), "ARGV") != len(scripts.RotateCall.arg_names())


def test_every_script_runs_through_its_typed_call():
    """The store registers a script in one place (``store.scripts.bind``, given a typed call),
    so no part runs a script with bare positional keys and arguments."""
    bare = {
        path.name: len(re.findall(r"register_script\(", path.read_text()))
        for path in sorted((ROOT / "store").glob("*.py"))
        if path.name != "scripts.py"
    }
    assert {name: n for name, n in bare.items() if n} == {}
    assert len(re.findall(r"register_script\(", (ROOT / "store" / "scripts.py").read_text())) == 1


def test_every_lua_script_of_the_store_has_a_typed_call():
    """Each module-level Lua script (a string that calls ``redis.call``) is some call's SCRIPT."""
    wrapped = {call.SCRIPT for call in CALLS}
    unwrapped = []
    for path in sorted((ROOT / "store").glob("*.py")):
        module = importlib.import_module(f"store.{path.stem}")
        for name, value in vars(module).items():
            if isinstance(value, str) and "redis.call(" in value and name.isupper():
                if value not in wrapped and not any(value in script for script in wrapped):
                    unwrapped.append(f"{path.stem}.{name}")
    assert unwrapped == []


def test_a_part_is_built_once_per_connection(redis_client):
    store = GameStore(redis_client)
    assert parts.outbox(store) is parts.outbox(store)
    assert parts.accounts(store) is parts.accounts(GameStore(redis_client))  # the same client
    assert parts.archive(store, engines=("a",)) is not parts.archive(store)
    if hasattr(redis_client, "connection_pool"):  # a cluster client has a pool per node instead
        other = GameStore(redis_client.__class__(connection_pool=redis_client.connection_pool))
        assert parts.outbox(other) is not parts.outbox(store)


def test_a_calls_readers_are_its_own_not_its_parents():
    """A call reads its own KEYS and ARGV, even when a parent call's readers (put on the parent's
    class at its first call) were built first."""

    @dataclass(frozen=True, slots=True)
    class Parent(scripts.ScriptCall):
        SCRIPT: ClassVar[str] = "return KEYS[1] .. ARGV[1]"
        KEYS: ClassVar[tuple[str, ...]] = ("first",)
        first: str
        one: str
        rest: Any = ()

    @dataclass(frozen=True, slots=True)
    class Child(Parent):
        KEYS: ClassVar[tuple[str, ...]] = ("first", "second")
        second: str = "k2"
        two: str = "a2"

    assert Parent(first="k1", one="a1").keys() == ["k1"]
    assert Parent(first="k1", one="a1", rest=("r",)).args() == ["a1", "r"]
    assert Child(first="k1", one="a1").keys() == ["k1", "k2"]
    assert Child(first="k1", one="a1").args() == ["a1", "a2"]
