"""Errors of the ways players find each other: challenges, seeks, the lobby and chat. Each has a
stable ``code`` and the HTTP status the API answers with (``service.errors.ServiceError``)."""

from __future__ import annotations

from service.errors import ServiceError


class ChallengeNotFound(ServiceError):
    status, code, title = 404, "CHALLENGE_NOT_FOUND", "No such challenge"


class ChallengeNotPending(ServiceError):
    status, code, title = 409, "CHALLENGE_NOT_PENDING", "The challenge is no longer open to answers"


class InvalidChallenge(ServiceError):
    status, code, title = 422, "INVALID_CHALLENGE", "The challenge's seats do not add up"


class UnknownAccount(ServiceError):
    status, code, title = 422, "UNKNOWN_ACCOUNT", "No account of that name"


class NotInvited(ServiceError):
    status, code, title = 403, "NOT_INVITED", "This account is not invited to the challenge"


class NotChallenger(ServiceError):
    status, code, title = 403, "NOT_CHALLENGER", "Only the challenger may do this"


class AccountRequired(ServiceError):
    status, code, title = 401, "ACCOUNT_REQUIRED", "Sign in to take a seat of this challenge"


class SeekNotFound(ServiceError):
    status, code, title = 404, "SEEK_NOT_FOUND", "No such seek"


class InvalidSeek(ServiceError):
    status, code, title = 422, "INVALID_SEEK", "Invalid seek"


class ChatRefused(ServiceError):
    status, code, title = 422, "CHAT_REFUSED", "The message was refused"


class ChatForbidden(ServiceError):
    status, code, title = 403, "CHAT_FORBIDDEN", "You may not write to this room"


class ChatFlood(ServiceError):
    status, code, title = 429, "CHAT_RATE_LIMITED", "Too many messages: wait a little"
