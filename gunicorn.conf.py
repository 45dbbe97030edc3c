"""Gunicorn settings for the API (``gunicorn --config gunicorn.conf.py "api:create_app()"``).

The worker class is gevent: live updates are Server-Sent Events, each an HTTP response that stays
open for as long as a client watches a game. A sync worker serves one request at a time, so every
open stream would pin a whole process; a gevent worker multiplexes thousands of mostly idle streams
(and ordinary requests) in one process, yielding whenever it waits on a socket or on Redis.

Of gunicorn's two gevent workers we run ``gevent`` (gunicorn's own HTTP parser on gevent), not
``gevent_pywsgi`` (gevent's HTTP server), although ``bench/http_bench.py`` measured the latter at
about a fifth less server CPU per health request and a tenth less per move (figures in docs/operations.md):
gevent's parser accepts a bare line feed inside a header and then reads the request's body as a
new request (a framing desync, a request-smuggling risk behind any proxy), while
gunicorn's parser is strict and refuses such a request with 400 (tests/api/test_http_framing.py).
``GUNICORN_WORKER_CLASS=gevent_pywsgi`` still selects the other one; run it only behind a
front-end that normalises requests.

The default class is ``api.edge.affinity.GameAffineWorker``: that gevent worker, which passes each new
connection whose first request names a game to the one worker that owns the game, so a game's
streams are followed by one process rather than by every worker (see its docstring for the figures),
and answers ordinary moves from the parsed request, in front of WSGI (``api.edge.move_worker``).
``GUNICORN_WORKER_CLASS=gevent`` is the same worker without either.
"""

import multiprocessing
import os

GAME_AFFINE_WORKER = "api.edge.affinity.GameAffineWorker"
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", GAME_AFFINE_WORKER)

if worker_class.startswith("gevent") or worker_class == GAME_AFFINE_WORKER:
    # Patch the standard library before anything else imports it. Gunicorn's gevent worker would
    # patch after fork anyway, but by then this (master) process has imported ssl, threading and
    # socket, and patching late leaves half-patched modules behind (gevent warns about exactly
    # this). Patching here, in the config file that gunicorn executes first, is the documented
    # way to avoid it.
    from gevent import monkey

    monkey.patch_all()

bind = [os.environ.get("BIND") or f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count())
# Simultaneous clients per gevent worker, open SSE streams included.
worker_connections = int(os.environ.get("WORKER_CONNECTIONS") or 1000)
# Keep-alive lets bots and the benchmark reuse one connection for a whole game.
keepalive = int(os.environ.get("KEEPALIVE") or 5)
# With gevent the timeout watches the worker's event loop, not request length, so long-lived
# streams are safe; a worker whose loop is blocked this long is restarted.
timeout = int(os.environ.get("GUNICORN_TIMEOUT") or 30)
# Open streams never finish by themselves: do not wait the default 30 s for them on shutdown.
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT") or 5)
accesslog = os.environ.get("ACCESS_LOG") or None  # "-" logs every request to stdout
loglevel = os.environ.get("LOG_LEVEL", "info")
proc_name = "condottiere-api"
# Gunicorn 27's control socket defaults to one path per user ($HOME/.gunicorn/gunicorn.ctl), so
# two servers on one machine (a dev server, the tests, the benchmark) would fight over it.
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")
if os.environ.get("GUNICORN_CONTROL_SOCKET"):
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
