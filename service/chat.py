"""Chat at a game: the players' room and the spectators' room.

Who may do what: the players' room is read and written by the game's seats only (a seat token,
or the token of the account bound to a seat); the spectators' room is read by anyone and written
by signed-in accounts that hold no seat of the game, so spectators never write to the players'
and players cannot hear the audience's hints in a room of their own while they play (a player
may read the spectators' room, as on Lichess). A player may mute a seat: its messages are left
out of what that player reads.

Limits: at most :data:`MAX_LENGTH` characters, no control or bidirectional formatting
characters, at most :data:`MOST_PER_WINDOW` messages per sender every :data:`WINDOW_SECONDS`
(counted in the store's script, so a refused message writes nothing).

What a message carries: its room, the seat (players) or handle (spectators), the name, the text
and the time, never anything of the game's state: chat can leak no hidden information beyond
what its writer types.

Archive: chat is never part of the archive, the exports or the game's log (the log is the game's
truth, replayed and verified; words are not moves), and a room keeps only its last 500 messages.
Archiving it would need every player's consent to publish their words; without a consent flow,
nothing is kept beyond the live room.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from schemas.common import BIDI_CONTROLS, stream_id_ok
from service import errors
from service.accounts import AccountService
from service.games import GameService
from service.identity import PLAY, READ, NotSeated, is_account_token
from service.live import FeedSubscription
from service.meet_errors import ChatFlood, ChatForbidden, ChatRefused
from service.repository import now_iso
from store import parts
from store.chat import room_key

ROOMS = ("players", "spectators")
MAX_LENGTH = 300
MOST_PER_WINDOW = 5
WINDOW_SECONDS = 10.0


@dataclass(frozen=True)
class Speaker:
    seat: int | None
    name: str | None
    sender: str  # the rate counter's key: seat:<n> or acct:<id>; '' for an anonymous reader


def text_problem(text: str) -> str | None:
    if not text.strip():
        return "The message is empty."
    if len(text) > MAX_LENGTH:
        return f"At most {MAX_LENGTH} characters."
    if any(unicodedata.category(c) == "Cc" for c in text):
        return "Control characters (line breaks included) are refused."
    if any(c in BIDI_CONTROLS for c in text):
        return "Bidirectional formatting characters are refused."
    return None


class ChatService:
    def __init__(self, games: GameService, accounts: AccountService):
        self.games = games
        self.accounts = accounts
        self.store = parts.chat(games.store)

    def speaker(self, game_id: str, token: str | None, scope: str = READ) -> Speaker:
        """Who ``token`` is at the game: a seat, a signed-in spectator (an account token with
        ``scope``: `play` to write, `read` to read), or an anonymous reader."""
        meta = self.games.repository.meta(game_id)  # GameNotFound first
        if token is None:
            return Speaker(None, None, "")
        try:
            seat, _ = self.games.viewer_seat(game_id, token)
        except NotSeated:
            seat = None
        if seat is not None:
            return Speaker(seat, meta.get(f"name:{seat}"), f"seat:{seat}")
        if not is_account_token(token):
            raise errors.InvalidToken()
        who = self.accounts.identify(token, scope)
        return Speaker(None, self.accounts.handle_of(who.account_id), f"acct:{who.account_id}")

    def post(self, game_id: str, token: str | None, room: str, text: str) -> dict[str, Any]:
        speaker = self.speaker(game_id, token, PLAY)
        if room == "players" and speaker.seat is None:
            raise ChatForbidden("Only the game's players write in the players' room")
        if room == "spectators" and (speaker.seat is not None or not speaker.sender):
            raise ChatForbidden("The spectators' room is written by signed-in spectators")
        problem = text_problem(text)
        if problem is not None:
            raise ChatRefused(problem)
        message = {"room": room, "seat": speaker.seat, "name": speaker.name, "text": text, "at": now_iso()}
        outcome, detail = self.store.post(
            game_id, room, speaker.sender, message, MOST_PER_WINDOW, int(WINDOW_SECONDS * 1000)
        )
        if outcome == "flood":
            raise ChatFlood(
                f"At most {MOST_PER_WINDOW} messages every {WINDOW_SECONDS:g} s", retry_after_ms=detail
            )
        return {"id": detail, **message}

    def _may_read(self, speaker: Speaker, room: str) -> None:
        if room == "players" and speaker.seat is None:
            raise ChatForbidden("Only the game's players read the players' room")

    def read(self, game_id: str, token: str | None, room: str, after: str | None) -> list[dict[str, Any]]:
        speaker = self.speaker(game_id, token)
        self._may_read(speaker, room)
        if after is not None and not stream_id_ok(after):
            # The schema admits any 20 digits a part; an id past every id a stream can hold has
            # nothing after it (and Redis would refuse to read from it).
            return []
        muted = self.store.muted(game_id, speaker.seat) if speaker.seat is not None else set()
        return [
            {"id": entry_id, **message}
            for entry_id, message in self.store.after(game_id, room, after)
            if message.get("seat") not in muted
        ]

    def mute(self, game_id: str, token: str | None, seat: int, muted: bool) -> list[int]:
        speaker = self.speaker(game_id, token)
        if speaker.seat is None:
            raise ChatForbidden("Only a player mutes a seat")
        count = int(self.games.repository.meta(game_id)["seat_count"])
        if not 0 <= seat < count or seat == speaker.seat:
            raise errors.NoSuchSeat(f"Mute another seat of this game (0..{count - 1})")
        self.store.set_muted(game_id, speaker.seat, seat, muted)
        return sorted(self.store.muted(game_id, speaker.seat))

    def follow(self, game_id: str, room: str) -> FeedSubscription:
        return self.games.live.follow_feed(room_key(game_id, room), lambda: self.store.last_id(game_id, room))
