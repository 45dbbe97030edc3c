"""The Flask app factory. Blueprints are registered from :data:`BLUEPRINT_MODULES`; modules listed in
:data:`OPTIONAL_BLUEPRINT_MODULES` are registered when they exist, so another area adds its routes by
creating ``api/<name>.py`` with a module-level ``blp`` (an :class:`api.common.Blueprint`)."""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import flask_swagger_ui
import yaml
from flask import Blueprint, Flask, Response, send_from_directory
from flask_cors import CORS
from werkzeug.exceptions import HTTPException

from api import contract, cors_adapter, problems, ratelimit, smorest_adapter
from api.common import refuse_tokens_outside_header
from schemas import stream_messages
from schemas.archive import ExchangeDocumentSchema, ImportedSchema, ObservationSchema
from schemas.challenges import ChallengeEventSchema
from schemas.games import CreateGameRequest, StreamEndSchema, ViewStreamEndSchema
from schemas.jobs import VerifyReportSchema
from schemas.lobby import (
    LobbyChallengeEventSchema,
    LobbyGameEventSchema,
    LobbySeekEventSchema,
    LobbySnapshotSchema,
)
from schemas.me_stream import ACCOUNT_STREAM_EVENT, ACCOUNT_STREAM_MESSAGE, VARIANTS
from schemas.problems import ProblemSchema
from service import composition
from service.webhook_delivery import WebhookSettings
from store import queue_url

BLUEPRINT_MODULES: list[str] = ["api.health", "api.games", "api.accounts"]
# Modules whose routes sit on another module's blueprint (imported before the blueprints register).
ROUTE_MODULES: list[str] = ["api.game_streams", "api.seat_changes", "api.bot_accounts"]
OPTIONAL_BLUEPRINT_MODULES: list[str] = [
    "api.archive",
    "api.jobs",
    "api.stats",
    "api.annotations",
    "api.ratings",
    "api.webhooks",
    "api.analysis",
    "api.challenges",
    "api.seeks",
    "api.lobby",
    "api.chat",
    "api.tournaments",
    "api.ladder",
]
# Schemas no route parses or answers with itself, named in the OpenAPI document: the body of a log
# import (its job parses it), the jobs' results (the job resource serves any content) and the
# streams' event payloads (a text/event-stream answer names them: api.game_streams.sse_content).
DOCUMENTED_SCHEMAS = {
    "ExchangeDocument": ExchangeDocumentSchema,
    "Imported": ImportedSchema,
    "VerifyReport": VerifyReportSchema,
    "Observation": ObservationSchema,  # a line of an observation export (POST /v1/exports/observations)
    "StreamEnd": StreamEndSchema,
    "ViewStreamEnd": ViewStreamEndSchema,
    # The challenge events of GET /v1/me/stream and the live lobby's (GET /v1/lobby/stream).
    "ChallengeEvent": ChallengeEventSchema,
    **{component: schema for component, schema in VARIANTS.values() if component != "ChallengeEvent"},
    "LobbySnapshot": LobbySnapshotSchema,
    "LobbyGameEvent": LobbyGameEventSchema,
    "LobbyChallengeEvent": LobbyChallengeEventSchema,
    "LobbySeekEvent": LobbySeekEventSchema,
}

