"""Issue 33's job events: a verification or an export asked for by a signed-in account tells that
account when it is done (``verified`` with the verdict, ``export_ready`` with the result's link), on
its feed (``/v1/me/stream``) and through its webhooks, once, signed as every delivery (checked with
the ``standardwebhooks`` package); an anonymous job tells nobody, and the job shows nobody who
asked. A real receiver on loopback; the jobs run on a real RQ worker (in-process, burst mode)."""

from __future__ import annotations

import pytest
from rq.job import Job
from standardwebhooks.webhooks import Webhook

from service.jobs import JobService
from store.accounts import AccountStore
from store.webhooks import WebhookStore
from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, personal_token, session
from tests.api.test_me_stream import messages, one_card_game, play_out, read_until
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_webhooks import ALLOW, _account, deliverer, drain, subscribe

JOB_EVENTS = ("verified", "export_ready")


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server,
        PASSWORD_HASH_PARAMETERS=FAST_HASH,
        SSE_HEARTBEAT_SECONDS=0.2,
        ACCOUNT_STREAM_POLL_SECONDS=0.02,
        **ALLOW,
    )


run_jobs = app_fixtures.run_jobs


@pytest.fixture()
def receivers():
    made: list[Receiver] = []

    def make() -> Receiver:
        made.append(Receiver())
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()


def sender_store(app) -> WebhookStore:
    return WebhookStore(app.extensions["game_service"].store.redis)


def finished_game(client, token) -> str:
    game, ann, bob = one_card_game(client, token)
    play_out(client, game, ann["token"], bob["token"])
    return game


def start(client, path: str, token: str | None, **body) -> str:
    headers = bearer(token) if token else {}
    answer = client.post(path, json=body or None, headers=headers)
    assert answer.status_code == 202, answer.get_json()
    return answer.get_json()["id"]


def settle(sender, *receivers: Receiver, passes: int = 3) -> None:
    """A few more delivery passes: whatever else was due would arrive now (exactly these)."""
    for _ in range(passes):
        sender.run_once(rehint_every=0)


def test_verified_and_export_ready_reach_the_account_that_asked_once_each_correctly_signed(
    app, client, receivers, run_jobs
):
    """Issue 33 (`verified`, `export_ready`): one delivery each, verified with the Standard Webhooks
    library, the verdict and the result's link in it; the other account's webhook gets nothing."""
    ann = session(client)
    bob = session(client, "Bea")
    ann_hook_at, bob_hook_at = receivers(), receivers()
    ann_hook = subscribe(client, ann, ann_hook_at.url, events=JOB_EVENTS)
    subscribe(client, bob, bob_hook_at.url, events=JOB_EVENTS)
    game = finished_game(client, ann)
    verify = start(client, f"/v1/games/{game}/verify", ann)
    export = start(client, f"/v1/games/{game}/exports", ann, format="json")
    run_jobs()
    sender = deliverer(app)
    drain(sender, ann_hook_at, 2)
    settle(sender)
    assert len(ann_hook_at.received) == 2
    assert bob_hook_at.received == []
    assert sender.store.pending(_account(client, ann)) == 0
    verifier = Webhook(ann_hook["secret"])
    checked = [verifier.verify(r["body"], r["headers"]) for r in ann_hook_at.received]
    payloads = {p["type"]: p for p in checked}
    assert set(payloads) == set(JOB_EVENTS)
    verified, ready = payloads["verified"]["data"], payloads["export_ready"]["data"]
    assert verified["job_id"] == verify and verified["game_id"] == game and verified["ok"] is True
    assert verified["result"].endswith(f"/v1/jobs/{verify}/result") and verified["result"].startswith("http")
    assert ready["job_id"] == export and ready["format"] == "json" and ready["game_id"] == game
    assert ready["result"].endswith(f"/v1/jobs/{export}/result")
    # The link is the job's real result.
    assert client.get(f"/v1/jobs/{export}/result").status_code == 200
    ids = [r["headers"]["webhook-id"] for r in ann_hook_at.received]
    assert len(set(ids)) == 2


