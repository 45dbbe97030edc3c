"""How the store runs the Lua scripts that change a game (``store.games.GameStore``): EVALSHA sent
directly on a pooled connection, pipelined with the follow-ups' hint when the change may record
work, or followed by ``WAIT`` when replicas must acknowledge it (``REDIS_WAIT_REPLICAS``)."""

from __future__ import annotations

from typing import Any, Protocol

import redis
import redis.cluster
from hiredis import pack_command  # redis[hiredis]: what redis-py packs commands with

from store.errors import NotReplicated
from store.outbox import HINTS, hint, now_ms, slot_of
from store.redis_adapter import is_cluster

# Script outcomes that acknowledge a change: the writes, and the replay of an earlier answer (which
# must not acknowledge a change no replica holds either). Refusals change nothing: nothing to wait for.
_WRITES = frozenset({"ok", "claimed", "started", "replay"}) | {
    o.encode() for o in ("ok", "claimed", "started", "replay")
}


class ScriptStore(Protocol):
    """What a run needs of the store (read at each call: a test may change ``wait_replicas``)."""

    redis: Any
    followup_grace_ms: int
    wait_replicas: int
    wait_timeout_ms: int


def run_recording(
    store: ScriptStore, script: Any, game_id: str, keys: list[str], args: list[Any], records: bool
) -> Any:
    """Run ``script``; when it may record follow-up work, hint the game's slot right after it in
    the same pipeline (one round trip; see ``store.outbox``). A refused change leaves a hint
    to a slot with nothing due: the sweeper drops it."""
    if store.wait_replicas > 0:
        reply = _run_replicated(store, script, keys, args)
        if records:
            store.redis.zadd(HINTS, {str(slot_of(game_id)): now_ms() + store.followup_grace_ms})
        return reply
    if not records:
        try:
            return _evalsha(store, script.sha, keys, args)
        except redis.exceptions.NoScriptError:
            return script(keys=keys, args=args)  # loads it, then runs it
    pipe = store.redis.pipeline(transaction=False)
    # EVALSHA directly: a pipeline given the Script object would first ask SCRIPT EXISTS (one
    # more round trip on every call). Through execute_command because redis-py's cluster
    # pipeline refuses its evalsha method outright; it routes the command by its keys all the
    # same (on a cluster the hint goes to its own slot's master in parallel: two round trips
    # when the slots live on two masters).
    pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
    hint(pipe, game_id, now_ms() + store.followup_grace_ms)
    try:
        return pipe.execute()[0]
    except redis.exceptions.NoScriptError:
        # Redis restarted or flushed its scripts. The failed EVALSHA changed nothing (the hint
        # did, harmlessly): run it again, loading it, then hint again.
        reply = script(keys=keys, args=args)
        store.redis.zadd(HINTS, {str(slot_of(game_id)): now_ms() + store.followup_grace_ms})
        return reply


def _evalsha(store: ScriptStore, sha: str, keys: list[str], args: list[Any]) -> Any:
    """EVALSHA on a connection of the client's pool, sent and read directly. redis-py's command
    path around it (its retry wrapper, deprecation checks and per-command metrics) cost more
    than the round trip itself in a profile of the hot path; the Script object also checks its client
    against a typing Protocol on every call. The pool still hands out a checked connection
    (reconnected when Redis closed it), and nothing is sent twice: redis-py's retry would run
    an append again after a reply was lost, turning a move that went through into a conflict.
    A cluster client routes by key: it keeps redis-py's path."""
    if is_cluster(store.redis):
        return store.redis.evalsha(sha, len(keys), *keys, *args)
    pool = store.redis.connection_pool
    connection = pool.get_connection()
    try:
        # Packed by hiredis itself, as redis-py's send_command would, without its wrapper.
        connection.send_packed_command([pack_command(("EVALSHA", sha, len(keys), *keys, *args))])
        return connection.read_response()
    except (redis.ConnectionError, redis.TimeoutError):
        connection.disconnect()  # a half-read reply must never reach the next command
        raise
    finally:
        pool.release(connection)


def _run_replicated(
    store: ScriptStore, script: Any, keys: list[str], args: list[Any], retried: bool = False
) -> Any:
    """``REDIS_WAIT_REPLICAS``: run ``script`` and ``WAIT`` for that many replicas on the same
    connection of the game's master (WAIT counts the writes of its own connection), in one
    round trip. A change that fewer replicas acknowledged in time raises ``NotReplicated``."""
    node = store.redis
    if isinstance(store.redis, redis.cluster.RedisCluster):
        node = store.redis.get_node_from_key(keys[0]).redis_connection
    pipe = node.pipeline(transaction=False)
    pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
    pipe.execute_command("WAIT", store.wait_replicas, store.wait_timeout_ms)
    try:
        reply, acknowledged = pipe.execute()
    except redis.exceptions.NoScriptError:
        if retried:
            raise
        node.script_load(script.script)  # the failed EVALSHA changed nothing
        return _run_replicated(store, script, keys, args, retried=True)
    except (redis.exceptions.AskError, redis.exceptions.ClusterDownError):
        # The slot moved (a failover) since the client learnt the map: nothing ran; learn it again.
        if retried or not isinstance(store.redis, redis.cluster.RedisCluster):
            raise
        store.redis.nodes_manager.initialize()
        return _run_replicated(store, script, keys, args, retried=True)
    outcome = reply[0] if isinstance(reply, list) and reply else None
    if outcome in _WRITES and int(acknowledged) < store.wait_replicas:
        raise NotReplicated(
            f"{acknowledged} of {store.wait_replicas} replicas acknowledged in {store.wait_timeout_ms} ms"
        )
    return reply