DEFAULTS: dict[str, Any] = {
    # Anonymous players may seek casual games (POST /v1/seeks without a token).
    "ANONYMOUS_SEEKS": True,
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "SSE_HEARTBEAT_SECONDS": 15.0,
    "GAME_CACHE_SIZE": 1024,
    # Seconds before a Redis call is given up (503): a hung Redis must not hang requests forever.
    "REDIS_SOCKET_TIMEOUT": 10.0,
    # Connections of the web process's pool. Requests hold one only for a round trip, and open
    # streams none (the live listener reads for all of them on a connection of its own), so a few
    # serve a gevent worker; beyond them a request waits for one to come back (up to the timeout).
    "REDIS_MAX_CONNECTIONS": 3,
    "API_TITLE": "Condottiere server",
    "API_VERSION": "1",
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "v1/openapi.json",
    # Swagger UI rather than ReDoc: its "Try it out" lets a client author send real requests with a
    # seat token from the page. Its assets come from the pinned flask-swagger-ui wheel and are served
    # by the app itself (see _register_swagger_ui_rule), so /docs works offline.
    "OPENAPI_SWAGGER_UI_PATH": "docs",
    "OPENAPI_SWAGGER_UI_URL": "/docs/assets/",
    # No validator badge: it would send the document to a third-party service from the reader's browser.
    "OPENAPI_SWAGGER_UI_CONFIG": {"validatorUrl": None},
    # Browser clients on other origins (CORS). "*" by default: a public API whose credentials are
    # bearer tokens a script must set itself, never cookies, so another origin gains nothing a
    # curl user lacks. CORS_ORIGINS narrows it (comma-separated origins).
    "CORS_ORIGINS": "*",
    "JSON_SORT_KEYS": False,
    "RATE_LIMITS_ENABLED": True,
    # Reverse proxies in front of the app whose X-Forwarded-For is trusted (0: none): the client
    # address (rate limits, logs) is then the one the nearest trusted proxy saw.
    "TRUSTED_PROXIES": 0,
    "RATE_LIMIT_STRATEGY": "fixed-window",
    **ratelimit.LIMIT_SETTINGS,
    # Ordinary moves answered in front of Flask (api/edge/move_path.py); off: every move through Flask.
    "MOVE_FAST_PATH": True,
    # View streams written by the live reader itself where the server allows it (api/edge/view_push.py).
    "VIEW_STREAM_PUSH": True,
    # Argon2id parameters of account passwords (an argon2.Parameters; None: argon2-cffi's
    # recommended ones, RFC 9106's low-memory profile, service.accounts.PASSWORD_PROFILE).
    "PASSWORD_HASH_PARAMETERS": None,
    # The longest an open GET /v1/me/stream goes without reading its account's feed when the live
    # reader did not wake it (the fallback: it is woken when the feed moves; service.accounts).
    "ACCOUNT_STREAM_POLL_SECONDS": 15.0,
}


def _switch(value: str) -> bool:
    return value.strip().lower() not in ("0", "false", "no", "off")


# Environment variables read by the factory (config passed in wins).
ENV_SETTINGS: dict[str, Callable[[str], Any]] = {
    "REDIS_URL": str,
    "RQ_REDIS_URL": str,
    "CORS_ORIGINS": str,
    "MAX_CONTENT_LENGTH": int,
    "SSE_HEARTBEAT_SECONDS": float,
    "GAME_CACHE_SIZE": int,
    "REDIS_SOCKET_TIMEOUT": float,
    "RATE_LIMITS_ENABLED": _switch,
    "RATE_LIMIT_STRATEGY": str,
    "TRUSTED_PROXIES": int,
    "MOVE_FAST_PATH": _switch,
    "VIEW_STREAM_PUSH": _switch,
    "ACCOUNT_STREAM_POLL_SECONDS": float,
    **{name: str for name in ratelimit.LIMIT_SETTINGS},
    "REDIS_MAX_CONNECTIONS": int,
}


class Api(smorest_adapter.Api):
    """Every error, flask-smorest's and webargs' included, is a problem+json document, and the
    OpenAPI document says so (the stock default responses are application/json)."""

    ERROR_SCHEMA = ProblemSchema
    ERROR_MIME = problems.PROBLEM_MIME

    def handle_http_exception(self, error: HTTPException) -> Response:
        return problems.from_http_exception(error)

    def add_docs_rules(self, blueprint: Blueprint) -> None:
        # The docs blueprint ("api-docs") also serves the document as YAML next to the JSON, and
        # Swagger UI's own files, so the page needs nothing from another host.
        blueprint.add_url_rule("/v1/openapi.yaml", endpoint="openapi_yaml", view_func=self._openapi_yaml)
        blueprint.add_url_rule(
            "/docs/assets/<path:filename>", endpoint="swagger_ui_asset", view_func=_swagger_ui_asset
        )

    def _openapi_yaml(self) -> Response:
        text = yaml.safe_dump(self.spec.to_dict(), sort_keys=False, allow_unicode=True, width=100)
        return Response(text, mimetype="application/yaml")


