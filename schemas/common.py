"""What the request schemas of every area share."""

from __future__ import annotations

import marshmallow as ma


class StrictSchema(ma.Schema):
    """A request body or query that refuses unknown fields (422 VALIDATION_ERROR), so a misspelt
    option is an error rather than silently ignored."""

    class Meta:
        unknown = ma.RAISE
