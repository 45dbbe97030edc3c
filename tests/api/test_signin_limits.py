"""Sign-in is rate limited per address; failed sign-ins are counted per (handle, address) and per
handle only as a slow-down that the owner's right password from an address without failures passes
(OWASP: lock out attempts, never the account)."""

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
        RATE_LIMIT_SIGN_IN_FAILURE="3/minute",
        RATE_LIMIT_SIGN_IN_HANDLE="4/minute",
    )


def from_address(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_wrong_passwords_from_five_addresses_do_not_lock_the_owner_out(app):
    setup = from_address(app, "10.0.0.1")
    assert sign_up(setup, "Ann").status_code == 201
    # More failures than the per-handle slow-down allows, each from a new address.
    tries = [sign_in(from_address(app, f"10.0.1.{n}"), "Ann", "wrong password") for n in range(5)]
    # The owner, from an address that has not failed at the handle, gets in (the handle folded).
    assert sign_in(from_address(app, "10.0.2.1"), "ANN", "correct horse").status_code == 201
    assert [t.status_code for t in tries] == [401] * 5  # each new address got its try


def test_a_slowed_handle_holds_back_the_addresses_that_failed_at_it(app):
    assert sign_up(from_address(app, "10.0.0.1"), "Ann").status_code == 201
    for n in range(4):
        assert sign_in(from_address(app, f"10.0.1.{n}"), "Ann", "wrong password").status_code == 401
    # The handle is slowed: an address that failed at it waits, even with the right password...
    held = sign_in(from_address(app, "10.0.1.0"), "Ann", "correct horse")
    assert held.status_code == 429
    assert held.headers["Content-Type"] == "application/problem+json"
    assert int(held.headers["Retry-After"]) >= 1
    # ...a fresh address gets its one try, and after it fails, waits too.
    assert sign_in(from_address(app, "10.0.3.1"), "Ann", "wrong password").status_code == 401
    assert sign_in(from_address(app, "10.0.3.1"), "Ann", "wrong password").status_code == 429
    # The same addresses may still sign in to another account.
    assert sign_up(from_address(app, "10.0.0.1"), "Bob").status_code == 201
    assert sign_in(from_address(app, "10.0.1.0"), "Bob", "correct horse").status_code == 201


def test_failures_per_handle_and_address_are_counted_tightly(app):
    assert sign_up(from_address(app, "10.0.0.1"), "Ann").status_code == 201
    guesser = from_address(app, "10.0.5.5")
    answers = [sign_in(guesser, "Ann", f"wrong {n}").status_code for n in range(4)]
    assert answers == [401, 401, 401, 429]
    # Successes cost no failure budget: the owner signs in again and again from one address.
    owner = from_address(app, "10.0.6.6")
    assert [sign_in(owner, "Ann", "correct horse").status_code for _ in range(4)] == [201] * 4


def test_the_per_address_limit_holds_across_handles(app):
    client = from_address(app, "10.0.0.9")
    answers = [sign_in(client, f"nobody{n}", "whatever pw").status_code for n in range(7)]
    assert answers == [401] * 6 + [429]
    assert sign_in(from_address(app, "10.0.0.10"), "nobody0", "whatever pw").status_code == 401
