"""Webhook routes: an account's signed webhooks (token scope `webhooks`). Thin: HTTP <->
:class:`service.webhooks.WebhookService`. The signing secret is in the answer that creates a
webhook only (``Cache-Control: no-store``)."""

from __future__ import annotations

from typing import Any, cast

from flask import Response, current_app, request
from flask.views import MethodView

from api.accounts import ACCOUNT_AUTH, NO_STORE, identity
from api.common import Blueprint, json_response, parse_bearer
from schemas.webhooks import (
    CreateGameWebhookRequest,
    CreateWebhookRequest,
    DeliveryLogSchema,
    NewWebhookSchema,
    PingSchema,
    UpdateWebhookRequest,
    WebhookListSchema,
    WebhookSchema,
)
from service.errors import ServiceError
from service.identity import WEBHOOKS
from service.webhooks import WebhookService

blp = Blueprint("webhooks", __name__, url_prefix="/v1", description="Signed webhooks of an account")


def webhooks() -> WebhookService:
    """The app's webhook service (settings: ``WEBHOOK_*`` in the app's config or the environment;
    ``WEBHOOK_ALLOW_PRIVATE_TARGETS`` is for tests and closed networks)."""
    return cast(WebhookService, current_app.extensions["webhook_service"])


def owner() -> str:
    return identity(WEBHOOKS).account_id


def note_creator(game_id: str) -> None:
    """The create route's seam: remember the account (any valid account token in
    ``Authorization``) that created ``game_id``, which may then subscribe to the whole game. Any
    other header, or none, is ignored, as the create route always did."""
    from service.identity import is_account_token

    header = request.headers.get("Authorization")
    token = parse_bearer(header) if header is not None else None
    if token is None or not is_account_token(token):
        return
    try:
        who = identity()
    except ServiceError:
        return  # a bad token does not refuse a creation that never needed one
    webhooks().store.set_creator(game_id, who.account_id)


@blp.route("/me/webhooks")
class Webhooks(MethodView):
    @blp.response(200, WebhookListSchema)
    @blp.problems(401, 403)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self) -> Response:
        """The account's webhooks (never their secrets)."""
        return json_response({"webhooks": webhooks().listing(owner())}, 200, NO_STORE)

    @blp.arguments(CreateWebhookRequest())
    @blp.response(201, NewWebhookSchema)
    @blp.problems(400, 401, 403, 409, 413, 415, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any]) -> Response:
        """Register a URL for some of the account's events (`your_turn`, `game_started`,
        `game_finished`; `verified` and `export_ready` when a verification or an export the account
        started with its token has finished), of every game or of one. Each delivery is a POST
        signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`,
        `webhook-signature`), with the secret shown only in this answer; retried with backoff for
        more than a day."""
        made = webhooks().subscribe(owner(), body["url"], body["events"], body["game_id"], body["format"])
        return json_response(made, 201, NO_STORE)


@blp.route("/me/webhooks/<string:webhook_id>")
class Webhook(MethodView):
    @blp.response(200, WebhookSchema)
    @blp.problems(401, 403, 404)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self, webhook_id: str) -> Response:
        """One webhook (without its secret)."""
        return json_response(webhooks().public(owner(), webhook_id), 200, NO_STORE)

    @blp.arguments(UpdateWebhookRequest())
    @blp.response(200, WebhookSchema)
    @blp.problems(400, 401, 403, 404, 413, 415, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def patch(self, body: dict[str, Any], webhook_id: str) -> Response:
        """Pause or resume a webhook (a paused one is sent nothing; resuming restarts its count of
        failing days)."""
        return json_response(webhooks().set_paused(owner(), webhook_id, body["paused"]), 200, NO_STORE)

    @blp.response(204)
    @blp.problems(401, 403, 404)
    @blp.doc(security=ACCOUNT_AUTH)
    def delete(self, webhook_id: str) -> Response:
        """Delete a webhook: its pending deliveries are dropped."""
        webhooks().delete(owner(), webhook_id)
        return Response(status=204)


@blp.route("/me/webhooks/<string:webhook_id>/ping")
class Ping(MethodView):
    @blp.response(202, PingSchema)
    @blp.problems(401, 403, 404, 429)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, webhook_id: str) -> Response:
        """Send the webhook a test delivery (event `ping`), as signed as any other. At most 5 a
        minute per account (all its webhooks together): beyond, 429 `TOO_MANY_PINGS` with
        `Retry-After`."""
        return json_response({"delivery_id": webhooks().ping(owner(), webhook_id)}, 202, NO_STORE)


@blp.route("/me/webhooks/<string:webhook_id>/deliveries")
class Deliveries(MethodView):
    @blp.response(200, DeliveryLogSchema)
    @blp.problems(401, 403, 404)
    @blp.doc(security=ACCOUNT_AUTH)
    def get(self, webhook_id: str) -> Response:
        """The webhook's last attempts, newest first: outcome, HTTP status, latency, error."""
        return json_response({"attempts": webhooks().deliveries(owner(), webhook_id)}, 200, NO_STORE)


@blp.route("/games/<string:game_id>/webhooks")
class GameWebhooks(MethodView):
    @blp.arguments(CreateGameWebhookRequest())
    @blp.response(201, NewWebhookSchema)
    @blp.problems(400, 401, 403, 409, 413, 415, 422)
    @blp.doc(security=ACCOUNT_AUTH)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Register a URL for the whole game (only its creator: the account whose token created it;
                scope `webhooks`): its start and its end, what any spectator may know, never a seat's view
        (nor a job's end: that is told to the account that asked for the job).
                Listed, paused and deleted with the account's other webhooks (`/v1/me/webhooks`)."""
        made = webhooks().subscribe_game(owner(), game_id, body["url"], body["events"], body["format"])
        return json_response(made, 201, NO_STORE)