def _schema_level_keywords(converter: Any) -> None:
    """A schema class's ``OPENAPI_EXTRA`` (keywords about the whole object that no field can say,
    such as "a name or a bot") is merged into its JSON Schema in the document."""
    convert = converter.schema2jsonschema

    def schema2jsonschema(schema: Any) -> dict[str, Any]:
        document: dict[str, Any] = convert(schema)
        document.update(getattr(schema, "OPENAPI_EXTRA", {}))
        return document

    converter.schema2jsonschema = schema2jsonschema


def _swagger_ui_asset(filename: str) -> Response:
    return send_from_directory(SWAGGER_UI_DIR, filename, max_age=24 * 3600)


SWAGGER_UI_DIR = Path(flask_swagger_ui.__file__).parent / "dist"

# What a browser client on another origin needs: the request headers it sets (preflighted) and the
# response headers it reads (a browser hides all but a few unless listed).
CORS_ALLOW_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
    "Prefer",
]
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Location",
    "Retry-After",
    "Idempotent-Replayed",
    "WWW-Authenticate",
    "Link",
    "Preference-Applied",
    "RateLimit",
    "RateLimit-Policy",
]


def _cors_origins(value: str | list[str]) -> str | list[str]:
    if isinstance(value, list):
        return value
    origins = [origin.strip() for origin in value.split(",") if origin.strip()]
    return "*" if origins == ["*"] else origins


def _settings(config: Mapping[str, Any] | None) -> dict[str, Any]:
    settings = dict(DEFAULTS)
    for name, cast in ENV_SETTINGS.items():
        if os.environ.get(name):
            settings[name] = cast(os.environ[name])
    settings.update(config or {})
    return settings


