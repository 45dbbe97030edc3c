"""The live lobby's stream and a chat room's, read through the Python client generated from
openapi.yaml (openapi-python-client): every request is a generated function, every message decoded
into a generated model (``LobbySnapshotMessage``, ``LobbyGameMessage``, ``LobbyChallengeMessage``,
``LobbySeekMessage``, ``ChatStreamMessage``), with no cast; tests/clients/test_generated_clients.py
type-checks this file with the generated package under ``mypy --strict`` and runs it against a live
server.

    python streams_python.py BASE_URL SEED   (the generated package ``game_client`` on sys.path)

With the lobby's stream open: a Condottiere game is created (the lobby announces it, its free
seats) and an account makes an open challenge (announced too, its configuration decoded into the
game's own ``CondottiereConfig``). Then both seats of the game are claimed, seat 0 writes in the
players' room, and seat 1 reads the room's stream from its start.

Prints one JSON line: the lobby's events read, the announced challenge's configuration class, and
the chat's texts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

from game_client import AuthenticatedClient, Client
from game_client.api.accounts import post_v1_accounts, post_v1_sessions
from game_client.api.challenges import post_v1_challenges
from game_client.api.chat import post_v1_games_game_id_chat_room
from game_client.api.games import post_v1_games, post_v1_games_game_id_seats
from game_client.models import (
    Challenge,
    ChatMessage,
    ChatMessageRoom,
    ChatStreamMessage,
    ClaimSeatRequest,
    ClaimSeatResponse,
    CondottiereConfig,
    CondottiereConfigRequest,
    CondottiereCreateGameRequest,
    CreateAccountRequest,
    CreateChallengeRequest,
    CreateChallengeRequestConfig,
    GameSummary,
    LobbyChallengeEventChange,
    LobbyChallengeMessage,
    LobbyGameEventChange,
    LobbyGameMessage,
    LobbySeekMessage,
    LobbySnapshotMessage,
    PostChatRequest,
    PostV1GamesGameIdChatRoomRoom,
    Session,
    SignInRequest,
)

LobbyMessage = LobbySnapshotMessage | LobbyGameMessage | LobbyChallengeMessage | LobbySeekMessage


def sse_messages(lines: Iterator[str]) -> Iterator[tuple[str, str | None, str]]:
    """(event, id, data) of each message that has data (``retry:`` blocks and heartbeats have none)."""
    fields: dict[str, str] = {}
    for line in lines:
        if line.startswith(":"):
            continue
        if line:
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
            continue
        if "data" in fields:
            yield fields.get("event", "message"), fields.get("id"), fields["data"]
        fields = {}


def lobby_message(event: str, entry_id: str | None, data: str) -> LobbyMessage:
    """The message decoded into the generated model its ``event:`` names (each checks its name)."""
    document = {"event": event, "id": entry_id, "data": json.loads(data)}
    if event == "lobby":
        return LobbySnapshotMessage.from_dict(document)
    if event == "game":
        return LobbyGameMessage.from_dict(document)
    if event == "challenge":
        return LobbyChallengeMessage.from_dict(document)
    if event == "seek":
        return LobbySeekMessage.from_dict(document)
    raise SystemExit(f"not an event of the lobby: {event}")


def signed_in(client: Client, base_url: str, handle: str) -> AuthenticatedClient:
    password = "correct horse battery"
    post_v1_accounts.sync(client=client, body=CreateAccountRequest(handle=handle, password=password))
    session = post_v1_sessions.sync(client=client, body=SignInRequest(handle=handle, password=password))
    if not isinstance(session, Session):
        raise SystemExit(f"sign-in refused: {session}")
    return AuthenticatedClient(base_url=base_url, token=session.token, raise_on_unexpected_status=True)


def announced(lobby: Iterator[LobbyMessage], game_id: str, challenge_id: str, told: list[str]) -> Challenge:
    """Reads the lobby until both the game and the challenge were added; the challenge as told."""
    game_seen: LobbyGameMessage | None = None
    challenge_seen: Challenge | None = None
    for message in lobby:
        told.append(message.event)
        if isinstance(message, LobbyGameMessage) and message.data.id == game_id:
            if message.data.change == LobbyGameEventChange.ADDED:
                game_seen = message
        if isinstance(message, LobbyChallengeMessage) and message.data.id == challenge_id:
            if message.data.change == LobbyChallengeEventChange.ADDED:
                challenge_seen = message.data.data
        if game_seen is not None and challenge_seen is not None:
            break
    if game_seen is None or challenge_seen is None:
        raise SystemExit(f"the lobby ended before announcing both: {told}")
    if game_seen.data.data is None or game_seen.data.data.free_seats != [0, 1]:
        raise SystemExit(f"the game announced without its free seats: {game_seen}")
    return challenge_seen


def chat_told(base_url: str, game_id: str, token: str, text: str) -> list[ChatMessage]:
    """The players' room's stream from its start, read with a seat's token, until ``text``."""
    reader = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
    headers = {"Last-Event-ID": "0-0"}
    path = f"/v1/games/{game_id}/chat/players/stream"
    told: list[ChatMessage] = []
    with reader.get_httpx_client().stream("GET", path, headers=headers, timeout=60) as answer:
        for event, entry_id, data in sse_messages(answer.iter_lines()):
            message = ChatStreamMessage.from_dict({"event": event, "id": entry_id, "data": json.loads(data)})
            told.append(message.data)
            if message.data.text == text:
                return told
    raise SystemExit(f"the room's stream ended before the message: {told}")


