"""The stricter durability mode (issue 13, ``REDIS_WAIT_REPLICAS``): a change is answered only once a
replica of its master holds it, so a failover cannot lose an acknowledged move. Behaviour, not
timing; bench/failover.py measures its cost and the loss with and without it."""

from __future__ import annotations

import os
import signal

import pytest
import redis
import redis.cluster

from store import GameStore, game_keys
from store.errors import STORE_UNAVAILABLE, NotReplicated
from tests.store.test_event_store import GAME, append, started_game


@pytest.fixture()
def strict(redis_client, monkeypatch):
    # Generous: a loaded CI machine once took over 200 ms to replicate one append.
    monkeypatch.setenv("REDIS_WAIT_REPLICAS", "1")
    monkeypatch.setenv("REDIS_WAIT_TIMEOUT_MS", "2000")
    return GameStore(redis_client)


def lenient(redis_client) -> GameStore:
    """A store that does not wait (sets the game up whatever the topology)."""
    store = GameStore(redis_client)
    store.wait_replicas = 0
    return store


def replica_port(redis_client, key: str) -> int:
    """The port of the (one) replica of the key's master."""
    info = redis_client.get_node_from_key(key).redis_connection.info("replication")
    assert int(info["connected_slaves"]) >= 1, info
    return int(info["slave0"]["port"])


def replica_stream_length(redis_client, key: str) -> int:
    """XLEN read on a replica of the key's master (one connection: READONLY, then the read)."""
    port = replica_port(redis_client, key)
    with redis.Redis(host="127.0.0.1", port=port, single_connection_client=True) as replica:
        assert replica.info("replication")["role"] == "slave"
        replica.execute_command("READONLY")
        return int(replica.xlen(key))


def test_an_acknowledged_append_is_already_on_a_replica(redis_topology, redis_server, redis_client, strict):
    if redis_topology != "cluster":
        pytest.skip("needs replicas: the private cluster has one per master (--redis-topology=cluster)")
    started_game(strict)
    events = game_keys(GAME).events
    for version in range(2, 12):
        assert append(strict, version).outcome == "ok"
        # No waiting here: the answer itself came after a replica had the entry.
        assert replica_stream_length(redis_client, events) == version + 1
    assert append(strict, 11).outcome == "conflict"  # a refusal is answered as before

    # A replica that cannot keep up (its process stopped for a moment): the asynchronous store
    # acknowledges the append, the strict one does not (503), though the master applied both.
    replica = redis_server.processes[replica_port(redis_client, events)]
    os.kill(replica.pid, signal.SIGSTOP)
    try:
        assert append(lenient(redis_client), 12).outcome == "ok"
        with pytest.raises(NotReplicated):
            append(strict, 13)
    finally:
        os.kill(replica.pid, signal.SIGCONT)
    assert redis_client.xlen(events) == 14


def test_without_a_replica_no_change_is_acknowledged(redis_topology, redis_client, strict):
    """A single server has no replica: every change is applied on it but answered as the store being
    unavailable (the API's 503 with Retry-After), a replayed answer too; refusals answer as usual."""
    if redis_topology == "cluster":
        pytest.skip("every master of the private cluster has a replica")
    started_game(lenient(redis_client))
    assert issubclass(NotReplicated, STORE_UNAVAILABLE)
    with pytest.raises(NotReplicated):
        append(strict, 2, idempotency_field="0:k", fingerprint="f", response={"r": 1}, seat=None)
    assert redis_client.xlen(game_keys(GAME).events) == 3  # applied on the master all the same
    with pytest.raises(NotReplicated):
        append(strict, 2, idempotency_field="0:k", fingerprint="f", response={"r": 1}, seat=None)
    assert append(strict, 2).outcome == "conflict"


def test_the_api_answers_503_with_retry_after_when_no_replica_acknowledges(
    redis_topology, redis_server, redis_client, monkeypatch
):
    if redis_topology == "cluster":
        pytest.skip("every master of the private cluster has a replica")
    from api import create_app
    from tests.api import toy_game
    from tests.api.conftest import Table

    with toy_game.registered():
        app = create_app({"REDIS_URL": redis_server.url, "TESTING": True})
        table = Table(app.test_client())  # created and claimed before the strict mode is on
        monkeypatch.setenv("REDIS_WAIT_REPLICAS", "1")
        monkeypatch.setenv("REDIS_WAIT_TIMEOUT_MS", "100")
        strict = create_app({"REDIS_URL": redis_server.url, "TESTING": True}).test_client()
        hand = table.view(0)["view"]["hand"]
        answer = strict.post(
            f"/v1/games/{table.id}/moves",
            json={"command": {"type": "play", "card": hand[0]}},
            headers={**table.auth(0), "Idempotency-Key": "w-1"},
        )
        assert answer.status_code == 503 and answer.headers["Retry-After"]
        assert answer.get_json()["code"] == "STORE_UNAVAILABLE"
        app.extensions["game_service"].live.close()
