"""GET /v1/games/{id}/annotations: the engine's sentence for each event, paged, and redacted for the
reader while the game runs (a hand dealt to another seat is never named)."""

from __future__ import annotations

from games import get_game
from games.condottiere.render import CARD_NAMES
from replays.core import annotate
from tests.archive.scenarios import three_adjacent_game
from tests.archive.test_api_archive import imported

CONDOTTIERE = get_game("condottiere")


def _started(client):
    game_id = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2, "seed": 5}})
    game_id = game_id.get_json()["id"]
    tokens = [
        client.post(f"/v1/games/{game_id}/seats", json={"name": name}).get_json()["token"]
        for name in ("Ann", "Bob")
    ]
    return game_id, tokens


def test_a_finished_game_reads_as_the_engine_annotates_it_in_pages(client):
    log = three_adjacent_game()
    game_id = imported(client, log)
    expected = annotate(CONDOTTIERE, log)
    first = client.get(f"/v1/games/{game_id}/annotations?limit=10").get_json()
    assert first["viewer"] == "full" and first["finished"] is True
    assert [a["version"] for a in first["annotations"]] == list(range(1, 11))
    assert first["next_after"] == 10
    rest = client.get(f"/v1/games/{game_id}/annotations?after=10&limit=1000").get_json()
    assert rest["next_after"] is None
    texts = [a["text"] for a in first["annotations"] + rest["annotations"]]
    assert texts == expected


def test_a_running_game_names_only_the_readers_own_cards(client):
    """OPT-HID-4 / hidden hands: Ann's sentences name her dealt cards, never Bob's."""
    game_id, tokens = _started(client)
    views = [
        client.get(f"/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {t}"}).get_json()
        for t in tokens
    ]
    events = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
    dealt = {e["version"]: e for e in events if e["event"]["type"] == "cards_dealt"}
    for seat, token in enumerate(tokens):
        page = client.get(
            f"/v1/games/{game_id}/annotations", headers={"Authorization": f"Bearer {token}"}
        ).get_json()
        assert page["viewer"] == f"seat {seat}" and page["finished"] is False
        by_version = {a["version"]: a["text"] for a in page["annotations"]}
        hand_names = {CARD_NAMES[c] for c in views[seat]["view"]["hand"] if not c.startswith("m")}
        for version, entry in dealt.items():
            text = by_version[version]
            if entry["event"]["seat"] == seat:
                assert all(name in text for name in hand_names), text
            else:
                assert ":" not in text, f"another seat's cards are named: {text}"
    spectator = client.get(f"/v1/games/{game_id}/annotations").get_json()
    assert spectator["viewer"] == "spectator"
    assert all(":" not in a["text"] for a in spectator["annotations"] if a["version"] in dealt)


def test_refusals(client):
    game_id, _ = _started(client)
    assert client.get(f"/v1/games/{game_id}/annotations?limit=0").status_code == 422
    assert client.get(f"/v1/games/{game_id}/annotations?nope=1").status_code == 422
    wrong = client.get(f"/v1/games/{game_id}/annotations", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.get_json()["code"] == "INVALID_TOKEN"
    assert client.get("/v1/games/0000000000000000000z/annotations").status_code == 404
    open_game = client.post("/v1/games", json={"game": "condottiere", "config": {"players": 2}}).get_json()
    assert client.get(f"/v1/games/{open_game['id']}/annotations").status_code == 409
