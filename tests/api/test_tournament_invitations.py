"""A tournament's invitation list (``entry: list``) names accounts by handle, as people know them
(or by account id): the invited join, anyone else is refused (403 NOT_ADMITTED); a name no account
has refuses the whole request (422 UNKNOWN_ACCOUNT, naming it) and creates nothing."""

from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api.test_accounts import FAST_HASH, bearer, session


@pytest.fixture()
def app(redis_client, redis_server):
    yield from app_fixtures.make_app(redis_server, PASSWORD_HASH_PARAMETERS=FAST_HASH)


def _create(client, org: str, accounts: list[str]):
    body = {"game": "condottiere", "table_size": 3, "entry": "list", "accounts": accounts}
    return client.post("/v1/tournaments", json=body, headers=bearer(org))


def test_an_invitation_list_by_handle_admits_the_named_accounts_only(client):
    org = session(client, "InviteOrg")
    ann, bob, eve = (session(client, h) for h in ("InvitedAnn", "InvitedBob", "Uninvited"))
    bob_id = client.get("/v1/me", headers=bearer(bob)).get_json()["account"]
    made = _create(client, org, ["invitedann", bob_id])  # a handle as sign-in folds it, and an id
    assert made.status_code == 201, made.get_json()
    tid = made.get_json()["id"]
    ann_id = client.get("/v1/me", headers=bearer(ann)).get_json()["account"]
    assert made.get_json()["settings"]["accounts"] == [ann_id, bob_id]
    for token in (ann, bob):
        joined = client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(token))
        assert joined.status_code == 200, joined.get_json()
    refused = client.post(f"/v1/tournaments/{tid}/join", json={}, headers=bearer(eve))
    assert refused.status_code == 403 and refused.get_json()["code"] == "NOT_ADMITTED"


def test_an_unknown_name_on_the_list_is_refused_and_nothing_is_created(client):
    org = session(client, "InviteOrg2")
    session(client, "KnownOne")
    before = client.get("/v1/tournaments").get_json()["tournaments"]
    refused = _create(client, org, ["KnownOne", "NobodyHere", "NorThis"])
    assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
    problem = refused.get_json()
    assert problem["code"] == "UNKNOWN_ACCOUNT" and problem["unknown"] == ["NobodyHere", "NorThis"]
    assert client.get("/v1/tournaments").get_json()["tournaments"] == before
