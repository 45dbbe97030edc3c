from __future__ import annotations

import pytest

from service import followups
from service.facts import facts_followup
from tests import app_fixtures
from tests.api import toy_game

toy_game.register()

app = app_fixtures.app
client = app_fixtures.client


@pytest.fixture()
def svc(app):
    """The app's game service, and this process writing archived games' facts at once (the web
    process leaves them to the janitor: ``service.followups.connect_receivers``)."""
    followups.register("facts", facts_followup)
    yield app.extensions["game_service"]
    followups.unregister("facts")


@pytest.fixture()
def facts_dir(tmp_path, monkeypatch):
    """A fresh analytical store for one test (``FACTS_DIR``, read by service.facts at each use)."""
    path = tmp_path / "facts"
    monkeypatch.setenv("FACTS_DIR", str(path))
    return path
