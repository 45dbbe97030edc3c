"""Issue 3, item 6: seat tokens (>= 128 random bits, stored hashed, one seat of one game) and hidden
information: over whole random games played through the API, no view, move answer, event page,
stream message or error of one seat ever carries another seat's hidden card."""

from __future__ import annotations

import base64
import hashlib
import random
import re
import threading
import time
from dataclasses import dataclass, field

import pytest

from games import get_game
from games.base import FULL, fold
from store import game_keys
from tests.api.conftest import Table
from tests.api.leaks import event_leaks, hand_discard_leaks, literal_leaks, text_of, view_leaks
from tests.api.sse import read_messages


# -- tokens -----------------------------------------------------------------------------------------
def test_tokens_carry_256_random_bits_and_are_all_different(client):
    tokens = set()
    for _ in range(10):
        tokens.update(Table(client).tokens)
    assert len(tokens) == 20
    for token in tokens:
        assert token.startswith("cst_"), "a token never starts with '-', which CLIs read as an option"
        token = token.removeprefix("cst_")
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(raw) >= 16  # at least 128 bits; secrets.token_urlsafe(32) gives 256
        assert len(raw) == 32


def test_tokens_are_stored_only_as_sha256(client, redis_client):
    table = Table(client)
    table.move(0, {"type": "pass"}, headers={"Idempotency-Key": "x"})
    everything = b""
    for key in redis_client.keys("*"):
        everything += key + repr(redis_client.dump(key)).encode()
        kind = redis_client.type(key)
        if kind == b"hash":
            everything += repr(redis_client.hgetall(key)).encode()
        elif kind == b"string":
            everything += redis_client.get(key)
        elif kind == b"stream":
            everything += repr(redis_client.xrange(key)).encode()
    for token in table.tokens:
        assert token.encode() not in everything
    stored = redis_client.hgetall(game_keys(table.id).seats)
    assert stored == {
        str(s).encode(): hashlib.sha256(t.encode()).hexdigest().encode() for s, t in enumerate(table.tokens)
    }


