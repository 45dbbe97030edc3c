"""The one module of the product that uses redis-py's private or undocumented API (the adapter
rule; docs/architecture.md, "Private APIs of dependencies"). Tested with redis-py 7.4
(pyproject.toml pins ``redis[hiredis]>=7.4,<7.5``; tests/test_dependency_pins.py fails on another
version). What it uses, and why:

- ``redis._parsers.helpers._RedisCallbacks``, ``_RedisCallbacksRESP2``, ``_RedisCallbacksRESP3``
  (private tables) and ``RedisCluster.cluster_response_callbacks``: MULTI/EXEC replies of a cluster
  pipeline parsed as a plain client's would be (a correctness repair, not a speed-up);
- ``RedisCluster.commands_parser.get_keys`` wrapped: script and XREAD keys read from the call
  instead of one ``COMMAND GETKEYS`` round trip each (not measured: a cluster only, the bench runs
  one Redis).

Everything else of the store uses redis-py's public API: the single-server pool is redis-py's
``BlockingConnectionPool`` with ``get_connection``/``release`` (``store.script_runs._evalsha``).
Tests: tests/cluster/.

redis-py's cluster client, with the two repairs the store needs.

Inside a MULTI/EXEC pipeline, redis-py's ``RedisCluster`` (7.x) applies only its cluster-specific
response callbacks to the EXEC reply, so ``HGETALL`` comes back as a flat ``[field, value, ...]``
list, ``XRANGE`` entries as raw lists, ``SET`` as ``b"OK"``: the store's consistent reads would
misread every one of them. :class:`ClusterClient` gives its transaction pipelines the ordinary
client's callbacks as well (a non-transaction pipeline already parses each reply on its node, so it
keeps redis-py's own table: applying a callback twice would break it). And it would ask the server for
the keys of every script call in a pipeline and of every XREAD (one more round trip each): it reads
them from the call instead."""

from __future__ import annotations

from typing import Any

import redis.cluster
from redis._parsers.helpers import _RedisCallbacks, _RedisCallbacksRESP2, _RedisCallbacksRESP3
from redis.client import CaseInsensitiveDict


class ClusterClient(redis.cluster.RedisCluster):  # type: ignore[misc]  # redis-py's cluster is untyped
    """``RedisCluster`` whose MULTI/EXEC pipelines answer as a plain ``Redis`` pipeline does, and
    which routes script calls and XREADs without asking the server for their keys."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.commands_parser.get_keys = _script_keys_first(self.commands_parser.get_keys)

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        if transaction:
            pipe.cluster_response_callbacks = self._transaction_callbacks()
        return pipe

    def _transaction_callbacks(self) -> CaseInsensitiveDict:
        cached = getattr(self, "_merged_callbacks", None)
        if cached is None:
            plain = dict(_RedisCallbacks)
            resp3 = str(self.nodes_manager.connection_kwargs.get("protocol")) == "3"
            plain.update(_RedisCallbacksRESP3 if resp3 else _RedisCallbacksRESP2)
            cached = CaseInsensitiveDict({name: _without_keys(cb) for name, cb in plain.items()})
            cached.update(self.cluster_response_callbacks)
            self._merged_callbacks = cached
        return cached


def _without_keys(callback: Any) -> Any:
    # The cluster pipeline passes each command's options, "keys" (its routing hint) included, which
    # the plain callbacks do not take; a plain pipeline drops it first.
    def call(response: Any, **options: Any) -> Any:
        options.pop("keys", None)
        return callback(response, **options)

    return call


def _script_keys_first(get_keys: Any) -> Any:
    # redis-py 7 looks up the keys of every command it routes; for the commands whose keys "move"
    # (EVALSHA in a pipeline, XREAD always) it asks the server with COMMAND GETKEYS, one more round
    # trip per call: a move that records follow-up work cost two, and the live listener's XREAD
    # poll three per watched game. The keys are right there in the arguments.
    def keys(redis_conn: Any, *args: Any) -> Any:
        name = _word(args[0])
        if name in ("EVAL", "EVALSHA") and len(args) > 2:
            return list(args[3 : 3 + int(args[2])])
        if name == "XREAD":
            words = [_word(a) for a in args]
            if "STREAMS" in words:
                rest = args[words.index("STREAMS") + 1 :]
                return list(rest[: len(rest) // 2])
        return get_keys(redis_conn, *args)

    return keys


def _word(arg: Any) -> Any:
    if isinstance(arg, bytes):
        arg = arg.decode(errors="replace")
    return arg.upper() if isinstance(arg, str) else arg


def is_cluster(client: Any) -> bool:
    """``isinstance(client, RedisCluster)``, remembered per class: redis-py's cluster client derives
    from a typing Protocol, so the check went through typing's and abc's hooks (0.34 us) on every
    append."""
    kind = type(client)
    known = _CLUSTER_CLASSES.get(kind)
    if known is None:
        known = _CLUSTER_CLASSES[kind] = isinstance(client, redis.cluster.RedisCluster)
    return known


_CLUSTER_CLASSES: dict[type, bool] = {}