def test_the_notices_are_on_the_accounts_feed_and_not_on_anothers(app, client, run_jobs):
    """Issue 33: the account's `/v1/me/stream` announces its jobs' ends, no other account's feed."""
    ann = session(client)
    bob = session(client, "Bea")
    game = finished_game(client, ann)
    start(client, f"/v1/games/{game}/verify", ann)
    start(client, f"/v1/games/{game}/exports", ann, format="markdown")
    run_jobs()
    feeds = AccountStore(app.extensions["game_service"].store.redis)
    kinds = [e.kind for e in feeds.feed_after(_account(client, ann), None)]
    assert sorted(k for k in kinds if k in JOB_EVENTS) == ["export_ready", "verified"]
    assert not [e for e in feeds.feed_after(_account(client, bob), None) if e.kind in JOB_EVENTS]


@pytest.mark.timeout(120)  # read_until's bound counts messages only: a silent stream ends here
def test_the_accounts_stream_announces_its_jobs_ends(app, client, run_jobs):
    """Issue 33: `GET /v1/me/stream` sends `verified` (the verdict) and `export_ready` (the link)."""
    ann = session(client)
    game = finished_game(client, ann)
    stream = client.get("/v1/me/stream", headers=bearer(ann), buffered=False)
    assert stream.status_code == 200
    try:
        # The stream starts after the feed's newest entry when it first runs: open it before the jobs.
        assert next(messages(stream))[0] == "open_games"
        verify = start(client, f"/v1/games/{game}/verify", ann)
        export = start(client, f"/v1/games/{game}/exports", ann, format="log")
        run_jobs()  # the verification first: RQ takes them in order
        got = [m for m in read_until(stream, ["verified", "export_ready"]) if m[0] in JOB_EVENTS]
    finally:
        stream.close()
    (_, _, verified), (_, _, ready) = got
    assert verified == {
        "type": "verified",
        "job_id": verify,
        "job": "verify",
        "result": f"/v1/jobs/{verify}/result",
        "game_id": game,
        "ok": True,
    }
    assert ready == {
        "type": "export_ready",
        "job_id": export,
        "job": "export",
        "result": f"/v1/jobs/{export}/result",
        "game_id": game,
        "format": "log",
    }


def test_an_account_deleted_before_its_job_ends_is_told_nothing(app, client, run_jobs):
    """A deleted account's feed is not brought back by its job's notice."""
    ann = session(client)
    account = _account(client, ann)
    game = finished_game(client, ann)
    start(client, f"/v1/games/{game}/verify", ann)
    assert client.delete("/v1/me", json={"password": "correct horse"}, headers=bearer(ann)).status_code == 204
    run_jobs()
    redis = app.extensions["game_service"].store.redis
    assert not redis.exists(f"acct:{{a:{account}}}:feed")
    assert not redis.exists(f"hook:{{a:{account}}}:told")


def test_an_anonymous_job_or_a_token_without_read_yields_no_delivery(app, client, receivers, run_jobs):
    """Issue 33: a job asked for without an account token (or with one lacking `read`, or with a
    seat's token) stays anonymous: nobody is told. (The export route refuses an account token
    without `read` by itself: 403.)"""
    ann = session(client)
    at = receivers()
    subscribe(client, ann, at.url, events=JOB_EVENTS)
    hooks_only = personal_token(client, ann, ["webhooks"])
    game, seat_ann, seat_bob = one_card_game(client, ann)
    play_out(client, game, seat_ann["token"], seat_bob["token"])
    jid = start(client, f"/v1/games/{game}/verify", None)
    assert start(client, f"/v1/games/{game}/verify", hooks_only) == jid  # joins the anonymous job
    start(client, f"/v1/games/{game}/exports", seat_bob["token"], format="json")
    run_jobs()
    sender = deliverer(app)
    settle(sender)
    assert at.received == []
    assert sender.store.pending(_account(client, ann)) == 0
    feeds = AccountStore(app.extensions["game_service"].store.redis)
    assert not [e for e in feeds.feed_after(_account(client, ann), None) if e.kind in JOB_EVENTS]


def test_two_accounts_sharing_one_job_are_each_told_once(app, client, receivers, run_jobs):
    """Identical requests share one job (store.jobs); both signed-in requesters are told."""
    ann, bob = session(client), session(client, "Bea")
    ann_at, bob_at = receivers(), receivers()
    subscribe(client, ann, ann_at.url, events=["verified"])
    subscribe(client, bob, bob_at.url, events=["verified"])
    game = finished_game(client, ann)
    assert start(client, f"/v1/games/{game}/verify", ann) == start(client, f"/v1/games/{game}/verify", bob)
    run_jobs()
    sender = deliverer(app)
    drain(sender, ann_at, 1)
    drain(sender, bob_at, 1)
    settle(sender)
    assert len(ann_at.received) == len(bob_at.received) == 1


