"""One game played through the Python client generated from openapi.yaml (openapi-python-client):
every request is a generated function with generated models, every answer a generated model, and no
cast anywhere; tests/clients/test_generated_clients.py type-checks this file with the generated
package under ``mypy --strict`` and then runs it against a live server.

    python play_python.py BASE_URL GAME SEED   (the generated package ``game_client`` on sys.path)

Seat 0 is an account's, played with the account's token; after the game the script reads the
account's stream (``/v1/me/stream``: a stream, so read with the generated client's own HTTP client)
and decodes each message with the generated ``AccountStreamMessage``, whose ``data`` is the typed
union of the stream's events.

Prints one JSON line: the game's id, the moves played, the final version, the winners and the
events the account's stream told."""

from __future__ import annotations

import json
import random
import sys

from game_client import AuthenticatedClient, Client
from game_client.api.accounts import post_v1_accounts, post_v1_sessions
from game_client.api.games import (
    get_v1_games_game_id,
    get_v1_games_game_id_events,
    get_v1_games_game_id_view,
    post_v1_games,
    post_v1_games_game_id_moves,
    post_v1_games_game_id_seats,
)
from game_client.models import (
    AccountStreamMessage,
    ClaimSeatRequest,
    ClaimSeatResponse,
    CondottiereConfigRequest,
    CondottiereCreateGameRequest,
    CreateAccountRequest,
    EventsPage,
    GameFinishedEvent,
    GameStartedEvent,
    GameSummary,
    MoveRequest,
    MoveResponse,
    RioDeLaPlataConfigRequest,
    RioDeLaPlataCreateGameRequest,
    Session,
    SignInRequest,
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


def signed_in(client: Client, base_url: str, handle: str) -> AuthenticatedClient:
    password = "correct horse battery"
    post_v1_accounts.sync(client=client, body=CreateAccountRequest(handle=handle, password=password))
    session = post_v1_sessions.sync(client=client, body=SignInRequest(handle=handle, password=password))
    if not isinstance(session, Session):
        raise SystemExit(f"sign-in refused: {session}")
    return AuthenticatedClient(base_url=base_url, token=session.token, raise_on_unexpected_status=True)


def stream_until_finished(account: AuthenticatedClient, game_id: str) -> list[AccountStreamMessage]:
    """The account's stream from its first entry, each message decoded into the generated union,
    until the game's ``game_finished``."""
    told: list[AccountStreamMessage] = []
    fields: dict[str, str] = {}
    headers = {"Last-Event-ID": "0-0"}
    with account.get_httpx_client().stream("GET", "/v1/me/stream", headers=headers, timeout=60) as answer:
        for line in answer.iter_lines():
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
                continue
            if "data" in fields:
                message = AccountStreamMessage.from_dict(
                    {"event": fields["event"], "id": fields.get("id"), "data": json.loads(fields["data"])}
                )
                told.append(message)
                if isinstance(message.data, GameFinishedEvent) and message.data.game_id == game_id:
                    return told
            fields = {}
    raise SystemExit(f"the stream ended before the game did: {told}")


def main(base_url: str, game: str, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    spectator = Client(base_url=base_url, raise_on_unexpected_status=True)
    summary = create(spectator, game, seed)
    seats: dict[int, AuthenticatedClient] = {}
    # Seat 0: an account's, played with its account token ({} as the claim's body).
    account = signed_in(spectator, base_url, f"py{game[:3]}{seed}")
    held = post_v1_games_game_id_seats.sync(summary.id, client=account, body=ClaimSeatRequest(seat=0))
    if not isinstance(held, ClaimSeatResponse):
        raise SystemExit(f"the account's claim refused: {held}")
    seats[0] = account
    for index in range(1, summary.seat_count):
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
    told = stream_until_finished(account, summary.id)
    started = [m.data for m in told if isinstance(m.data, GameStartedEvent) and m.data.game_id == summary.id]
    if len(started) != 1 or started[0].seat != 0:
        raise SystemExit(f"the account's stream did not tell the start once: {told}")
    return {
        "game_id": summary.id,
        "moves": moves,
        "version": final.version,
        "winners": final.result.winners,
        "stream": [m.data.type_.value for m in told],
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