def _service_settings(config: Mapping[str, Any]) -> composition.Settings:
    """What the composition root builds the web process's services from."""
    url = config.get("REDIS_URL")
    if not url:
        raise RuntimeError("REDIS_URL is not set: pass it in config or the environment")
    timeout = float(config["REDIS_SOCKET_TIMEOUT"])
    webhooks = {
        name: config[f"WEBHOOK_{name.upper()}"]
        for name in WebhookSettings().__dict__
        if f"WEBHOOK_{name.upper()}" in config
    }
    return composition.Settings(
        redis_url=url,
        # Fails here, at start-up, when REDIS_URL is a cluster and RQ_REDIS_URL is unset.
        queue_url=queue_url(url, config.get("RQ_REDIS_URL")),
        cache_size=int(config["GAME_CACHE_SIZE"]),
        live_block_seconds=float(config["SSE_HEARTBEAT_SECONDS"]),
        redis_options={
            "max_connections": int(config["REDIS_MAX_CONNECTIONS"]),
            "pool_timeout": timeout,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
        },
        password_parameters=config["PASSWORD_HASH_PARAMETERS"],
        account_stream_poll_seconds=float(config["ACCOUNT_STREAM_POLL_SECONDS"]),
        webhooks=WebhookSettings.from_env(**webhooks),
        # Not the archived games' facts: CPU work the janitor does after the grace period.
        facts=False,
    )


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. ``REDIS_URL`` comes from ``config`` or the environment (required; and
    ``RQ_REDIS_URL`` when ``REDIS_URL`` names a cluster). Its services are built by the composition
    root (``service.composition``). No Redis connection is opened here (redis-py connects lazily)."""
    app = Flask(__name__)
    app.config.update(_settings(config))
    proxies = int(app.config["TRUSTED_PROXIES"])
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    services = composition.build(_service_settings(app.config))
    app.extensions["game_service"] = services.games
    app.extensions["job_service"] = services.jobs
    app.extensions["archive_service"] = services.archive
    app.extensions["stats_service"] = services.stats
    app.extensions["account_service"] = services.accounts
    app.extensions["rating_service"] = services.ratings
    app.extensions["webhook_service"] = services.webhooks
    app.extensions["challenge_service"] = services.challenges
    app.extensions["seek_service"] = services.seeks
    app.extensions["lobby_service"] = services.lobby
    app.extensions["chat_service"] = services.chat
    app.extensions["analysis_service"] = services.analysis
    app.extensions["tournament_service"] = services.tournaments
    app.extensions["ladder_service"] = services.ladder

    api = Api(app, spec_kwargs={"info": {"description": _DESCRIPTION}, "servers": SERVERS})
    api.spec.components.security_scheme(
        "seatToken",
        {"type": "http", "scheme": "bearer", "description": "The seat token from POST /v1/games/{id}/seats"},
    )
    api.spec.components.security_scheme(
        "accountToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "An account's session token (POST /v1/sessions, `csa_...`) or personal access "
            "token (POST /v1/me/tokens, `csp_...`); where a seat token is accepted, an account token "
            "acts for the account's seat of that game (scope `play` to act, `read` to see)",
        },
    )
    # Before the blueprints: their schemas' engine-specific fields refer to the games' components.
    _schema_level_keywords(api.ma_plugin.converter)
    prefixes = contract.register_components(api.spec)
    api.ma_plugin.converter.add_attribute_function(contract.attribute_function(prefixes))
    contract.register_create_game_requests(api.spec, api.ma_plugin.converter, CreateGameRequest)
    for module_name in ROUTE_MODULES:
        importlib.import_module(module_name)
    for module_name in BLUEPRINT_MODULES:
        api.register_blueprint(importlib.import_module(module_name).blp)
    for module_name in OPTIONAL_BLUEPRINT_MODULES:
        if importlib.util.find_spec(module_name) is not None:
            api.register_blueprint(importlib.import_module(module_name).blp)
    for name, schema in DOCUMENTED_SCHEMAS.items():
        api.spec.components.schema(name, schema=schema)
    api.spec.components.schema("AccountStreamEvent", component=ACCOUNT_STREAM_EVENT)
    api.spec.components.schema("AccountStreamMessage", component=ACCOUNT_STREAM_MESSAGE)
    for name, component in stream_messages.components().items():
        api.spec.components.schema(name, component=component)
    problems.register(app)
    ratelimit.install(app)
    app.before_request(refuse_tokens_outside_header)
    origins = _cors_origins(app.config["CORS_ORIGINS"])
    cors_options: dict[str, Any] = {
        "origins": origins,
        "send_wildcard": origins == "*",  # "*" rather than the echoed origin: one answer caches for all
        "methods": ["GET", "POST", "DELETE", "OPTIONS"],
        "allow_headers": CORS_ALLOW_HEADERS,
        "expose_headers": CORS_EXPOSE_HEADERS,
        "supports_credentials": False,  # tokens travel in Authorization only, never in cookies
        "max_age": 600,
        "vary_header": True,
    }
    CORS(app, resources={r"/v1/*": {}}, **cors_options)
    # The browser client's pages (outside /v1 and the OpenAPI document: they only call the API).
    import web

    web.register(app)
    from api import edge  # the play edge: only the factory imports it (docs/architecture.md)

    edge.install(app, lambda: cors_adapter.headers_without_origin(app, cors_options))
    return app


# "/" is relative to where the document is served from: this very server whatever its host name, so
# Swagger UI and clients generated from /v1/openapi.json need no base URL passed by hand. The second
# entry serves tools reading the repository's openapi.yaml file: the address ./run serve listens on.
SERVERS = [
    {"url": "/", "description": "The server that serves this document"},
    {"url": "http://127.0.0.1:8000", "description": "A local ./run serve (default PORT)"},
]

_DESCRIPTION = (
    "Play turn-based games over HTTP. Create a game, claim seats (each claim returns a secret seat "
    "token once), read your view with `Authorization: Bearer <token>`, submit moves, follow the "
    "game live over Server-Sent Events. Errors are RFC 9457 `application/problem+json` documents "
    "with a stable `code`.\n\n"
    # Swagger UI shows this text at the top of /docs: the way back for a player who came from a page.
    # Written as HTML: Swagger UI opens every Markdown link in a new tab, which is no way back.
    '<a href="/" target="_self">Back to the lobby</a> · '
    '<a href="/archive" target="_self">The game archive</a>'
)