def test_a_job_already_finished_when_asked_tells_nobody_again(app, client, receivers, run_jobs):
    """The answer to a request for a finished job holds its result: the account is not told."""
    ann, bob = session(client), session(client, "Bea")
    bob_at = receivers()
    subscribe(client, bob, bob_at.url, events=["verified"])
    game = finished_game(client, ann)
    jid = start(client, f"/v1/games/{game}/verify", ann)
    run_jobs()
    answer = client.post(f"/v1/games/{game}/verify", headers=bearer(bob))
    assert answer.get_json()["id"] == jid and answer.get_json()["status"] == "finished"
    run_jobs()
    settle(deliverer(app))
    assert bob_at.received == []


def test_a_completion_announced_twice_makes_one_delivery(app, client, receivers, run_jobs):
    """A retried completion (the worker killed after the finish: the janitor announces, and RQ's
    retry finishes the job again) adds no second notice nor delivery: one per job record."""
    ann = session(client)
    at = receivers()
    subscribe(client, ann, at.url, events=["export_ready"])
    game = finished_game(client, ann)
    jid = start(client, f"/v1/games/{game}/exports", ann, format="html")
    run_jobs()
    svc = app.extensions["game_service"]
    jobs = JobService(svc.store)
    from worker.jobs import handlers

    # What RQ's retry does: the same job run again, finished again, announced again.
    assert jobs.run(jid, handlers(svc.store), retries_left=lambda: False) == "finished"
    assert jobs.book.get(jid).completions == 2
    assert jobs.announce(jid) == 0  # the janitor's pass after it: the feed has it already
    sender = deliverer(app)
    drain(sender, at, 1)
    settle(sender)
    assert len(at.received) == 1


def test_the_job_shows_nobody_its_requester(app, client, queue_client, run_jobs):
    """Hidden information: the job's record, its result and RQ's job name neither the account that
    asked nor its token, to the account itself or to anyone else."""
    ann = session(client)
    account = _account(client, ann)
    game = finished_game(client, ann)
    verify = start(client, f"/v1/games/{game}/verify", ann)
    export = start(client, f"/v1/games/{game}/exports", ann, format="json")
    run_jobs()
    for jid in (verify, export):
        for headers in ({}, bearer(ann)):
            for path in (f"/v1/jobs/{jid}", f"/v1/jobs/{jid}/result"):
                answer = client.get(path, headers=headers)
                assert answer.status_code == 200
                assert account not in answer.get_data(as_text=True)
                assert ann not in answer.get_data(as_text=True)
        rq_job = Job.fetch(jid, connection=queue_client)
        assert account not in f"{rq_job.description} {rq_job.args} {rq_job.kwargs}"
    assert app.extensions["game_service"].store.redis.hget(f"jobs:{{jobs}}:{verify}", "params") == (
        f'{{"game_id":"{game}"}}'.encode()
    )


def test_job_events_are_accepted_by_an_accounts_webhook_but_not_a_game_wide_one(app, client, receivers):
    """Issue 33: an account subscribes to `verified`/`export_ready`; a game-wide webhook (the
    creator's) keeps spectator events only: 422, nothing stored."""
    ann = session(client)
    at = receivers()
    made = subscribe(client, ann, at.url, events=["verified", "export_ready", "your_turn"])
    assert made["events"] == ["your_turn", "verified", "export_ready"]
    created = client.post("/v1/games", json={"game": "toy", "config": {"seed": 3}}, headers=bearer(ann))
    game = created.get_json()["id"]
    refused = client.post(
        f"/v1/games/{game}/webhooks", json={"url": at.url, "events": ["verified"]}, headers=bearer(ann)
    )
    assert refused.status_code == 422 and refused.content_type == "application/problem+json"
    listed = client.get("/v1/me/webhooks", headers=bearer(ann)).get_json()["webhooks"]
    assert [h["id"] for h in listed] == [made["id"]]


