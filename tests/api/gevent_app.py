"""WSGI entry point for tests that run gunicorn: the app with the toy game registered."""

from api import create_app
from tests.api import toy_game

toy_game.register()
app = create_app()
