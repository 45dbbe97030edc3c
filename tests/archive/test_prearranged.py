"""Prearranged deals are public, drawn seeds are long and secret (issue 8, finding 3; RL-10): a game
whose creator gave a seed or a deck order says so in its summary, the listing, every view and its
archive entry, before any seat is claimed; the archive can leave such games out; a seed the server
draws has 128 bits, travels as a decimal string and is not shown while the game runs."""

from __future__ import annotations

import orjson
import pytest

from store import game_keys
from tests.archive.test_api_archive import ToyTable


def create(client, game: str, config: dict) -> dict:
    response = client.post("/v1/games", json={"game": game, "config": config})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


@pytest.mark.parametrize(
    "game, config, prearranged",
    [
        ("condottiere", {"players": 2}, False),
        ("condottiere", {"players": 2, "seed": 42}, True),
        ("condottiere", {"players": 2, "seed": None}, False),
        ("toy", {"seed": 3}, True),
        ("toy", {}, False),
    ],
)
def test_a_game_says_whether_its_deal_was_prearranged_before_any_seat_is_claimed(
    client, game, config, prearranged
):
    summary = create(client, game, config)
    assert summary["prearranged"] is prearranged
    assert client.get(f"/v1/games/{summary['id']}").get_json()["prearranged"] is prearranged
    listed = {g["id"]: g for g in client.get("/v1/games").get_json()["games"]}
    assert listed[summary["id"]]["prearranged"] is prearranged
    tokens = [
        client.post(f"/v1/games/{summary['id']}/seats", json={"name": name}).get_json()["token"]
        for name in ("Ann", "Bob")
    ]
    for headers in ({}, {"Authorization": f"Bearer {tokens[0]}"}):
        view = client.get(f"/v1/games/{summary['id']}/view", headers=headers).get_json()
        assert view["prearranged"] is prearranged
        replay = client.get(f"/v1/games/{summary['id']}/replay?version=1", headers=headers).get_json()
        assert replay["prearranged"] is prearranged


def test_a_given_deck_order_is_prearranged(client):
    """Any permutation of the 110 cards will do."""
    from games.condottiere.board import DECK_COUNTS

    deck = [card for card, count in sorted(DECK_COUNTS["2006"].items()) for _ in range(count)]
    assert create(client, "condottiere", {"players": 2, "deck_order": deck})["prearranged"] is True


def test_rl_10_drawn_seeds_have_128_bits_travel_as_strings_and_stay_secret(client, redis_client):
    sizes = []
    for _ in range(12):
        summary = create(client, "condottiere", {"players": 2})
        assert summary["config"].get("seed") is None
        full = redis_client.get(game_keys(summary["id"]).config)
        seed = orjson.loads(full)["seed"]
        assert isinstance(seed, str) and seed.isdigit() and int(seed) < 2**128
        sizes.append(int(seed).bit_length())
    # 12 draws all below 2**100 would be a 1 in 2**336 event: the draw is not 52 or 64 bits
    assert max(sizes) > 100


def test_the_archive_entry_says_prearranged_and_the_archive_filters_on_it(client, run_jobs):
    arranged = ToyTable(client)  # created with a seed
    arranged.finish()
    drawn_id = create(client, "toy", {})["id"]
    drawn = ToyTable.__new__(ToyTable)
    drawn.client, drawn.id = client, drawn_id
    drawn.tokens = [
        client.post(f"/v1/games/{drawn_id}/seats", json={"name": n}).get_json()["token"]
        for n in ("Cid", "Dee")
    ]
    drawn.finish()
    run_jobs()
    entries = {g["id"]: g for g in client.get("/v1/archive").get_json()["games"]}
    assert entries[arranged.id]["prearranged"] is True and entries[drawn_id]["prearranged"] is False
    fair = [g["id"] for g in client.get("/v1/archive?prearranged=false").get_json()["games"]]
    assert fair == [drawn_id]
    fixed = [g["id"] for g in client.get("/v1/archive?prearranged=true").get_json()["games"]]
    assert fixed == [arranged.id]
