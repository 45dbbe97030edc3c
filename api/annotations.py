"""The event log in plain English: the game's own sentence for each event (its ``annotate`` hook),
redacted for the reader like the log itself (everything once the game is over). Clients show it as
a game's running commentary and beside each step of a replay."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Response
from flask.views import MethodView

from api.archive import _game_and_viewer
from api.common import Blueprint, json_response
from api.games import OPTIONAL_AUTH
from games import get_game
from replays.core import _viewer_label, effective_viewer
from replays.export import annotations as event_annotations
from schemas.annotations import AnnotationsPageSchema, AnnotationsQuery

blp = Blueprint("annotations", __name__, url_prefix="/v1", description="The event log in plain English")


@blp.route("/games/<string:game_id>/annotations")
class Annotations(MethodView):
    @blp.arguments(AnnotationsQuery, location="query", unknown=ma.RAISE)
    @blp.response(200, AnnotationsPageSchema)
    @blp.problems(401, 404, 409, 422)
    @blp.doc(security=OPTIONAL_AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """One English sentence per event after ``after`` (at most ``limit``), as the token's seat
        (or a spectator) may read it while the game runs; complete once it is over."""
        log, seat = _game_and_viewer(game_id)
        game = get_game(log.name)
        viewer = effective_viewer(log.finished, seat)
        page = event_annotations(game, log.events, viewer, query["after"], query["limit"])
        last = page[-1]["version"] if page else None
        body = {
            "game_id": game_id,
            "version": log.version,
            "finished": log.finished,
            "viewer": _viewer_label(viewer),
            "annotations": page,
            "next_after": last if last is not None and last < log.version else None,
        }
        headers = {"Cache-Control": "no-store" if not log.finished else "no-cache", "Vary": "Authorization"}
        return json_response(body, 200, headers)
