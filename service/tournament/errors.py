"""The tournament refusal that both the resource and the round pairing raise."""

from __future__ import annotations

from service import errors


class TableSizeNotAllowed(errors.ServiceError):
    status, code, title = 422, "TABLE_SIZE_NOT_ALLOWED", "The game does not allow that table size"


class InvalidStartTime(errors.ServiceError):
    status, code, title = 422, "INVALID_START_TIME", "The start time is not a date and time with its offset"


class StartTimePassed(errors.ServiceError):
    status, code, title = 422, "START_TIME_PASSED", "The start time has passed"
