"""Signed webhooks (issue 33): subscriptions, deliveries signed per the Standard Webhooks
specification (checked with the ``standardwebhooks`` package), at least once, retried, paused,
refused for private targets, chat formats, the delivery log. A real receiver on loopback."""

from __future__ import annotations

import json
import time
from datetime import UTC

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from service.webhook_delivery import Deliverer, WebhookSettings
from service.webhook_targets import WebhookUrlRefused, resolve_target
from store.webhooks import WebhookStore
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, personal_token, session
from tests.api.test_me_stream import one_card_game, play_out
from tests.webhooks.receiver import Receiver, wait_for

ALLOW = {"WEBHOOK_ALLOW_PRIVATE_TARGETS": True}


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, **ALLOW)


@pytest.fixture()
def receiver():
    made = Receiver()
    yield made
    made.close()


class Clock:
    """A clock the test moves (backoff and retry limits without waiting for them)."""

    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def deliverer(app, **settings) -> Deliverer:
    store = WebhookStore(app.extensions["game_service"].store.redis)
    return Deliverer(store, WebhookSettings(allow_private_targets=True, **settings))


def subscribe(client, token, url, events=("your_turn", "game_started", "game_finished"), **extra):
    made = client.post(
        "/v1/me/webhooks", json={"url": url, "events": list(events), **extra}, headers=bearer(token)
    )
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def drain(sender: Deliverer, receiver: Receiver, count: int) -> None:
    wait_for(lambda: len(receiver.received) >= count, step=lambda: sender.run_once(rehint_every=0))


def test_a_game_produces_exactly_its_deliveries_signed_as_standard_webhooks(app, client, receiver):
    token = session(client)
    hook = subscribe(client, token, receiver.url)
    assert hook["secret"].startswith("whsec_")
    game, ann, bob = one_card_game(client, token)
    play_out(client, game, ann["token"], bob["token"])
    sender = deliverer(app)
    drain(sender, receiver, 3)
    for _ in range(3):  # nothing more comes: exactly these deliveries
        sender.run_once(rehint_every=0)
    assert sender.store.pending(_account(client, token)) == 0
    assert len(receiver.received) == 3
    verifier = Webhook(hook["secret"])
    payloads = [verifier.verify(r["body"], r["headers"]) for r in receiver.received]
    assert [p["type"] for p in payloads] == ["game_started", "your_turn", "game_finished"]
    assert {p["data"]["game_id"] for p in payloads} == {game}
    assert all(r["headers"]["Content-Type"] == "application/json" for r in receiver.received)
    ids = [r["headers"]["webhook-id"] for r in receiver.received]
    assert len(set(ids)) == 3
    # A body changed in transit fails the check.
    forged = receiver.received[0]["body"].replace(b"game_started", b"game_finishex")
    with pytest.raises(WebhookVerificationError):
        verifier.verify(forged, receiver.received[0]["headers"])
    # The listing never shows the secret again.
    listed = client.get("/v1/me/webhooks", headers=bearer(token)).get_json()["webhooks"]
    assert [w["id"] for w in listed] == [hook["id"]] and "secret" not in listed[0]


def verified_at_any_time(secret: str, received) -> dict:
    """The body, once its signature is checked with the library's own signing (for a test whose
    clock was moved: the library's ``verify`` also refuses a timestamp five minutes away)."""
    from datetime import datetime

    headers = received["headers"]
    stamp = datetime.fromtimestamp(int(headers["webhook-timestamp"]), tz=UTC)
    expected = Webhook(secret).sign(headers["webhook-id"], stamp, received["body"].decode())
    assert expected in headers["webhook-signature"].split(" ")
    return json.loads(received["body"])


def _account(client, token) -> str:
    return token.split("_", 1)[1].split(".")[0]


def test_the_webhooks_scope_is_needed(app, client, receiver):
    token = session(client)
    reader = personal_token(client, token, ["read"])
    refused = client.post(
        "/v1/me/webhooks", json={"url": receiver.url, "events": ["your_turn"]}, headers=bearer(reader)
    )
    assert refused.status_code == 403 and refused.get_json()["code"] == "INSUFFICIENT_SCOPE"
    allowed = personal_token(client, token, ["webhooks"], name="hooks")
    subscribe(client, allowed, receiver.url)


