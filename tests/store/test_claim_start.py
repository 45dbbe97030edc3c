"""The claims of a game: only the one that fills the last seat computes and sends the start."""

from __future__ import annotations

import pytest

from games import get_game
from service import composition
from store import game_keys
from tests.redis_metrics import count_round_trips


@pytest.fixture()
def service(redis_server):
    svc = composition.game_service_at(redis_server.url)
    yield svc
    svc.store.redis.close()


def test_a_claim_that_read_free_seats_still_starts_the_game_when_others_filled_them(service, redis_client):
    """The claim read the game with every seat free, so it was sent without the start; another
    claim came in first and left it the last seat: the script refuses the short claim untouched and
    the claim goes again with the start, which starts the game once (its genesis in the log)."""
    game_id = service.create_game("condottiere", {"players": 3})["id"]
    stale = service.store.meta(game_id)
    for seat, name in enumerate(("Ann", "Bob")):
        claimed = service.claim_seat(game_id, name=name)
        assert (claimed.seat, claimed.started) == (seat, False)
    assert redis_client.xlen(game_keys(game_id).events) == 0

    last = service.seats.claim(
        game_id, get_game("condottiere"), None, seat=None, name="Cy", bot=None, meta=stale
    )

    assert (last.seat, last.started) == (2, True)
    assert last.version == redis_client.xlen(game_keys(game_id).events) > 0
    view = service.get_view(game_id, last.token)
    assert view.status == "active" and view.version == last.version


def test_only_the_last_claim_reads_the_configuration_and_sends_the_start(service, redis_client):
    """The first claims of a three-seat game read no configuration and send no genesis: the
    metadata, the claim script (with its ``lobby`` follow-up's hint), then that follow-up telling
    the live lobby the open game changed; the last one reads the configuration and sends the start."""
    game_id = service.create_game("condottiere", {"players": 3})["id"]
    for name in ("Ann", "Bob"):
        with count_round_trips(redis_client) as trips:
            assert not service.claim_seat(game_id, name=name).started
        names = [command for trip in trips.commands for command in trip]
        assert trips.commands[0] == ["HGETALL"] and trips.commands[1][0] == "EVALSHA"
        assert "GET" not in names and "XADD" in names  # no configuration; the lobby told
        assert names.count("EVALSHA") == 2  # the claim, and the follow-up marked done
    with count_round_trips(redis_client) as trips:
        assert service.claim_seat(game_id, name="Cy").started
    assert ["GET"] in trips.commands  # the configuration
    start = trips.names.index("EVALSHA")
    assert trips.names[start + 1] == "ZADD"  # the start, then its follow-ups' hint (one trip off a cluster)
