"""WSGI entry point for tests/api/test_move_worker.py: the gunicorn test app, whose every answer that
went through WSGI says so in a header (``X-Answered-Through: wsgi``), so a test can tell the worker's
own answers (api/edge/move_worker.py) from those of WSGI (Flask's, and MovePath's in front of it)."""

from api.edge.move_path import MovePath
from tests.api.gevent_app import app


class _TaggedMovePath(MovePath):
    def __call__(self, environ, start_response):
        def tagged(status, headers, exc_info=None):
            return start_response(status, [*headers, ("X-Answered-Through", "wsgi")], exc_info)

        return super().__call__(environ, tagged)


_moves = app.wsgi_app
app.wsgi_app = _TaggedMovePath(app, _moves.wsgi_app, _moves.cors_headers)
