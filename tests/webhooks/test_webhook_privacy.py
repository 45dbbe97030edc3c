"""Hidden information (issue 33): a webhook body says only what the game's public summary and the
subscriber's own seat may know, and a game-wide webhook (its creator's) only what a spectator may
know. Property test over random games of both engines: every delivery a
real receiver gets carries only the allowed fields, its strings only public ones (the game's id,
engine, link, the result's reason, the event's type and time), and never the game's seed."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.webhook_delivery import Deliverer, WebhookSettings
from service.webhooks import WebhookService
from store.keys import game_keys
from store.webhooks import WebhookStore
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH
from tests.webhooks.receiver import Receiver, wait_for

DATA_FIELDS = {"game_id", "game", "seat", "version", "deadline", "result", "won", "url"}
GAME_FIELDS = {"game_id", "game", "status", "version", "result", "url"}
RESULT_FIELDS = {"winners", "reason", "rated"}
GAMES = [("condottiere", {"players": 3}), ("rio_de_la_plata", {"players": 3})]


@pytest.fixture(scope="module")
def world(redis_server):
    receiver = Receiver()
    for app in app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH):
        accounts = app.extensions["account_service"]
        games = app.extensions["game_service"]
        store = WebhookStore(games.store.redis)
        settings_ = WebhookSettings(allow_private_targets=True)
        accounts.create_account("Watcher", "correct horse")
        account = accounts.identify(accounts.sign_in("Watcher", "correct horse")["token"]).account_id
        hook = WebhookService(store, settings_).subscribe(
            account, receiver.url, ["game_started", "your_turn", "game_finished"], None, "standard"
        )
        yield games, account, Deliverer(store, settings_), receiver, hook
    receiver.close()


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    which=st.sampled_from(GAMES), seed=st.integers(0, 2**31), moves=st.integers(5, 60), seat=st.integers(0, 2)
)
def test_a_webhook_carries_only_public_facts_and_its_own_seats(world, which, seed, moves, seat):
    games, account, sender, receiver, hook = world
    name, config = which
    game_id = games.create_game(name, dict(config))["id"]
    sender.store.set_creator(game_id, account)  # the account created it: a game-wide webhook too
    WebhookService(sender.store, sender.settings).subscribe_game(
        account, game_id, receiver.url, ["game_started", "game_finished"], "standard"
    )
    tokens = {}
    for s in range(config["players"]):
        tokens[s] = games.claim_seat(game_id, name=f"P{s}", account=account if s == seat else None).token
    rng = random.Random(seed)
    for _ in range(moves):
        view = games.get_view(game_id).view
        if view is None or view.get("result") is not None or not view.get("awaiting"):
            break
        mover = rng.choice(view["awaiting"])
        legal = games.get_view(game_id, tokens[mover]).view["legal_moves"]
        games.submit_command(game_id, tokens[mover], rng.choice(legal))
    wait_for(lambda: sender.store.pending(account) == 0, step=lambda: sender.run_once(rehint_every=0))
    secret_config = json.loads(games.store.redis.get(game_keys(game_id).config) or b"{}")
    game_seed = str(secret_config.get("seed", "no seed"))
    mine = [r for r in receiver.received if game_id.encode() in r["body"]]
    assert len([r for r in mine if b'"seat"' not in r["body"]]) >= 1, "the game-wide start was delivered"
    assert len([r for r in mine if b'"seat"' in r["body"]]) >= 1, "the seat's start was delivered"
    for received in mine:
        body = json.loads(received["body"])
        assert set(body) == {"type", "timestamp", "data"}
        data = body["data"]
        if "seat" in data:  # the seat's own webhook: its own seat's facts
            assert set(data) <= DATA_FIELDS and data["seat"] == seat
        else:  # the game-wide webhook: what a spectator may know
            assert set(data) <= GAME_FIELDS and body["type"] in ("game_started", "game_finished")
        assert set(data.get("result") or {}) <= RESULT_FIELDS
        allowed = {game_id, name, data.get("url"), body["type"], body["timestamp"], data.get("deadline")}
        allowed.add(data.get("status"))
        allowed.add((data.get("result") or {}).get("reason"))
        assert set(strings(body)) <= allowed
        assert game_seed not in received["body"].decode()