@pytest.mark.parametrize(("fmt", "key"), [("discord", "content"), ("slack", "text")])
def test_chat_formats_say_the_verdict_and_link_the_result(app, client, receivers, run_jobs, fmt, key):
    """Issue 33's chat formats for the job events: one sentence with the verdict or the result."""
    import orjson

    ann = session(client)
    at = receivers()
    subscribe(client, ann, at.url, events=JOB_EVENTS, format=fmt)
    game = finished_game(client, ann)
    verify = start(client, f"/v1/games/{game}/verify", ann)
    export = start(client, f"/v1/games/{game}/exports", ann, format="markdown")
    run_jobs()
    drain(deliverer(app), at, 2)
    texts = sorted(orjson.loads(body)[key] for body in at.bodies())
    assert texts[0].startswith(f"The verification of game {game} is done, its log and state agree")
    assert texts[0].endswith(f"/v1/jobs/{verify}/result")
    assert texts[1].startswith(f"Your export of game {game} is ready: http")
    assert texts[1].endswith(f"/v1/jobs/{export}/result")


def test_a_webhook_for_one_game_gets_only_that_games_job_events(app, client, receivers, run_jobs):
    ann = session(client)
    at = receivers()
    first, second = finished_game(client, ann), finished_game(client, ann)
    subscribe(client, ann, at.url, events=JOB_EVENTS, game_id=second)
    start(client, f"/v1/games/{first}/verify", ann)
    wanted = start(client, f"/v1/games/{second}/verify", ann)
    run_jobs()
    sender = deliverer(app)
    drain(sender, at, 1)
    settle(sender)
    assert len(at.received) == 1
    assert f"/v1/jobs/{wanted}/result" in at.bodies()[0].decode()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("point", ["between_job_finish_and_announce", "before_job_notice_fan_out"])
def test_a_worker_killed_between_the_finish_and_the_delivery_loses_nothing_and_sends_one(
    app, client, receivers, redis_server, queue_client, run_jobs, point
):
    """Issue 33, at least once: the worker SIGKILLed right after the job's finish (its notice due
    in the same step), or after the notice reached the feed but before the fan-out, leaves the rest
    to the janitor; RQ's retry of the abandoned run finishes the job a second time; the account
    still gets exactly one `export_ready`, correctly signed."""
    import time

    from store.jobs import ANNOUNCE_GRACE_SECONDS
    from tests.worker_processes import rq_worker

    ann = session(client)
    at = receivers()
    hook = subscribe(client, ann, at.url, events=["export_ready"])
    game = finished_game(client, ann)
    jid = start(client, f"/v1/games/{game}/exports", ann, format="json")
    worker = rq_worker(
        redis_server.url,
        "tests.webhooks.rq_support.ToySimpleWorker",
        "default",
        env={"FAULT_POINT": point},
        burst=True,
    )
    _, err = worker.communicate(timeout=60)
    assert worker.returncode == -9, err.decode()  # killed at the point, not ended by itself
    svc = app.extensions["game_service"]
    jobs = JobService(svc.store)
    feeds = AccountStore(svc.store.redis)
    account = _account(client, ann)
    assert jobs.book.get(jid).status == "finished"
    on_feed = point == "before_job_notice_fan_out"
    assert [e.kind for e in feeds.feed_after(account, None)].count("export_ready") == int(on_feed)
    assert sender_store(app).pending(account) == 0  # no delivery made yet
    assert jobs.book.announcing(time.time() + ANNOUNCE_GRACE_SECONDS) == [jid]

    # The janitor's pass once the grace is over (its clock moved forward instead of waiting): the
    # feed gets the notice unless it had it, and the fan-out makes the delivery either way.
    assert jobs.announce_due(older_than=-ANNOUNCE_GRACE_SECONDS) == int(not on_feed)
    assert sender_store(app).pending(account) == 1
    assert jobs.book.announcing(time.time() + 3600) == []
    # RQ hands the dead run back (its heartbeat moved past) and a worker runs it again.
    assert jobs.requeue_abandoned(timestamp=time.time() + 3600) == [jid]
    run_jobs()
    assert jobs.book.get(jid).completions == 2
    sender = deliverer(app)
    drain(sender, at, 1)
    settle(sender)
    assert len(at.received) == 1
    payload = Webhook(hook["secret"]).verify(at.received[0]["body"], at.received[0]["headers"])
    assert payload["type"] == "export_ready" and payload["data"]["job_id"] == jid
    assert [e.kind for e in feeds.feed_after(account, None)].count("export_ready") == 1
