"""Bot accounts (``service.bot_accounts``): the upgrade and the list of bots online. Routes on the
accounts blueprint (``api.accounts``)."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from api.accounts import ACCOUNT_AUTH, NO_STORE, accounts, blp, identity
from api.common import json_response
from schemas.accounts import MeSchema, OnlineBotsSchema
from service import bot_accounts


@blp.route("/me/upgrade-to-bot")
class UpgradeToBot(MethodView):
    @blp.response(200, MeSchema)
    @blp.problems(401, 403, 409, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self) -> Response:
        """Make this account a bot account (scope `account`), as on Lichess: **irreversible**, and
        only for an account that has played no game (409 `ACCOUNT_HAS_GAMES`; 409 `ALREADY_BOT`).
        A bot account is labelled as a bot wherever it shows (`bot: true` on its profile, on
        leaderboards and rating histories) and is listed by GET /v1/bots/online while its
        /v1/me/stream is open. Sign up with `bot: true` to make one from the start."""
        return json_response(bot_accounts.upgrade_to_bot(accounts(), identity()), 200, NO_STORE)


@blp.route("/bots/online")
class OnlineBots(MethodView):
    @blp.response(200, OnlineBotsSchema)
    @blp.problems(429)
    def get(self) -> Response:
        """The bot accounts online: those with an open /v1/me/stream (a stream's lease lasts a
        minute past its last heartbeat, so a bot whose process died drops out within it), the most
        recently seen first, at most 200."""
        return json_response(bot_accounts.online_bots(accounts()), 200, {"Cache-Control": "no-cache"})
