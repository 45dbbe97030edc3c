from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api import toy_game

toy_game.register()

app = app_fixtures.app
client = app_fixtures.client
svc = app_fixtures.svc


@pytest.fixture()
def facts_dir(tmp_path, monkeypatch):
    """A fresh analytical store for one test (``FACTS_DIR``, read by service.facts at each use)."""
    path = tmp_path / "facts"
    monkeypatch.setenv("FACTS_DIR", str(path))
    return path
