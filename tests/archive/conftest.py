from __future__ import annotations

from tests import app_fixtures
from tests.api import toy_game

# The shared API fixtures (tests/app_fixtures.py), which pytest finds here by these names.
app = app_fixtures.app
client = app_fixtures.client
svc = app_fixtures.svc
run_jobs = app_fixtures.run_jobs

toy_game.register()