def test_a_token_acts_only_for_its_own_seat_and_game(client):
    ours, theirs = Table(client), Table(client)
    # Seat 0's token always acts as seat 0: it cannot play seat 1's turn.
    card = ours.view(0)["view"]["hand"][0]
    assert ours.move(0, {"type": "play", "card": card}).status_code == 200
    refused = ours.move(0, {"type": "pass"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "NOT_YOUR_TURN"
    assert ours.view(1)["seat"] == 1 and ours.view(0)["seat"] == 0
    # A token of another game is no token here: 401 on every route that takes one.
    foreign = {"Authorization": f"Bearer {theirs.tokens[1]}"}
    for method, path, kwargs in [
        ("get", "/view", {}),
        ("get", "/events", {}),
        ("get", "/stream", {}),
        ("post", "/moves", {"json": {"command": {"type": "pass"}}}),
    ]:
        response = getattr(client, method)(f"/v1/games/{ours.id}{path}", headers=foreign, **kwargs)
        assert response.status_code == 401 and response.get_json()["code"] == "INVALID_TOKEN"
    assert client.get(f"/v1/games/{ours.id}").get_json()["version"] == 4


def test_bot_seats_cannot_be_played_over_http(client):
    """A bot seat's token is thrown away: over HTTP nobody can act for it. Its seat cannot be
    claimed (before or after the start), a move without a token is 401, the human's token acts
    only for the human's seat (NOT_YOUR_TURN while the bot is awaited), a seat field in the body
    is refused, and none of it changes the game."""
    created = client.post("/v1/games", json={"game": "toy", "bots": {"0": "random"}})
    assert created.status_code == 201
    game = created.get_json()
    assert "token" not in str(game).lower(), "a creation with bot seats answered a token"
    url = f"/v1/games/{game['id']}"
    taken = client.post(f"{url}/seats", json={"name": "Eve", "seat": 0})
    assert taken.status_code == 409 and taken.get_json()["code"] == "SEAT_TAKEN"
    human = client.post(f"{url}/seats", json={"name": "Ann"}).get_json()
    assert human["seat"] == 1 and human["started"]
    summary = client.get(url).get_json()
    assert summary["awaiting"] == [0], "the toy game's first seat (the bot) is awaited"
    version = summary["version"]
    bearer = {"Authorization": f"Bearer {human['token']}"}
    attempts = [
        (client.post(f"{url}/seats", json={"name": "Eve", "seat": 0}), 409, "GAME_FULL"),
        (client.post(f"{url}/moves", json={"command": {"type": "pass"}}), 401, "INVALID_TOKEN"),
        (
            client.post(f"{url}/moves", json={"command": {"type": "pass"}}, headers=bearer),
            422,
            "NOT_YOUR_TURN",
        ),
        (
            client.post(f"{url}/moves", json={"command": {"type": "pass"}, "seat": 0}, headers=bearer),
            422,
            "VALIDATION_ERROR",
        ),
    ]
    for response, status, code in attempts:
        assert (response.status_code, response.get_json().get("code")) == (status, code), response.get_json()
    after = client.get(url).get_json()
    assert after["version"] == version and after["awaiting"] == [0]


def test_submit_as_seat_acts_only_for_bot_seats(client, svc):
    """The trusted in-process path of the bot workers refuses a human's seat."""
    game = client.post("/v1/games", json={"game": "toy", "bots": {"0": "random"}}).get_json()
    human = client.post(f"/v1/games/{game['id']}/seats", json={"name": "Ann"}).get_json()
    assert human["seat"] == 1
    from service.errors import NotABotSeat

    with pytest.raises(NotABotSeat):
        svc.submit_as_seat(game["id"], 1, {"type": "pass"})
    assert svc.submit_as_seat(game["id"], 0, {"type": "pass"}).status_code == 200


# -- hidden information over whole games -----------------------------------------------------------
@dataclass
class Received:
    seat: int | None
    kind: str  # view, move, events, error, sse
    version: int  # the game's version the message describes (events: each event's own)
    body: object


@dataclass
class Game:
    client: object
    id: str
    tokens: list[str]
    received: list[Received] = field(default_factory=list)

    def auth(self, seat):
        return {"Authorization": f"Bearer {self.tokens[seat]}"} if seat is not None else {}


def start(client, name: str, config: dict) -> Game:
    created = client.post("/v1/games", json={"game": name, "config": config}).get_json()
    tokens = [
        client.post(f"/v1/games/{created['id']}/seats", json={"name": f"P{s}"}).get_json()["token"]
        for s in range(created["seat_count"])
    ]
    return Game(client, created["id"], tokens)


def follow(game: Game, seat: int | None, done: threading.Event, progress: dict) -> None:
    response = game.client.get(f"/v1/games/{game.id}/stream", headers=game.auth(seat), buffered=False)
    for message in read_messages(response.response):
        if message.data is not None and message.id is not None:
            game.received.append(Received(seat, "sse", message.id, message.data["event"]))
            progress[seat] = message.id
        if message.event == "end":
            break
    done.set()


def errors_from(game: Game, rng: random.Random, seat: int, version: int, cards: list[str]) -> None:
    """The awaited seat plays a card it may not hold; another seat plays out of turn."""
    card = rng.choice(cards)
    other = (seat + 1) % len(game.tokens)
    for who in (seat, other):
        response = game.client.post(
            f"/v1/games/{game.id}/moves",
            json={"command": {"type": "play", "card": card}},
            headers=game.auth(who),
        )
        body = response.get_json()
        if response.status_code == 422:
            game.received.append(Received(who, "error", version, {"sent": card, "error": body}))
        else:  # the card happened to be legal: the move counts, the caller re-reads the game
            assert response.status_code == 200, body
            return


def export_as(game: Game, seat: int | None, version: int, run_jobs) -> None:
    """A running game's export made for ``seat`` (or a spectator), through its job: recorded as a
    message that seat received; a seat's result refuses everybody else (issue 8, finding 2)."""
    started = game.client.post(
        f"/v1/games/{game.id}/exports", json={"format": "json"}, headers=game.auth(seat)
    )
    assert started.status_code == 202, started.get_json()
    job_id = started.get_json()["id"]
    run_jobs()
    result = game.client.get(f"/v1/jobs/{job_id}/result", headers=game.auth(seat))
    assert result.status_code == 200, result.get_json()
    document = result.get_json()
    assert document["version"] == version
    game.received.append(Received(seat, "export", version, document))
    if seat is not None:
        assert game.client.get(f"/v1/jobs/{job_id}/result").status_code == 401
        other = (seat + 1) % len(game.tokens)
        assert game.client.get(f"/v1/jobs/{job_id}/result", headers=game.auth(other)).status_code == 404


def play(
    game: Game, rng: random.Random, seats_followed: list, cards: list[str], run_jobs=None, exports: int = 0
) -> int:
    """Play random legal moves until the game is over, recording what every seat receives. Returns
    the version just before the final move: every message up to it was sent while the game ran."""
    client = game.client
    progress: dict = {}
    followers = []
    for seat in seats_followed:
        done = threading.Event()
        thread = threading.Thread(target=follow, args=(game, seat, done, progress), daemon=True)
        thread.start()
        followers.append((thread, done))
    last_running_version = 0
    for step in range(5000):
        spectator = client.get(f"/v1/games/{game.id}/view").get_json()
        version = spectator["version"]
        if spectator["status"] == "finished":
            break
        game.received.append(Received(None, "view", version, spectator["view"]))
        # Let every stream catch up, so its messages so far were all produced while the game ran;
        # one that does not within 30 s fails the test (a stream that stopped delivering would
        # otherwise leave the rest of the game unchecked for it).
        deadline = time.monotonic() + 30
        while any(progress.get(s, 0) < version for s in seats_followed) and time.monotonic() < deadline:
            time.sleep(0.002)
        behind = {s: progress.get(s, 0) for s in seats_followed if progress.get(s, 0) < version}
        assert not behind, f"streams still behind version {version} after 30 s (seat: last id): {behind}"
        last_running_version = version
        seat = rng.choice(spectator["view"]["awaiting"])
        if exports and run_jobs is not None and (step == 2 or rng.random() < 0.04):
            exports -= 1
            export_as(game, rng.choice([None, *range(len(game.tokens))]), version, run_jobs)
        if step % 3 == 0:  # refused commands: their errors must not leak either
            errors_from(game, rng, seat, version, cards)
            continue
        view = client.get(f"/v1/games/{game.id}/view", headers=game.auth(seat)).get_json()
        game.received.append(Received(seat, "view", view["version"], view["view"]))
        if step == 1 or rng.random() < 0.15:
            reader = rng.choice(range(len(game.tokens)))
            after = rng.randrange(0, version + 1)
            page = client.get(
                f"/v1/games/{game.id}/events?after={after}&limit=50", headers=game.auth(reader)
            ).get_json()
            assert page["status"] == "active"
            for item in page["events"]:
                game.received.append(Received(reader, "events", item["version"], item["event"]))
        moved = client.post(
            f"/v1/games/{game.id}/moves",
            json={"command": rng.choice(view["view"]["legal_moves"])},
            headers=game.auth(seat),
        )
        assert moved.status_code == 200, moved.get_json()
        body = moved.get_json()
        if body["view"]["status"] != "finished":
            game.received.append(Received(seat, "view", body["version"], body["view"]["view"]))
        for item in body["events"]:
            game.received.append(Received(seat, "move", item["version"], item["event"]))
    else:
        raise AssertionError("the game did not end")
    for thread, done in followers:
        assert done.wait(10), "a stream did not end with the game"
        thread.join(5)
    return last_running_version


def full_states(client, game_id: str, name: str) -> list:
    """FULL state after each version, from a fold of the stored (finished, public) log."""
    engine = get_game(name)
    events = [
        item["event"] for item in client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
    ]
    page_after = len(events)
    while True:
        more = client.get(f"/v1/games/{game_id}/events?after={page_after}&limit=500").get_json()["events"]
        if not more:
            break
        events += [item["event"] for item in more]
        page_after += len(more)
    states, state = [None], None
    for event in events:
        state = engine.evolve(state, event)
        states.append(state)
    return states


def toy_hidden(states, version: int, viewer: int | None) -> set[str]:
    state = states[version]
    if state is None:
        return set()
    return {card for seat, hand in enumerate(state["hands"]) if seat != viewer for card in hand}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_toy_games_never_leak_a_hidden_card(client, seed, run_jobs):
    rng = random.Random(seed)
    game = start(client, "toy", {"hand_size": 6, "seed": seed})
    running = play(
        game,
        rng,
        seats_followed=[0, 1, None],
        cards=[f"c{n:03d}" for n in range(1, 201)],
        run_jobs=run_jobs,
        exports=3,
    )
    states = full_states(client, game.id, "toy")
    checked = 0
    for message in game.received:
        if message.kind == "sse" and message.version > running:
            continue  # sent after the game ended: the log is public then
        hidden = toy_hidden(states, message.version, message.seat)
        if message.kind == "error":
            hidden -= {message.body["sent"]}  # the caller named that card itself
        leaks = literal_leaks(message.body, hidden)
        assert not leaks, (message, leaks)
        checked += 1
    kinds = {m.kind for m in game.received}
    assert {"view", "move", "sse", "events", "error", "export"} <= kinds and checked > 50


CONDOTTIERE_CARDS = [
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m10",
    "winter",
    "spring",
    "bishop",
    "courtesan",
    "drummer",
    "heroine",
    "scarecrow",
    "surrender",
]
CARD_WORD = r"\b(?:" + "|".join(CONDOTTIERE_CARDS) + r")\b"

CONDOTTIERE_GAMES = [
    {"players": 3},
    {"players": 4, "options": {"hidden_cards": True}},
    {"players": 3, "ruleset": "classic"},
]


@pytest.mark.parametrize("config", CONDOTTIERE_GAMES, ids=["2006-3p", "hidden-4p", "classic-3p"])
def test_condottiere_games_never_leak_a_hidden_card(client, config, run_jobs):
    """Whole random games over HTTP: every view (derived numbers included: strengths must follow
    from the cards the view shows), move answer, event page, stream message, refusal and export
    (through its job) a seat or a spectator receives holds nothing that receiver may not know."""
    rng = random.Random(str(config))
    game = start(client, "condottiere", {**config, "seed": rng.randrange(2**40)})
    running = play(
        game, rng, seats_followed=[0, 1, None], cards=CONDOTTIERE_CARDS, run_jobs=run_jobs, exports=3
    )
    engine = get_game("condottiere")
    states = full_states(client, game.id, "condottiere")
    checked = offers = 0
    for message in game.received:
        if message.kind == "sse" and message.version > running:
            continue
        if message.kind == "view":
            leaks = view_leaks(message.body, message.seat, engine.view(states[message.version], FULL))
        elif message.kind == "error":
            # An error names no card but the one the caller sent (interchangeable codes: any other
            # card named could be someone's hidden card).
            named = set(re.findall(CARD_WORD, text_of(message.body["error"]))) - {message.body["sent"]}
            leaks = sorted(named)
        elif message.kind == "export":
            expected = "spectator" if message.seat is None else f"seat {message.seat}"
            leaks = [] if message.body.get("redacted_for") == expected else ["export not redacted"]
            for event in message.body["events"]:
                leaks += event_leaks(event, message.seat)
        else:
            leaks = event_leaks(message.body, message.seat)
            if message.body.get("type") == "hand_discard_offered":
                offers += 1
                leaks += hand_discard_leaks(message.body, engine.view(states[message.version - 1], FULL))
        assert not leaks, (message, leaks)
        checked += 1
    kinds = [m.kind for m in game.received if m.kind != "sse" or m.version <= running]
    assert {"view", "move", "sse", "events", "error", "export"} <= set(kinds) and checked > 100
    assert offers > 0, "no hand discard (RL-12) was seen"
    assert kinds.count("sse") > 50


# -- the checkers can fail ------------------------------------------------------------------------
def test_leak_checkers_catch_unredacted_messages():
    toy = get_game("toy")
    events = toy.start({"seed": 5, "hand_size": 3, "first": 0})
    state = fold(toy, events)
    hidden_from_0 = set(state["hands"][1])
    assert literal_leaks(toy.view(state, FULL), hidden_from_0)
    assert literal_leaks(events[2], hidden_from_0)
    assert not literal_leaks(toy.redact(events[2], 0), hidden_from_0)

    engine = get_game("condottiere")
    events = engine.start(engine.configure({"players": 3, "seed": 9}))
    state = fold(engine, events)
    full = engine.view(state, FULL)
    dealt_to_1 = next(e for e in events if e["type"] == "cards_dealt" and e["seat"] == 1)
    assert event_leaks(dealt_to_1, 0)
    assert not event_leaks(engine.redact(dealt_to_1, 0), 0)
    assert view_leaks(full, 0, full)  # others' hands
    leaky = dict(engine.view(state, 0), hand=full["players"][1]["hand"])
    assert view_leaks(leaky, 0, full)  # someone else's hand presented as one's own
    assert not view_leaks(engine.view(state, 0), 0, full)


def seed_exposures(client, game: Game, seed: int) -> list[str]:
    exposures = []
    pattern = str(seed)
    for seat in [None, *range(len(game.tokens))]:
        for path in ("", "/view", "/events"):
            body = client.get(f"/v1/games/{game.id}{path}", headers=game.auth(seat)).get_data(as_text=True)
            if pattern in body:
                exposures.append(f"seat {seat} {path or 'summary'}")
    return exposures


def test_toy_seed_is_secret_while_the_game_runs(client):
    """The seed decides every shuffle: whoever knows it can recompute every hand."""
    seed = 987_654_321_012
    game = start(client, "toy", {"seed": seed})
    assert seed_exposures(client, game, seed) == []


def test_condottiere_seed_is_secret_while_the_game_runs(client):
    seed = 987_654_321_012
    game = start(client, "condottiere", {"players": 3, "seed": seed})
    assert seed_exposures(client, game, seed) == []
