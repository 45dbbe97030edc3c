"""A typed client generated from the committed openapi.yaml (datamodel-code-generator, pydantic v2
models) plays a whole Condottiere game through the app: every request is built from the generated
models and every answer parsed into them (closed objects: an undocumented field fails), so the
published contract is proven usable by a code generator (issue 15)."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def api_models(tmp_path_factory):
    target = tmp_path_factory.mktemp("typed_client") / "condottiere_api_models.py"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "datamodel_code_generator",
            "--input",
            str(ROOT / "openapi.yaml"),
            "--input-file-type",
            "openapi",
            "--output-model-type",
            "pydantic_v2.BaseModel",
            "--disable-timestamp",
            "--output",
            str(target),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    spec = importlib.util.spec_from_file_location(target.stem, target)
    module = importlib.util.module_from_spec(spec)
    sys.modules[target.stem] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(target.stem, None)


def send(model) -> dict:
    return model.model_dump(mode="json", exclude_unset=True)


def test_a_generated_typed_client_plays_a_whole_game(client, api_models):
    m = api_models
    rng = random.Random(15)
    created = client.post(
        "/v1/games",
        json=send(
            m.CondottiereCreateGameRequest(
                game="condottiere", config=m.CondottiereConfigRequest(players=2, seed=15)
            )
        ),
    )
    assert created.status_code == 201, created.get_json()
    game = m.GameSummary.model_validate(created.get_json())
    tokens: dict[int, str] = {}
    for name in ("Ann", "Bob"):
        claimed = client.post(f"/v1/games/{game.id}/seats", json=send(m.ClaimSeatRequest(name=name)))
        seat = m.ClaimSeatResponse.model_validate(claimed.get_json())
        tokens[seat.seat] = seat.token
    seen_events: set[type] = set()
    moves = 0
    while True:
        public = m.ViewResponse.model_validate(client.get(f"/v1/games/{game.id}/view").get_json())
        assert isinstance(public.view, m.CondottiereView)
        if public.status.value == "finished":
            break
        seat = public.view.awaiting[0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = m.ViewResponse.model_validate(client.get(f"/v1/games/{game.id}/view", headers=auth).get_json())
        assert mine.view.hand is not None and mine.view.legal_moves
        command = rng.choice(mine.view.legal_moves)
        assert isinstance(command, m.CondottiereCommand)  # a typed union member, not a dict
        request = m.MoveRequest(command=command, expected_version=mine.version)
        answer = client.post(f"/v1/games/{game.id}/moves", json=send(request), headers=auth)
        assert answer.status_code == 200, answer.get_json()
        moved = m.MoveResponse.model_validate(answer.get_json())
        assert moved.version > mine.version and moved.events
        seen_events.update(type(item.event.root) for item in moved.events)
        moves += 1
        assert moves < 3000, "the game does not end"
    assert {
        m.CondottiereCardPlayedEvent,
        m.CondottiereBattleEndedEvent,
        m.CondottiereGameWonEvent,
    } <= seen_events
    assert public.view.result is not None and public.view.result.winners is not None
    page = m.EventsPage.model_validate(client.get(f"/v1/games/{game.id}/events?limit=500").get_json())
    assert isinstance(page.events[0].event.root, m.CondottiereGameStartedEvent)
    replay = m.Replay.model_validate(client.get(f"/v1/games/{game.id}/replay?version=10").get_json())
    assert isinstance(replay.state, m.CondottiereView)
    entry = m.ArchiveEntry.model_validate(client.get(f"/v1/archive/{game.id}").get_json())
    assert entry.id == game.id and entry.players == ["Ann", "Bob"]
