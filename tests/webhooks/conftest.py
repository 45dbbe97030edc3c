from __future__ import annotations

import pytest

from tests import app_fixtures
from tests.api import toy_game

client = app_fixtures.client


@pytest.fixture(autouse=True)
def toy_registered():
    with toy_game.registered():
        yield
