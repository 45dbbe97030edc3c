"""redis-py's cluster client, with the two repairs the store needs.

Inside a MULTI/EXEC pipeline, redis-py's ``RedisCluster`` (7.x) applies only its cluster-specific
response callbacks to the EXEC reply, so ``HGETALL`` comes back as a flat ``[field, value, ...]``
list, ``XRANGE`` entries as raw lists, ``SET`` as ``b"OK"``: the store's consistent reads would
misread every one of them. :class:`ClusterClient` gives its transaction pipelines the ordinary
client's callbacks as well (a non-transaction pipeline already parses each reply on its node, so it
keeps redis-py's own table: applying a callback twice would break it). And its pipelines would ask
the server for the keys of every script call (one more round trip each): they read them from the
call instead."""

from __future__ import annotations

from typing import Any

import redis.cluster
from redis._parsers.helpers import _RedisCallbacks, _RedisCallbacksRESP2, _RedisCallbacksRESP3
from redis.client import CaseInsensitiveDict


class ClusterClient(redis.cluster.RedisCluster):  # type: ignore[misc]  # redis-py's cluster is untyped
    """``RedisCluster`` whose MULTI/EXEC pipelines answer as a plain ``Redis`` pipeline does, and
    whose pipelines route a script call without asking the server for its keys."""

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
    # A pipeline of redis-py 7 looks up the keys of every command it routes; for EVALSHA (whose keys
    # "move") that costs a COMMAND GETKEYS round trip per call, doubling the cost of a move that
    # records follow-up work. The keys are right there: EVALSHA sha numkeys key... (redis-py's
    # direct calls already read them so).
    def keys(redis_conn: Any, *args: Any) -> Any:
        name = args[0].upper() if isinstance(args[0], str) else args[0]
        if name in ("EVAL", "EVALSHA") and len(args) > 2:
            return list(args[3 : 3 + int(args[2])])
        return get_keys(redis_conn, *args)

    return keys