def main(base_url: str, seed: int) -> dict[str, object]:
    spectator = Client(base_url=base_url, raise_on_unexpected_status=True)
    account = signed_in(spectator, base_url, f"pystreams{seed}")
    told: list[str] = []
    with spectator.get_httpx_client().stream("GET", "/v1/lobby/stream", timeout=60) as answer:
        lobby = (lobby_message(*message) for message in sse_messages(answer.iter_lines()))
        first = next(lobby)
        told.append(first.event)
        if not isinstance(first, LobbySnapshotMessage):
            raise SystemExit(f"the lobby did not open with its snapshot: {first}")
        # While the stream is open: a game anyone may join, and an open challenge.
        summary = post_v1_games.sync(
            client=spectator,
            body=CondottiereCreateGameRequest(
                game="condottiere", config=CondottiereConfigRequest(players=2, seed=seed)
            ),
        )
        if not isinstance(summary, GameSummary):
            raise SystemExit(f"create refused: {summary}")
        made = post_v1_challenges.sync(
            client=account,
            body=CreateChallengeRequest(
                # The request's configuration is still an open object (the engine checks it).
                game="condottiere",
                config=CreateChallengeRequestConfig.from_dict({"players": 2}),
                open_seats=1,
            ),
        )
        if not isinstance(made, Challenge):
            raise SystemExit(f"challenge refused: {made}")
        challenge = announced(lobby, summary.id, made.id, told)
    # The challenge's configuration is the game's own, decoded by the generated union.
    config = challenge.config
    if not isinstance(config, CondottiereConfig) or config.players != challenge.seat_count:
        raise SystemExit(f"the challenge's configuration is not Condottiere's: {config}")
    tokens: list[str] = []
    for index in range(summary.seat_count):
        claimed = post_v1_games_game_id_seats.sync(
            summary.id, client=spectator, body=ClaimSeatRequest(name=f"Player {index}")
        )
        if not isinstance(claimed, ClaimSeatResponse) or not isinstance(claimed.token, str):
            raise SystemExit(f"claim refused: {claimed}")
        tokens.append(claimed.token)
    text = f"good luck, table {seed}"
    writer = AuthenticatedClient(base_url=base_url, token=tokens[0], raise_on_unexpected_status=True)
    posted = post_v1_games_game_id_chat_room.sync(
        summary.id, PostV1GamesGameIdChatRoomRoom.PLAYERS, client=writer, body=PostChatRequest(text=text)
    )
    if not isinstance(posted, ChatMessage):
        raise SystemExit(f"chat refused: {posted}")
    chat = chat_told(base_url, summary.id, tokens[1], text)
    if chat[-1].seat != 0 or chat[-1].room != ChatMessageRoom.PLAYERS or chat[-1].id != posted.id:
        raise SystemExit(f"the room told another message: {chat}")
    return {
        "lobby": told,
        "challenge_config": type(config).__name__,
        "chat": [message.text for message in chat],
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
