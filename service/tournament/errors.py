"""The tournament refusal that both the resource and the round pairing raise."""

from __future__ import annotations

from service import errors


class TableSizeNotAllowed(errors.ServiceError):
    status, code, title = 422, "TABLE_SIZE_NOT_ALLOWED", "The game does not allow that table size"