def test_a_webhook_for_one_game_gets_only_that_games_events(app, client, receiver):
    token = session(client)
    first, ann1, bob1 = one_card_game(client, token)
    hook = subscribe(client, token, receiver.url, game_id=first)
    second, ann2, bob2 = one_card_game(client, token)
    play_out(client, second, ann2["token"], bob2["token"])
    play_out(client, first, ann1["token"], bob1["token"])
    sender = deliverer(app)
    drain(sender, receiver, 1)
    for _ in range(3):
        sender.run_once(rehint_every=0)
    payloads = [Webhook(hook["secret"]).verify(r["body"], r["headers"]) for r in receiver.received]
    # Subscribed after the first game started: its turn was told before, its finish after.
    assert [(p["type"], p["data"]["game_id"]) for p in payloads] == [("game_finished", first)]


def test_a_receiver_down_for_a_while_gets_everything_once_back(app, client):
    down = Receiver()
    port = down.port
    down.close()  # nothing listens on the port now: every attempt fails to connect
    token = session(client)
    hook = subscribe(client, token, f"http://127.0.0.1:{port}/hook")
    game, ann, bob = one_card_game(client, token)
    play_out(client, game, ann["token"], bob["token"])
    clock = Clock(time.time() + 1)  # a second ahead: what was just made is due
    store = WebhookStore(app.extensions["game_service"].store.redis)
    sender = Deliverer(store, WebhookSettings(allow_private_targets=True), clock=clock)
    account = _account(client, token)
    for _ in range(4):  # four rounds of failures, the clock moved past each backoff
        clock.now += 3600
        report = sender.run_once(rehint_every=0)
        assert report.retried == 3 and report.sent == 0
    assert store.pending(account) == 3
    log = client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=bearer(token)).get_json()["attempts"]
    assert len(log) == 12 and all(
        a["outcome"] == "retrying" and a["status"] is None and a["error"] for a in log
    )
    back = Receiver(port=port)
    try:
        clock.now += 4 * 3600 + 1  # past the longest backoff
        drain(sender, back, 3)
        for _ in range(3):
            sender.run_once(rehint_every=0)
        assert store.pending(account) == 0
        payloads = [verified_at_any_time(hook["secret"], r) for r in back.received]
        # Each once (retries are jittered, so not necessarily in order: the timestamp orders them).
        assert sorted(p["type"] for p in payloads) == ["game_finished", "game_started", "your_turn"]
        assert len({r["headers"]["webhook-id"] for r in back.received}) == 3
    finally:
        back.close()


def test_a_delivery_failing_for_more_than_a_day_is_marked_failed(app, client):
    down = Receiver()
    url = down.url
    down.close()
    token = session(client)
    hook = subscribe(client, token, url)
    client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
    clock = Clock(time.time() + 1)  # a second ahead: what was just made is due
    store = WebhookStore(app.extensions["game_service"].store.redis)
    sender = Deliverer(store, WebhookSettings(allow_private_targets=True), clock=clock)
    sender.run_once(rehint_every=0)
    clock.now += 25 * 3600  # still within the retry period (26 hours)
    assert sender.run_once(rehint_every=0).retried == 1
    clock.now += 2 * 3600
    assert sender.run_once(rehint_every=0).failed == 1
    assert store.pending(_account(client, token)) == 0
    log = client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=bearer(token)).get_json()["attempts"]
    assert [a["outcome"] for a in log] == ["failed", "retrying", "retrying"]


def test_backoff_grows_exponentially_with_jitter_and_is_capped():
    sender = Deliverer(
        WebhookStore.__new__(WebhookStore), WebhookSettings(first_retry_seconds=5, most_retry_seconds=3600)
    )
    delays = [sender.backoff_seconds(n) for n in range(1, 15)]
    for n, delay in enumerate(delays, start=1):
        ceiling = min(5 * 2 ** (n - 1), 3600)
        assert ceiling / 2 <= delay <= ceiling
    assert len({round(d, 6) for d in delays[-4:]}) == 4  # jitter: capped delays still differ


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:9/hook",
        "http://10.0.0.1/hook",
        "http://192.168.1.1/hook",
        "http://172.16.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://[::1]/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:7f00:1::]/",
        "http://100.64.0.1/",
        "ftp://example.com/",
        "http://user:pw@example.com/",
    ],
)
def test_private_and_metadata_targets_are_refused_unless_the_operator_allows_them(
    redis_client, redis_server, url
):
    for app in app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH):
        client = app.test_client()
        token = session(client)
        refused = client.post(
            "/v1/me/webhooks", json={"url": url, "events": ["your_turn"]}, headers=bearer(token)
        )
        assert refused.status_code == 422, refused.get_json()
        assert refused.get_json()["code"] in ("WEBHOOK_URL_REFUSED", "VALIDATION_ERROR")
        assert client.get("/v1/me/webhooks", headers=bearer(token)).get_json()["webhooks"] == []


