"""Games as plug-ins (issue 29 item 5): a third game, the toy of the server's tests, is nothing but a
module (tests/api/toy_game.py) and one line of its own metadata (its entry point, in
tests/plugins/toy_game-1.0.dist-info, as an installed distribution has it). The registry finds it
through that entry point, and it is played over HTTP, archived, replayed, exported, verified and
imported again with no line of the product naming it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import games
from tests.api import toy_game
from tests.archive.test_api_archive import ToyTable, follow, import_job

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = [
    "games",
    "bots",
    "replays",
    "schemas",
    "store",
    "service",
    "api",
    "worker",
    "web",
    "cli",
    "launcher",
]


def test_the_registry_finds_the_toy_game_through_its_entry_point():
    toy_game.register()
    point = games.entry_point("toy")
    assert (point.group, point.value) == (games.ENTRY_POINT_GROUP, "tests.api.toy_game:GAME")
    assert point.dist is not None and point.dist.name == "toy-game"
    assert Path(str(point.dist.locate_file(""))).resolve() == toy_game.PLUGINS
    assert games.get_game("toy") is toy_game.GAME
    # The built-in games are registered the same way, by this project's own metadata.
    assert games.entry_point("condottiere").dist.name == "condottiere-server"


def test_without_its_metadata_on_the_path_the_toy_game_is_unknown():
    toy_game.register()
    sys.path.remove(str(toy_game.PLUGINS))
    games.refresh()
    try:
        assert "toy" not in games.game_names()
        with pytest.raises(KeyError):
            games.get_game("toy")
    finally:
        toy_game.register()
    assert "toy" in games.game_names()


def test_no_product_file_names_the_toy_game():
    """The proof's premise: nothing outside the toy's own files knows it (a game that needed a line
    in the product would not be a plug-in)."""
    named = [
        str(path.relative_to(ROOT))
        for package in PRODUCT
        for path in (ROOT / package).rglob("*.py")
        if "toy_game" in path.read_text() or '"toy"' in path.read_text()
    ]
    assert named == []
    assert "toy" not in (ROOT / "pyproject.toml").read_text()


def test_a_plug_in_game_is_played_over_http_archived_replayed_exported_and_imported(client, run_jobs):
    table = ToyTable(client)
    created = client.get(f"/v1/games/{table.id}").get_json()
    assert created["game"] == "toy" and "seed" not in created["config"]  # its seed stays secret
    table.finish()
    summary = client.get(f"/v1/games/{table.id}").get_json()
    assert summary["status"] == "finished"

    page = client.get("/v1/archive?game=toy").get_json()
    assert [g["id"] for g in page["games"]] == [table.id]

    replay = client.get(f"/v1/games/{table.id}/replay?version=3").get_json()
    assert replay["finished"] is True and replay["viewer"] == "full"
    assert [len(p["hand"]) for p in replay["state"]["players"]] == [2, 2]

    _, markdown = follow(
        client, client.post(f"/v1/games/{table.id}/exports", json={"format": "markdown"}), run_jobs
    )
    assert markdown.get_data(as_text=True).startswith("# Toy high card")
    _, page_html = follow(
        client, client.post(f"/v1/games/{table.id}/exports", json={"format": "html"}), run_jobs
    )
    assert page_html.get_data(as_text=True).startswith("<!DOCTYPE html>")

    _, verified = follow(client, client.post(f"/v1/games/{table.id}/verify"), run_jobs)
    assert verified.get_json()["ok"] is True

    _, log = follow(client, client.post(f"/v1/games/{table.id}/exports", json={"format": "log"}), run_jobs)
    document = log.get_json()
    assert document["game"] == "toy" and document["finished"] is True
    job, again = import_job(client, {k: v for k, v in document.items() if k != "id"})
    assert job["status"] == "finished", job
    copy_id = again.get_json()["id"]
    first = client.get(f"/v1/games/{table.id}/events?limit=500").get_json()["events"]
    second = client.get(f"/v1/games/{copy_id}/events?limit=500").get_json()["events"]
    assert first == second
