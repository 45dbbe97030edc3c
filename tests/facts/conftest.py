from __future__ import annotations

import pytest

from service import composition
from tests import app_fixtures
from tests.api import toy_game

toy_game.register()

app = app_fixtures.app
client = app_fixtures.client


@pytest.fixture()
def svc(app):
    """A game service on the app's store that writes archived games' facts at once (the web
    process leaves them to the janitor: ``composition.Settings.facts``)."""
    return composition.game_service_on(app.extensions["game_service"].store)


@pytest.fixture()
def facts_dir(tmp_path, monkeypatch):
    """A fresh analytical store for one test (``FACTS_DIR``, read by service.facts at each use)."""
    path = tmp_path / "facts"
    monkeypatch.setenv("FACTS_DIR", str(path))
    return path