def test_metadata_and_link_local_stay_refused_even_when_private_targets_are_allowed():
    for url in (
        "http://169.254.169.254/",
        "http://[fd00:ec2::254]/",
        "http://169.254.1.1/",
        "http://0.0.0.0/",
    ):
        with pytest.raises(WebhookUrlRefused):
            resolve_target(url, allow_private=True)
    assert resolve_target("http://localhost:8080/x?y=1", allow_private=True).address in ("127.0.0.1", "::1")


def test_the_address_is_checked_again_at_connect_time(app, client, receiver):
    """A URL accepted while loopback was allowed is refused at send time once it is not: the check
    runs at every attempt, and nothing reaches the receiver."""
    token = session(client)
    hook = subscribe(client, token, receiver.url)
    client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
    strict = Deliverer(WebhookStore(app.extensions["game_service"].store.redis), WebhookSettings())
    strict.run_once(rehint_every=0)
    assert receiver.received == []
    log = client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=bearer(token)).get_json()["attempts"]
    assert log[0]["outcome"] == "retrying" and "loopback" in log[0]["error"]


def test_the_connection_goes_to_the_checked_address_with_the_urls_host(app, client, receiver):
    token = session(client)
    subscribe_url = f"http://localhost:{receiver.port}/hook"
    hook = subscribe(client, token, subscribe_url)
    client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
    drain(deliverer(app), receiver, 1)
    assert receiver.received[0]["headers"]["Host"] == f"localhost:{receiver.port}"
    assert (
        Webhook(hook["secret"]).verify(receiver.received[0]["body"], receiver.received[0]["headers"])["type"]
        == "ping"
    )


def test_redirects_are_not_followed(app, client, receiver):
    token = session(client)
    receiver.status = 302
    hook = subscribe(client, token, receiver.url)
    client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
    sender = deliverer(app)
    drain(sender, receiver, 1)
    log = client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=bearer(token)).get_json()["attempts"]
    assert log[0]["status"] == 302 and log[0]["outcome"] == "retrying"


@pytest.mark.parametrize(("fmt", "key"), [("discord", "content"), ("slack", "text")])
def test_chat_formats_carry_one_sentence_with_the_games_link(app, client, receiver, fmt, key):
    token = session(client)
    hook = subscribe(client, token, receiver.url, events=["your_turn"], format=fmt)
    game, _, _ = one_card_game(client, token)
    drain(deliverer(app), receiver, 1)
    body = json.loads(
        Webhook(hook["secret"]).verify(receiver.received[0]["body"], receiver.received[0]["headers"])
        and receiver.received[0]["body"]
    )
    assert list(body) == [key]
    assert "Your turn" in body[key] and f"/play/{game}" in body[key]


def test_pause_resume_delete_and_the_delivery_log(app, client, receiver):
    token = session(client)
    hook = subscribe(client, token, receiver.url, events=["your_turn"])
    paused = client.patch(f"/v1/me/webhooks/{hook['id']}", json={"paused": True}, headers=bearer(token))
    assert paused.status_code == 200 and paused.get_json()["paused"] is True
    one_card_game(client, token)  # Ann's turn while paused: nothing made
    sender = deliverer(app)
    for _ in range(3):
        sender.run_once(rehint_every=0)
    assert receiver.received == []
    client.patch(f"/v1/me/webhooks/{hook['id']}", json={"paused": False}, headers=bearer(token))
    client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
    drain(sender, receiver, 1)
    log = client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=bearer(token)).get_json()["attempts"]
    assert [(a["event"], a["outcome"], a["status"]) for a in log] == [("ping", "delivered", 204)]
    assert log[0]["latency_ms"] >= 0
    other = session(client, handle="Eve")
    assert client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=bearer(other)).status_code == 404
    assert client.delete(f"/v1/me/webhooks/{hook['id']}", headers=bearer(token)).status_code == 204
    gone = client.get(f"/v1/me/webhooks/{hook['id']}", headers=bearer(token))
    assert gone.status_code == 404 and gone.get_json()["code"] == "WEBHOOK_NOT_FOUND"


