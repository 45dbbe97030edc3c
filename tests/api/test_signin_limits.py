"""Sign-in is rate limited per address and per handle tried (issue 31)."""

from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, sign_in, sign_up


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(
        redis_server,
        PASSWORD_HASH_PARAMETERS=FAST_HASH,
        RATE_LIMITS_ENABLED=True,
        RATE_LIMIT_SIGN_IN="6/minute",
        RATE_LIMIT_SIGN_IN_HANDLE="3/minute",
    )


def from_address(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_the_per_handle_limit_holds_across_addresses_even_for_the_right_password(app):
    setup = from_address(app, "10.0.0.1")
    assert sign_up(setup, "Ann").status_code == 201
    for n in range(3):
        attacker = from_address(app, f"10.0.1.{n}")  # a new address each time
        assert sign_in(attacker, "Ann", "wrong password").status_code == 401
    refused = sign_in(from_address(app, "10.0.2.1"), "ANN", "correct horse")  # the same handle folded
    assert refused.status_code == 429
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert int(refused.headers["Retry-After"]) >= 1
    assert sign_up(setup, "Bob").status_code == 201
    assert sign_in(from_address(app, "10.0.2.1"), "Bob", "correct horse").status_code == 201


def test_the_per_address_limit_holds_across_handles(app):
    client = from_address(app, "10.0.0.9")
    answers = [sign_in(client, f"nobody{n}", "whatever pw").status_code for n in range(7)]
    assert answers == [401] * 6 + [429]
    assert sign_in(from_address(app, "10.0.0.10"), "nobody0", "whatever pw").status_code == 401
