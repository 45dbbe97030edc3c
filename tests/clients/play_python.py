"""One game played through the Python client generated from openapi.yaml (openapi-python-client):
every request is a generated function with generated models, every answer a generated model, and no
cast anywhere; tests/clients/test_generated_clients.py type-checks this file with the generated
package under ``mypy --strict`` and then runs it against a live server.

    python play_python.py BASE_URL GAME SEED   (the generated package ``game_client`` on sys.path)

Prints one JSON line: the game's id, the moves played, the final version and the winners."""

from __future__ import annotations

import json
import random
import sys

from game_client import AuthenticatedClient, Client
from game_client.api.games import (
    get_v1_games_game_id,
    get_v1_games_game_id_events,
    get_v1_games_game_id_view,
    post_v1_games,
    post_v1_games_game_id_moves,
    post_v1_games_game_id_seats,
)
from game_client.models import (
    ClaimSeatRequest,
    ClaimSeatResponse,
    CondottiereConfigRequest,
    CondottiereCreateGameRequest,
    EventsPage,
    GameSummary,
    MoveRequest,
    MoveResponse,
    RioDeLaPlataConfigRequest,
    RioDeLaPlataCreateGameRequest,
    ViewResponse,
    ViewResponseStatus,
)
from game_client.types import Unset

MAX_MOVES = 4000


def create(client: Client, game: str, seed: int) -> GameSummary:
    body: CondottiereCreateGameRequest | RioDeLaPlataCreateGameRequest
    if game == "condottiere":
        body = CondottiereCreateGameRequest(
            game="condottiere", config=CondottiereConfigRequest(players=2, seed=seed)
        )
    else:
        body = RioDeLaPlataCreateGameRequest(
            game="rio_de_la_plata", config=RioDeLaPlataConfigRequest(players=3, seed=seed)
        )
    summary = post_v1_games.sync(client=client, body=body)
    if not isinstance(summary, GameSummary):
        raise SystemExit(f"create refused: {summary}")
    return summary


def view_of(client: Client | AuthenticatedClient, game_id: str) -> ViewResponse:
    view = get_v1_games_game_id_view.sync(game_id, client=client)
    if not isinstance(view, ViewResponse):
        raise SystemExit(f"view refused: {view}")
    return view


def main(base_url: str, game: str, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    spectator = Client(base_url=base_url, raise_on_unexpected_status=True)
    summary = create(spectator, game, seed)
    seats: dict[int, AuthenticatedClient] = {}
    for index in range(summary.seat_count):
        claimed = post_v1_games_game_id_seats.sync(
            summary.id, client=spectator, body=ClaimSeatRequest(name=f"Player {index}")
        )
        if not isinstance(claimed, ClaimSeatResponse) or not isinstance(claimed.token, str):
            raise SystemExit(f"claim refused: {claimed}")
        seats[claimed.seat] = AuthenticatedClient(
            base_url=base_url, token=claimed.token, raise_on_unexpected_status=True
        )
    # A spectator polling with the view's ETag is answered 304 while nothing changed.
    first = get_v1_games_game_id_view.sync_detailed(summary.id, client=spectator)
    etag = first.headers["ETag"]
    unchanged = get_v1_games_game_id_view.sync_detailed(summary.id, client=spectator, if_none_match=etag)
    assert unchanged.status_code == 304 and unchanged.parsed is None, unchanged
    moves = 0
    while True:
        public = view_of(spectator, summary.id)
        if public.status == ViewResponseStatus.FINISHED:
            break
        if public.view is None or isinstance(public.view, Unset):
            raise SystemExit("a started game without a view")
        seat = public.view.awaiting[0]
        mine = view_of(seats[seat], summary.id)
        if mine.view is None or isinstance(mine.view, Unset) or isinstance(mine.view.legal_moves, Unset):
            raise SystemExit("the awaited seat has no legal moves")
        command = rng.choice(mine.view.legal_moves)
        answer = post_v1_games_game_id_moves.sync(
            summary.id,
            client=seats[seat],
            body=MoveRequest(command=command, expected_version=mine.version),
            idempotency_key=f"{seat}-{mine.version}",
        )
        if not isinstance(answer, MoveResponse):
            raise SystemExit(f"move refused: {answer}")
        assert answer.version > mine.version
        moves += 1
        if moves >= MAX_MOVES:
            raise SystemExit(f"no end after {moves} moves")
    final = get_v1_games_game_id.sync(summary.id, client=spectator)
    if not isinstance(final, GameSummary) or final.result is None or isinstance(final.result, Unset):
        raise SystemExit(f"a finished game without a result: {final}")
    page = get_v1_games_game_id_events.sync(summary.id, client=spectator, limit=5)
    if not isinstance(page, EventsPage) or not page.events:
        raise SystemExit(f"no events: {page}")
    return {"game_id": summary.id, "moves": moves, "version": final.version, "winners": final.result.winners}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