def test_a_subscription_failing_for_days_is_paused_and_its_owner_told(app, client):
    down = Receiver()
    url = down.url
    down.close()
    token = session(client)
    hook = subscribe(client, token, url, events=["your_turn"])
    clock = Clock(time.time() + 1)  # a second ahead: what was just made is due
    store = WebhookStore(app.extensions["game_service"].store.redis)
    sender = Deliverer(
        store, WebhookSettings(allow_private_targets=True, pause_after_seconds=3 * 86400), clock=clock
    )
    for _ in range(4):  # a ping a day, each failing
        client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
        sender.run_once(rehint_every=0)
        clock.now += 86400
    listed = client.get(f"/v1/me/webhooks/{hook['id']}", headers=bearer(token)).get_json()
    assert listed["paused"] is True and listed["failing_since"]
    from store.accounts import AccountStore

    entries = AccountStore(store.redis).feed_after(_account(client, token), None)
    assert [e.kind for e in entries if e.kind == "webhook_paused"] == ["webhook_paused"]


def test_a_receiver_that_does_not_answer_costs_one_short_timeout(receiver):
    from service.webhook_delivery import PinnedSender

    receiver.hold = __import__("threading").Event()  # answers only once released
    try:
        sender = PinnedSender(WebhookSettings(allow_private_targets=True, read_timeout=0.3))
        attempt = sender.post(receiver.url, b"{}", {"Content-Type": "application/json"})
        assert attempt.status is None and "timed out" in attempt.error.lower()
        assert attempt.latency_ms < 10_000  # the read timeout, not the receiver's 60 s
    finally:
        receiver.hold.set()


def test_a_huge_answer_is_read_only_to_the_limit():
    """The sender reads at most RESPONSE_READ_LIMIT bytes of what a receiver answers, however much
    it sends (a receiver streaming forever ends the attempt at once, as delivered)."""
    import socket
    import threading

    from service.webhook_delivery import RESPONSE_READ_LIMIT, PinnedSender

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    sent = []

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
        chunk = b"x" * 65536
        try:
            for _ in range(2000):  # bounded: up to ~128 MiB if the sender kept reading
                conn.sendall(chunk)
                sent.append(len(chunk))
        except OSError:
            pass  # the sender hung up after its limit
        conn.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    port = listener.getsockname()[1]
    attempt = PinnedSender(WebhookSettings(allow_private_targets=True)).post(
        f"http://127.0.0.1:{port}/", b"{}", {"Content-Type": "application/json"}
    )
    server.join(30)
    listener.close()
    assert attempt.status == 200 and attempt.ok
    assert RESPONSE_READ_LIMIT <= 65536
    assert sum(sent) < 2000 * 65536  # the sender stopped reading long before the end


def test_a_deleted_webhooks_pending_deliveries_are_dropped_unsent(app, client, receiver):
    token = session(client)
    hook = subscribe(client, token, receiver.url)
    client.post(f"/v1/me/webhooks/{hook['id']}/ping", headers=bearer(token))
    assert client.delete(f"/v1/me/webhooks/{hook['id']}", headers=bearer(token)).status_code == 204
    sender = deliverer(app)
    report = sender.run_once(rehint_every=0)
    assert report.dropped == 1 and report.sent == 0
    assert sender.store.pending(_account(client, token)) == 0 and receiver.received == []


def test_a_games_creator_may_subscribe_to_the_whole_game_and_gets_its_start_and_end(app, client, receiver):
    creator = session(client)
    other = session(client, handle="Eve")
    created = client.post(
        "/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}}, headers=bearer(creator)
    )
    game = created.get_json()["id"]
    events = {"url": receiver.url, "events": ["game_started", "game_finished"]}
    refused = client.post(f"/v1/games/{game}/webhooks", json=events, headers=bearer(other))
    assert refused.status_code == 403 and refused.get_json()["code"] == "NOT_GAME_CREATOR"
    turn = client.post(
        f"/v1/games/{game}/webhooks", json={**events, "events": ["your_turn"]}, headers=bearer(creator)
    )
    assert turn.status_code == 422  # a seat's event is not a spectator's
    made = client.post(f"/v1/games/{game}/webhooks", json=events, headers=bearer(creator))
    assert made.status_code == 201 and made.get_json()["game_wide"] is True
    ann = client.post(f"/v1/games/{game}/seats", json={"name": "Cy", "seat": 0}).get_json()
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()
    play_out(client, game, ann["token"], bob["token"])
    sender = deliverer(app)
    drain(sender, receiver, 2)
    for _ in range(3):
        sender.run_once(rehint_every=0)
    payloads = [Webhook(made.get_json()["secret"]).verify(r["body"], r["headers"]) for r in receiver.received]
    assert [p["type"] for p in payloads] == ["game_started", "game_finished"]
    assert all(set(p["data"]) <= {"game_id", "game", "status", "version", "result", "url"} for p in payloads)
    assert payloads[1]["data"]["result"]["winners"] in ([0], [1], [])


