"""The OpenAPI document, generated from the flask-smorest app: the routes and the marshmallow
schemas are the one source of truth, ``openapi.yaml`` at the root is its committed rendering
(``./run openapi`` rewrites it; a test fails when it is stale)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import yaml

if TYPE_CHECKING:
    from flask import Flask

# Building the app never talks to Redis (clients connect lazily), but the URL must still name no
# real server: generating the document must not depend on, or touch, any Redis.
UNUSED_REDIS_URL = "redis://127.0.0.1:1/0"


def build_app(redis_url: str = UNUSED_REDIS_URL) -> Flask:
    from api import create_app

    return create_app({"REDIS_URL": redis_url, "TESTING": True})


def smorest_api(app: Flask) -> Any:
    """The flask-smorest ``Api`` registered on ``app`` (the one without a config prefix)."""
    return app.extensions["flask-smorest"]["apis"][""]["ext_obj"]


def spec_dict(app: Flask | None = None) -> dict[str, Any]:
    app = app or build_app()
    with app.app_context():
        return cast(dict[str, Any], smorest_api(app).spec.to_dict())


class _PlainDumper(yaml.SafeDumper):
    """Writes a part the spec holds twice (two schemas sharing one field's metadata) out twice,
    never as a YAML anchor and alias, which many OpenAPI tools do not read."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def spec_yaml(app: Flask | None = None) -> str:
    return yaml.dump(spec_dict(app), Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=100)
