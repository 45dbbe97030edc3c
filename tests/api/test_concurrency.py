"""Issue 3, item 7: many clients sending conflicting moves to one game at once, against a real
threaded HTTP server. Exactly one move wins each version, nothing is lost or doubled, and the fold
of the stored log equals the stored snapshot."""

from __future__ import annotations

import random
import threading

import orjson
import pytest
import requests
from werkzeug.serving import make_server

from games import get_game
from games.base import fold
from store import SNAPSHOT_INTERVAL, game_keys
from tests.api.toy_game import GAME as TOY

CLIENTS = 16


@pytest.fixture()
def server(app):
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(timeout=5)


def new_table(
    base: str, hand_size: int = 3, game: str = "toy", config: dict | None = None
) -> tuple[str, list[str]]:
    config = config if config is not None else {"hand_size": hand_size}
    created = requests.post(f"{base}/v1/games", json={"game": game, "config": config}).json()
    game_id = created["id"]
    tokens = [
        requests.post(f"{base}/v1/games/{game_id}/seats", json={"name": f"P{s}"}).json()["token"]
        for s in range(created["seat_count"])
    ]
    return game_id, tokens


def assert_log_consistent(redis_client, game_id: str, engine=TOY) -> list[dict]:
    keys = game_keys(game_id)
    entries = redis_client.xrange(keys.events)
    versions = [int(entry_id.split(b"-")[0]) for entry_id, _ in entries]
    assert versions == list(range(1, len(entries) + 1)), "stream versions must be contiguous from 1"
    events = [orjson.loads(fields[b"e"]) for _, fields in entries]
    snapshot = orjson.loads(redis_client.get(keys.snapshot))
    assert int(redis_client.hget(keys.meta, "version")) == len(events)
    # The snapshot is rewritten every SNAPSHOT_INTERVAL versions and at a change of status.
    assert 0 <= len(events) - snapshot["version"] < SNAPSHOT_INTERVAL
    if redis_client.hget(keys.meta, "status") == b"finished":
        assert snapshot["version"] == len(events)
    assert engine.state_to_json(fold(engine, events[: snapshot["version"]])) == snapshot["state"]
    return events


def hammer(base, game_id, tokens, pinned, results, seed, stop_at=10_000) -> None:
    rng = random.Random(seed)
    session = requests.Session()
    for _ in range(200):
        spectator = session.get(f"{base}/v1/games/{game_id}/view").json()
        if spectator["status"] == "finished" or spectator["version"] >= stop_at:
            return
        seat = rng.choice(spectator["view"]["awaiting"])
        view = session.get(
            f"{base}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {tokens[seat]}"}
        ).json()
        moves = view["view"]["legal_moves"]
        if not moves:
            continue
        body = {"command": rng.choice(moves)}
        if pinned:
            body["expected_version"] = view["version"]
        response = session.post(
            f"{base}/v1/games/{game_id}/moves", json=body, headers={"Authorization": f"Bearer {tokens[seat]}"}
        )
        results.append((response.status_code, response.json(), body))


