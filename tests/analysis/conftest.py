from __future__ import annotations

from tests import app_fixtures

# The shared API fixtures (tests/app_fixtures.py), which pytest finds here by these names.
app = app_fixtures.app
client = app_fixtures.client
svc = app_fixtures.svc
