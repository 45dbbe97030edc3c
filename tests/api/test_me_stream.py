"""GET /v1/me/stream (issue 31): the account's events in order, resumable with Last-Event-ID,
bounded per account, ended by the token's revocation."""

from __future__ import annotations

import json
import threading
import time

import pytest

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, personal_token, session, toy_game
from tests.redis_metrics import count_round_trips

DEADLINE_SECONDS = 60  # the bound on every wait below (never a sleep that orders anything)


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server,
        SSE_HEARTBEAT_SECONDS=0.2,
        PASSWORD_HASH_PARAMETERS=FAST_HASH,
        ACCOUNT_STREAM_POLL_SECONDS=600,  # never: the live reader wakes the stream (or its heartbeat)
    )


def messages(response):
    """(event, id, data) of each SSE message of a streamed response (comments skipped)."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode()
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields = {}
            for line in block.split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(": ")
                fields[name] = value
            if "data" in fields:
                yield fields.get("event", "message"), fields.get("id"), json.loads(fields["data"])


def read_until(response, kinds_wanted, bound=DEADLINE_SECONDS):
    """The stream's messages up to the first of ``kinds_wanted``'s last kind (within ``bound`` s)."""
    got = []
    started = time.monotonic()
    for message in messages(response):
        got.append(message)
        if [m[0] for m in got if m[0] in kinds_wanted] == kinds_wanted:
            break
        assert time.monotonic() - started < bound, got
    return got


def play_out(client, game, ann_token, bob_token):
    """Both seats play their only card (hand size 1): Ann's turn, Bob's turn, the end."""
    for token in (ann_token, bob_token):
        view = client.get(f"/v1/games/{game}/view", headers=bearer(token)).get_json()
        command = view["view"]["legal_moves"][0]
        moved = client.post(f"/v1/games/{game}/moves", json={"command": command}, headers=bearer(token))
        assert moved.status_code == 200, moved.get_json()


def one_card_game(client, token):
    created = client.post("/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}})
    game = created.get_json()["id"]
    ann = client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(token)).get_json()
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()
    return game, ann, bob


def test_the_stream_announces_a_start_a_turn_and_a_finish_in_order_and_resumes(app, client):
    token = session(client)
    stream = client.get("/v1/me/stream", headers=bearer(token), buffered=False)
    assert stream.status_code == 200
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    first = next(messages(stream))
    assert first == ("open_games", None, {"type": "open_games", "games": []})
    results = {}

    def play():
        game, ann, bob = one_card_game(app.test_client(), token)
        results["game"] = game
        play_out(app.test_client(), game, ann["token"], bob["token"])

    player = threading.Thread(target=play)
    player.start()
    got = read_until(stream, ["game_started", "your_turn", "game_finished"])
    stream.close()
    player.join(DEADLINE_SECONDS)
    kinds = [kind for kind, _, _ in got]
    assert kinds == ["game_started", "your_turn", "game_finished"]
    game = results["game"]
    started, turn, finished = (data for _, _, data in got)
    assert started["game_id"] == turn["game_id"] == finished["game_id"] == game
    assert turn["seat"] == 0 and turn["deadline"] is None  # not a timed game
    assert finished["result"]["winners"] in ([0], [1], [])
    assert finished["won"] == (0 in finished["result"]["winners"])
    # Resume after the start: the turn and the finish again, nothing else.
    resumed = client.get(
        "/v1/me/stream", headers={**bearer(token), "Last-Event-ID": got[0][1]}, buffered=False
    )
    again = read_until(resumed, ["your_turn", "game_finished"])
    resumed.close()
    assert [(k, i) for k, i, _ in again if k != "open_games"] == [(k, i) for k, i, _ in got[1:]]


def test_the_stream_opens_with_the_running_games_awaiting_me_first(app, client):
    token = session(client)
    waiting = toy_game(client)  # open: Ann's seat claimed, another free
    client.post(f"/v1/games/{waiting}/seats", json={"seat": 1}, headers=bearer(token))
    game, _, _ = one_card_game(client, token)  # started: Ann (seat 0) to play
    stream = client.get("/v1/me/stream", headers=bearer(token), buffered=False)
    kind, entry_id, data = next(messages(stream))
    stream.close()
    assert kind == "open_games" and entry_id is None
    assert [(g["game_id"], g["your_turn"]) for g in data["games"]] == [(game, True), (waiting, False)]


def test_streams_per_account_are_bounded(app, client):
    from service.accounts import MOST_STREAMS

    token = session(client)
    opened = [client.get("/v1/me/stream", headers=bearer(token), buffered=False) for _ in range(MOST_STREAMS)]
    assert all(s.status_code == 200 for s in opened)
    refused = client.get("/v1/me/stream", headers=bearer(token), buffered=False)
    assert refused.status_code == 429 and refused.get_json()["code"] == "TOO_MANY_STREAMS"
    next(messages(opened[0]))  # the generator runs (and so releases its lease when closed)
    opened[0].close()
    again = client.get("/v1/me/stream", headers=bearer(token), buffered=False)
    assert again.status_code == 200
    for s in [*opened[1:], again]:
        s.close()


def test_a_revoked_token_ends_its_stream(app, client):
    token = session(client)
    pat = personal_token(client, token, ["read"])
    stream = client.get("/v1/me/stream", headers=bearer(pat), buffered=False)
    assert next(messages(stream))[0] == "open_games"
    token_id = pat.split(".")[1]
    assert client.delete(f"/v1/me/tokens/{token_id}", headers=bearer(token)).status_code == 204
    started = time.monotonic()
    for _ in stream.response:  # ends by itself at its next heartbeat
        assert time.monotonic() - started < DEADLINE_SECONDS


def test_the_stream_needs_the_read_scope(client):
    token = session(client)
    player = personal_token(client, token, ["play"])
    refused = client.get("/v1/me/stream", headers=bearer(player))
    assert refused.status_code == 403 and refused.get_json()["code"] == "INSUFFICIENT_SCOPE"
    bad = client.get("/v1/me/stream", headers={**bearer(token), "Last-Event-ID": "x"})
    assert bad.status_code == 422


def test_the_feed_is_follow_up_work_recorded_with_the_change_and_done_once(
    app, client, redis_client, monkeypatch
):
    """A process that dies after a move commits, before it tells the accounts (the handler fails
    here), leaves the 'accounts' action in the game's outbox; the sweeper's later run tells them,
    and running it again adds nothing."""
    from store.accounts import account_keys
    from store.keys import game_keys

    token = session(client)
    account_id = token[4:].split(".")[0]
    feed = account_keys(account_id).feed

    def killed(*_):
        raise RuntimeError("the process died")

    # This process's handler of the action (its game service was given them when it was built).
    monkeypatch.setitem(app.extensions["game_service"].followups.handlers, "accounts", killed)
    game, ann, bob = one_card_game(client, token)
    play_out(client, game, ann["token"], bob["token"])
    assert redis_client.hget(game_keys(game).outbox, "accounts") is not None
    assert redis_client.xlen(feed) == 0
    monkeypatch.undo()
    svc = app.extensions["game_service"]
    svc.followups.run(game)  # as the janitor: reads the outbox
    kinds = [fields[b"t"].decode() for _, fields in redis_client.xrange(feed)]
    assert kinds == ["game_started", "game_finished"]  # the turn had passed by then
    assert redis_client.hget(game_keys(game).outbox, "accounts") is None
    from service.account_followup import accounts_followup

    accounts_followup(svc, game, "0")  # a duplicate run
    assert redis_client.xlen(feed) == 2


def test_your_turn_carries_the_deadline_of_a_timed_game(app, client):
    """A timed game (the clock's deadline of the awaited seat, service/clocks.py): your_turn and
    GET /v1/me/games say by when the account must move."""
    from store import timestamps

    tokens = {handle: session(client, handle) for handle in ("Ann", "Bob")}
    created = client.post(
        "/v1/games",
        json={"game": "condottiere", "config": {"players": 2}, "clock": {"move_seconds": 3600}},
    )
    assert created.status_code == 201, created.get_json()
    game = created.get_json()["id"]
    streams = {h: client.get("/v1/me/stream", headers=bearer(t), buffered=False) for h, t in tokens.items()}
    for stream in streams.values():
        assert next(messages(stream))[0] == "open_games"
    for seat, handle in enumerate(("Ann", "Bob")):
        claimed = client.post(f"/v1/games/{game}/seats", json={"seat": seat}, headers=bearer(tokens[handle]))
        assert claimed.status_code == 201, claimed.get_json()
    summary = client.get(f"/v1/games/{game}").get_json()
    awaited = ("Ann", "Bob")[summary["awaiting"][0]]
    deadline_ms = summary["clock"]["seats"][summary["awaiting"][0]]["deadline_ms"]
    got = read_until(streams[awaited], ["game_started", "your_turn"])
    for stream in streams.values():
        stream.close()
    turn = got[-1][2]
    assert turn["game_id"] == game and turn["deadline"] == timestamps.from_ms(deadline_ms)
    listed = client.get("/v1/me/games", headers=bearer(tokens[awaited])).get_json()["running"]
    assert listed[0]["your_turn"] and listed[0]["deadline"] == turn["deadline"]


def test_a_move_tells_the_accounts_only_when_a_bound_seats_turn_comes_or_goes(app, client, redis_client):
    """Three seats, only seat 0 bound: a move that passes the turn between the other two records
    no 'accounts' follow-up; one that gives seat 0 the turn, or takes it away, does; the feed has
    one your_turn per time seat 0 became awaited."""
    import random

    from store.accounts import account_keys

    svc = app.extensions["game_service"]
    token = session(client)
    game = client.post(
        "/v1/games", json={"game": "condottiere", "config": {"players": 3, "seed": 5}}
    ).get_json()["id"]
    seats = [
        client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(token)).get_json()["token"]
    ]
    seats += [
        client.post(f"/v1/games/{game}/seats", json={"name": n}).get_json()["token"] for n in ("Bob", "Cid")
    ]
    recorded = []
    original = svc.followups.run
    svc.followups.run = lambda game_id, actions=None, *written: (
        recorded.append(dict(actions or {})),
        original(game_id, actions, *written),
    )[1]
    rng = random.Random(1)
    kinds = {"told": 0, "quiet": 0}
    became_awaited = 1 if 0 in client.get(f"/v1/games/{game}").get_json()["awaiting"] else 0
    for _ in range(80):
        before = client.get(f"/v1/games/{game}").get_json()
        if before["status"] != "active":
            break
        seat = rng.choice(before["awaiting"])
        legal = client.get(f"/v1/games/{game}/view", headers=bearer(seats[seat])).get_json()["view"][
            "legal_moves"
        ]
        recorded.clear()
        moved = client.post(
            f"/v1/games/{game}/moves", json={"command": rng.choice(legal)}, headers=bearer(seats[seat])
        )
        assert moved.status_code == 200
        after = client.get(f"/v1/games/{game}").get_json()
        changed = (0 in before["awaiting"]) != (0 in after["awaiting"]) or after["status"] != before["status"]
        told = any("accounts" in actions for actions in recorded)
        assert told == changed, (before["awaiting"], after["awaiting"])
        kinds["told" if told else "quiet"] += 1
        if 0 in after["awaiting"] and 0 not in before["awaiting"] and after["status"] == "active":
            became_awaited += 1
    svc.followups.run = original
    assert kinds["told"] and kinds["quiet"]
    feed = [f[b"t"].decode() for _, f in redis_client.xrange(account_keys(token[4:].split(".")[0]).feed)]
    assert feed.count("your_turn") == became_awaited


def test_a_moves_accounts_follow_up_tells_what_the_metadata_says_without_reading_it(
    app, client, redis_client
):
    """A move of a game with bound seats tells the accounts from the fields it has just written
    (``FollowUps.run``'s ``written``), not from the game's metadata read back: no HGETALL on the
    path of a move that does not end the game. What it tells is what the janitor's run, which reads
    the metadata, tells: the account's entry of the game is the same one, turn, version, deadline
    (a timed game), result and finish included, after every move that told it, to the end."""
    import random

    from service.account_followup import accounts_followup
    from store.accounts import account_keys

    svc = app.extensions["game_service"]
    tokens = [session(client, handle) for handle in ("Metaann", "Metabob")]
    accounts = [t.split("_", 1)[1].split(".")[0] for t in tokens]
    created = client.post(
        "/v1/games",
        json={"game": "condottiere", "config": {"players": 2, "seed": 3}, "clock": {"move_seconds": 3600}},
    )
    game = created.get_json()["id"]
    for seat, token in enumerate(tokens):
        claimed = client.post(f"/v1/games/{game}/seats", json={"seat": seat}, headers=bearer(token))
        assert claimed.status_code == 201, claimed.get_json()
    rng = random.Random(3)
    seen: list[dict] = []
    for _ in range(400):
        summary = client.get(f"/v1/games/{game}").get_json()
        if summary["status"] != "active":
            break
        seat = summary["awaiting"][0]
        legal = client.get(f"/v1/games/{game}/view", headers=bearer(tokens[seat])).get_json()["view"][
            "legal_moves"
        ]
        with count_round_trips(redis_client) as trips:
            moved = client.post(
                f"/v1/games/{game}/moves", json={"command": rng.choice(legal)}, headers=bearer(tokens[seat])
            )
        assert moved.status_code == 200, moved.get_json()
        version = moved.get_json()["version"]
        entries = [json.loads(redis_client.hget(account_keys(a).games, game)) for a in accounts]
        if entries[0]["status"] == "active":  # the finishing move's other follow-ups read it (index...)
            assert "HGETALL" not in trips.names, trips.commands
        if all(e["version"] < version for e in entries):
            continue  # no bound seat's turn came or went: the accounts were not told (as before)
        for account in accounts:
            redis_client.hdel(account_keys(account).games, game)  # as if never told: the janitor's run
        accounts_followup(svc, game, "0")
        again = [json.loads(redis_client.hget(account_keys(a).games, game)) for a in accounts]
        assert again == entries
        seen += entries
    assert client.get(f"/v1/games/{game}").get_json()["status"] == "finished"
    assert all(e["status"] == "finished" and e["finished_ms"] > 0 for e in entries)
    assert any(e["deadline"] for e in seen) and any(e["turn"] for e in seen)
