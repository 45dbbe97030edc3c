"""Browser tests: headless Chromium (Debian's ``chromium`` package, which ``./run test`` installs when
it is missing) driven by Playwright for Python, against a live server with an RQ worker for the
bot seats (tests/bots/live.py). Playwright's own browser download is never used."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

import pytest
import requests

from tests.bots.live import LiveServer

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("WEB_SCREENSHOTS", ROOT / "var" / "screenshots"))
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PASSWORD = "correct horse battery"


def chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    pytest.fail("No chromium binary: install Debian's chromium package (./run test does it as root)")


@pytest.fixture(scope="module")
def live(redis_server):
    redis_server.client().flushall()
    server = LiveServer(redis_server.url)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture()
def context_for(browser):
    """New browser contexts (separate localStorage: separate people) at a given size."""
    made = []

    def make(size: str = "desktop"):
        context = browser.new_context(viewport=SIZES[size])
        context.set_default_timeout(15_000)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def open_play_page(context, base_url: str, game_id: str, claim: dict) -> tuple:
    """A new page in ``context`` on the game's play page, holding ``claim``'s seat token in
    localStorage as the lobby keeps it; with the list the page's uncaught errors are collected in."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base_url + "/")
    seat = json.dumps({"seat": claim["seat"], "token": claim["token"]})
    page.evaluate(f"localStorage.setItem('seat:{game_id}', {json.dumps(seat)})")
    page.goto(f"{base_url}/play/{game_id}")
    return page, errors


class Outage:
    """Stops the live server's HTTP side (its listening socket and every open connection, the pages'
    streams included) and starts it again on the same port, as a restart looks to a browser; the
    app, its Redis and the worker stay as they were."""

    def __init__(self, live: LiveServer):
        self.live = live
        self.port = live.http.server_port
        self.connections: set = set()
        self._track(live.http)

    def _track(self, http) -> None:
        serve = http.process_request

        def process_request(request, client_address):
            self.connections.add(request)
            return serve(request, client_address)

        http.process_request = process_request

    def stop(self) -> None:
        import socket

        self.live.http.shutdown()
        self.live.http.server_close()
        for connection in list(self.connections):
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by its client
        self.connections.clear()
        self.live.thread.join(timeout=10)

    def start(self) -> None:
        import threading

        from werkzeug.serving import make_server

        self.live.http = make_server("127.0.0.1", self.port, self.live.app, threaded=True)
        self._track(self.live.http)
        self.live.thread = threading.Thread(target=self.live.http.serve_forever, daemon=True)
        self.live.thread.start()


def new_account(live, prefix: str) -> dict:
    """A new account (a unique handle starting with ``prefix``) and its session, as the API
    answers ``POST /v1/sessions``."""
    handle = f"{prefix}{secrets.token_hex(3)}"
    made = requests.post(f"{live.url}/v1/accounts", json={"handle": handle, "password": PASSWORD}, timeout=60)
    assert made.status_code == 201, made.text
    session = requests.post(
        f"{live.url}/v1/sessions", json={"handle": handle, "password": PASSWORD}, timeout=60
    )
    assert session.status_code == 201, session.text
    return session.json()


def signed_in(browser, live, session: dict, size: str) -> tuple:
    """A new context at ``size`` whose page holds ``session`` as the sign-in page stores it; with
    the list the page's uncaught errors are collected in."""
    context = browser.new_context(viewport=SIZES[size])
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live.url}/sign-in")
    stored = json.dumps(
        {"handle": session["handle"], "token": session["token"], "expires": session.get("expires")}
    )
    page.evaluate(f"localStorage.setItem('account', {json.dumps(stored)})")
    return context, page, errors
