"""Errors of the application layer. Each carries a stable machine-readable ``code``, the HTTP status
the API answers with (the service itself knows nothing of HTTP beyond that hint), a message that
never reveals hidden information, and optional extra members for the problem document."""

from __future__ import annotations

from typing import Any

from games.base import GameError


class ServiceError(Exception):
    status = 400
    code = "BAD_REQUEST"
    title = "Bad request"

    def __init__(self, message: str | None = None, **extra: Any):
        super().__init__(message or self.title)
        self.message = message or self.title
        self.extra = extra


class GameNotFound(ServiceError):
    status, code, title = 404, "GAME_NOT_FOUND", "No such game"


class UnknownGame(ServiceError):
    status, code, title = 422, "UNKNOWN_GAME", "No such game engine"


class InvalidToken(ServiceError):
    status, code, title = 401, "INVALID_TOKEN", "Missing or invalid seat token"


class SeatTokensExpired(InvalidToken):
    """A seat token sent to a finished game whose token hashes are no longer kept (they expire an
    hour after its compaction, with its idempotency records): the token cannot be checked, so no
    seat's view; everyone's view of the game, its events and replay stay readable."""

    def __init__(self) -> None:
        super().__init__(
            "The game is finished and its seat tokens are no longer kept: read it without a token "
            "(GET /v1/games/{id}/view, /events, /replay)."
        )


class InvalidTicket(ServiceError):
    status, code, title = 401, "INVALID_TICKET", "Unknown, expired or already used stream ticket"


class InvalidDeviceLink(ServiceError):
    status, code, title = 401, "INVALID_DEVICE_LINK", "Unknown, expired or already used device link"


class GameNotStarted(ServiceError):
    status, code, title = 409, "GAME_NOT_STARTED", "The game has not started: seats are still free"


class GameFull(ServiceError):
    status, code, title = 409, "GAME_FULL", "Every seat of this game is taken"


class SeatTaken(ServiceError):
    status, code, title = 409, "SEAT_TAKEN", "That seat is already taken"


class NoSuchSeat(ServiceError):
    status, code, title = 422, "NO_SUCH_SEAT", "The game has no such seat"


class InvalidBot(ServiceError):
    status, code, title = 422, "UNKNOWN_BOT_LEVEL", "No such bot level"


class NotABotSeat(ServiceError):
    status, code, title = 403, "NOT_A_BOT_SEAT", "Only bot seats may be played without a token"


class VersionConflict(ServiceError):
    status, code, title = 409, "VERSION_CONFLICT", "The game has moved on since that version"

    def __init__(self, current_version: int, message: str | None = None):
        super().__init__(message, current_version=current_version)
        self.current_version = current_version


class IdempotencyKeyReused(ServiceError):
    status, code, title = (
        422,
        "IDEMPOTENCY_KEY_REUSED",
        ("This Idempotency-Key was already used with a different request"),
    )


class RetryAfterFinish(ServiceError):
    """A move with an Idempotency-Key reached a finished game whose record of that key is gone
    (finished games keep their idempotency records for a while after they are compacted, not for
    the 7 days of a running game). The service cannot tell whether this is a late retry of a move
    that was applied or a new move, so it says so instead of guessing."""

    status, code, title = 409, "GAME_FINISHED", "The game is finished"

    def __init__(self, current_version: int):
        super().__init__(
            "The game is finished and the first answer to this Idempotency-Key is no longer kept. If "
            "this is a retry, read the game's events (GET /v1/games/{id}/events) to see whether the "
            "move was applied.",
            current_version=current_version,
        )
        self.current_version = current_version


class Busy(ServiceError):
    status, code, title = 503, "CONTENTION", "The game changed too often while deciding; retry"


class RuleRefusal(ServiceError):
    """The engine refused a command or a configuration (``GameError``): its code, message and rule
    are passed through unchanged."""

    status, title = 422, "Refused by the rules"

    def __init__(self, error: GameError):
        super().__init__(error.message, **({"rule": error.rule} if error.rule else {}))
        self.code = error.code
        self.error = error


class NotSupported(ServiceError):
    status, code, title = 422, "NOT_SUPPORTED", "This game does not support that action"


class InvalidClock(ServiceError):
    status, code, title = 422, "INVALID_CLOCK", "Invalid time control"


class GameStarted(ServiceError):
    status, code, title = 409, "GAME_STARTED", "The game has started: its seats can no longer be left"


class NotYourSeat(ServiceError):
    status, code, title = 403, "NOT_YOUR_SEAT", "The token does not hold that seat"


class GameNotOver(ServiceError):
    status, code, title = 409, "GAME_NOT_OVER", "The game is not over: no rematch yet"