def test_a_game_created_with_a_bad_account_token_is_created_with_no_creator(app, client, receiver):
    token = session(client)
    bogus = token[:-4] + "AAAA"
    created = client.post("/v1/games", json={"game": "toy", "config": {"seed": 3}}, headers=bearer(bogus))
    assert created.status_code == 201
    game = created.get_json()["id"]
    events = {"url": receiver.url, "events": ["game_started"]}
    refused = client.post(f"/v1/games/{game}/webhooks", json=events, headers=bearer(token))
    assert refused.status_code == 403 and refused.get_json()["code"] == "NOT_GAME_CREATOR"


def test_a_creator_seated_in_the_game_gets_its_start_and_end_once_at_the_game_wide_webhook(
    app, client, receiver
):
    """Issue 33: a game-wide webhook gets spectator events only, once each, even when its owner
    plays in the game: the owner's own feed entries (their seat, whether they won) are not sent to
    it as well (they go to the account's own webhooks)."""
    creator = session(client)
    created = client.post(
        "/v1/games", json={"game": "toy", "config": {"seed": 3, "hand_size": 1}}, headers=bearer(creator)
    )
    game = created.get_json()["id"]
    events = {"url": receiver.url, "events": ["game_started", "game_finished"]}
    made = client.post(f"/v1/games/{game}/webhooks", json=events, headers=bearer(creator))
    assert made.status_code == 201
    ann = client.post(f"/v1/games/{game}/seats", json={"seat": 0}, headers=bearer(creator)).get_json()
    bob = client.post(f"/v1/games/{game}/seats", json={"name": "Bob", "seat": 1}).get_json()
    play_out(client, game, ann["token"], bob["token"])
    sender = deliverer(app)
    drain(sender, receiver, 2)
    for _ in range(3):
        sender.run_once(rehint_every=0)
    payloads = [Webhook(made.get_json()["secret"]).verify(r["body"], r["headers"]) for r in receiver.received]
    assert [p["type"] for p in payloads] == ["game_started", "game_finished"]
    assert all(set(p["data"]) <= {"game_id", "game", "status", "version", "result", "url"} for p in payloads)


@pytest.mark.parametrize(
    ("allow_private", "url"),
    [
        (False, "http://192.0.0.192/"),  # Oracle Cloud's metadata: public to Python's ipaddress
        (False, "http://168.63.129.16/"),  # Azure's wire server: a public address too
        (True, "http://[fd20:ce::254]/"),  # GCP's IPv6 metadata: a unique local address
        (True, "http://255.255.255.255/"),  # the broadcast address: only "reserved"
        (True, "http://[::ffff:192.0.0.192]/"),  # the same, IPv4-mapped
    ],
)
def test_the_deny_list_refuses_metadata_and_broadcast_targets_over_http(
    redis_client, redis_server, allow_private, url
):
    for app in app_fixtures.make_app(
        redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH, WEBHOOK_ALLOW_PRIVATE_TARGETS=allow_private
    ):
        client = app.test_client()
        token = session(client)
        refused = client.post(
            "/v1/me/webhooks", json={"url": url, "events": ["your_turn"]}, headers=bearer(token)
        )
        assert refused.status_code == 422, refused.get_json()
        assert refused.get_json()["code"] == "WEBHOOK_URL_REFUSED"
        assert client.get("/v1/me/webhooks", headers=bearer(token)).get_json()["webhooks"] == []


def test_the_fan_out_is_skipped_only_while_the_account_has_no_subscription(
    app, client, receiver, monkeypatch
):
    """A game's accounts follow-up calls the fan-out only when the feed's own step saw a
    subscription and its cursor (``AccountStore.record_game``): an account without webhooks costs no
    fan-out round trip per move that tells it. One that subscribes mid-game gets what its feed says
    after that, once."""
    calls: list[str] = []
    original = WebhookStore.fan_out

    def counted(self, account_id, now_ms):
        calls.append(account_id)
        return original(self, account_id, now_ms)

    monkeypatch.setattr(WebhookStore, "fan_out", counted)
    token = session(client)
    game, ann, bob = one_card_game(client, token)  # game_started and your_turn in the feed
    assert calls == []
    subscribe(client, token, receiver.url)
    play_out(client, game, ann["token"], bob["token"])
    assert calls and set(calls) == {_account(client, token)}  # the moves that told it, the finish too
    sender = deliverer(app)
    drain(sender, receiver, 1)
    for _ in range(3):
        sender.run_once(rehint_every=0)
    assert [json.loads(r["body"])["type"] for r in receiver.received] == ["game_finished"]