@pytest.mark.parametrize("pinned", [True, False], ids=["expected_version", "unpinned"])
def test_conflicting_moves_exactly_one_wins_each_version(server, redis_client, pinned):
    game_id, tokens = new_table(server, hand_size=8)
    results: list = []
    threads = [
        threading.Thread(target=hammer, args=(server, game_id, tokens, pinned, results, seed))
        for seed in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    accepted = [body for status, body, _ in results if status == 200]
    refused = [(status, body["code"]) for status, body, _ in results if status != 200]
    allowed = (
        {(409, "VERSION_CONFLICT")}
        if pinned
        else {(422, "NOT_YOUR_TURN"), (422, "CARD_NOT_IN_HAND"), (422, "ALREADY_PASSED"), (422, "GAME_OVER")}
    )
    assert set(refused) <= allowed, set(refused) - allowed
    assert refused, "the clients did conflict"

    events = assert_log_consistent(redis_client, game_id)
    # Each accepted answer owns a distinct, contiguous run of versions; together they are exactly
    # the log after the 3 genesis events: nothing lost, nothing doubled.
    owned = sorted(e["version"] for body in accepted for e in body["events"])
    assert owned == list(range(4, len(events) + 1))
    player_events = [v for v, e in enumerate(events, 1) if v > 3 and not e.get("auto")]
    assert len(player_events) == len(accepted)
    assert requests.get(f"{server}/v1/games/{game_id}").json()["status"] == "finished"


def test_concurrent_retries_with_one_idempotency_key_apply_once(server, redis_client):
    game_id, tokens = new_table(server, hand_size=3)
    headers = {"Authorization": f"Bearer {tokens[0]}", "Idempotency-Key": "same-move"}
    card = requests.get(f"{server}/v1/games/{game_id}/view", headers=headers).json()["view"]["hand"][0]
    answers: list = []
    barrier = threading.Barrier(CLIENTS)

    def send():
        barrier.wait()
        response = requests.post(
            f"{server}/v1/games/{game_id}/moves",
            json={"command": {"type": "play", "card": card}},
            headers=headers,
        )
        answers.append((response.status_code, response.headers.get("Idempotent-Replayed"), response.json()))

    threads = [threading.Thread(target=send) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == CLIENTS
    assert {status for status, _, _ in answers} == {200}
    assert sum(1 for _, replayed, _ in answers if replayed != "true") == 1
    assert len({orjson.dumps(body, option=orjson.OPT_SORT_KEYS) for _, _, body in answers}) == 1
    assert len(assert_log_consistent(redis_client, game_id)) == 4


CONDOTTIERE_REFUSALS = {
    "NOT_YOUR_TURN",
    "CARD_NOT_IN_HAND",
    "REGION_NOT_ALLOWED",
    "ALREADY_PASSED",
    "GAME_OVER",
    "NOT_ELIGIBLE",
    "INVALID_TAKE_BACK",
    "INVALID_POPE_REGION",
    "CANNOT_DECLINE",
    "TOO_MANY_CARDS",
    "INVALID_COMMAND",
    "UNKNOWN_REGION",
}


@pytest.mark.parametrize("pinned", [True, False], ids=["expected_version", "unpinned"])
def test_condottiere_conflicting_moves_keep_the_log_whole(server, redis_client, pinned):
    """The same with Condottiere (4 seats, hidden cards), for the first ~80 versions."""
    engine = get_game("condottiere")
    game_id, tokens = new_table(
        server, game="condottiere", config={"players": 4, "options": {"hidden_cards": True}}
    )
    results: list = []
    threads = [
        threading.Thread(target=hammer, args=(server, game_id, tokens, pinned, results, seed, 80))
        for seed in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    accepted = [body for status, body, _ in results if status == 200]
    refused = {(status, body["code"]) for status, body, _ in results if status != 200}
    if pinned:
        assert refused <= {(409, "VERSION_CONFLICT")}
    else:
        assert {status for status, _ in refused} <= {422} and {
            code for _, code in refused
        } <= CONDOTTIERE_REFUSALS
    events = assert_log_consistent(redis_client, game_id, engine)
    genesis = len(engine.start(engine.configure(events[0]["config"])))
    owned = sorted(e["version"] for body in accepted for e in body["events"])
    assert owned == list(range(genesis + 1, len(events) + 1))


def test_concurrent_claims_fill_each_seat_once_and_start_once(server, redis_client):
    game_id = requests.post(f"{server}/v1/games", json={"game": "toy"}).json()["id"]
    answers: list = []
    barrier = threading.Barrier(CLIENTS)

    def claim(index):
        barrier.wait()
        response = requests.post(f"{server}/v1/games/{game_id}/seats", json={"name": f"P{index}"})
        answers.append((response.status_code, response.json()))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    won = [body for status, body in answers if status == 201]
    assert sorted(body["seat"] for body in won) == [0, 1]
    assert sum(body["started"] for body in won) == 1
    assert {(status, body["code"]) for status, body in answers if status != 201} <= {
        (409, "GAME_FULL"),
        (409, "SEAT_TAKEN"),
    }
    assert len(assert_log_consistent(redis_client, game_id)) == 3


def test_an_events_page_never_reports_a_version_older_than_its_last_event(client, redis_server):
    """Issue 35: while another seat moved (through another web process here), GET /events answered
    a page whose ``version`` was older than the last event on it (the version was read before the
    events). Read in one step, the version is at least every event's on the page, for a seat and
    for the spectator, on every page read while the game is played out."""
    from api import create_app
    from tests.api.conftest import Table

    table = Table(client, hand_size=40)
    mover = create_app({"REDIS_URL": redis_server.url, "TESTING": True}).test_client()
    done = threading.Event()

    def play_out() -> None:
        try:
            while True:
                view = mover.get(f"/v1/games/{table.id}/view").get_json()
                if view["status"] == "finished":
                    return
                seat = view["view"]["turn"]
                auth = {"Authorization": f"Bearer {table.tokens[seat]}"}
                hand = mover.get(f"/v1/games/{table.id}/view", headers=auth).get_json()["view"]["hand"]
                mover.post(
                    f"/v1/games/{table.id}/moves",
                    json={"command": {"type": "play", "card": hand[0]}},
                    headers=auth,
                )
        finally:
            done.set()

    thread = threading.Thread(target=play_out, daemon=True)
    thread.start()
    contradictions, pages = [], 0
    while not done.is_set():
        for headers in (table.auth(0), {}):
            page = client.get(f"/v1/games/{table.id}/events?after=0&limit=500", headers=headers).get_json()
            pages += 1
            if page["events"] and page["events"][-1]["version"] > page["version"]:
                contradictions.append((page["version"], page["events"][-1]["version"]))
    thread.join(timeout=60)
    final = client.get(f"/v1/games/{table.id}").get_json()
    assert final["status"] == "finished" and pages > 0
    assert contradictions == [], f"{len(contradictions)} of {pages} pages contradicted themselves"
