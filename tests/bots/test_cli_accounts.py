"""The command-line client's account commands against a live test server (issue 31): signup,
login (the session token kept in a file only its owner reads, never printed), join --account,
games, logout."""

from __future__ import annotations

import json
import stat

import pytest

from tests.bots.live import LiveServer, run


@pytest.fixture()
def live(redis_client, redis_server, tmp_path, monkeypatch):
    monkeypatch.setenv("CONDOTTIERE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("CONDOTTIERE_TOKEN", raising=False)
    server = LiveServer(redis_server.url, worker=False)
    yield server
    server.stop()


def test_login_join_as_account_and_list_my_games(live, tmp_path):
    server = ["--server", live.url]
    code, out = run(["signup", "Ann", "--password-stdin", *server], ["correct horse"])
    assert code == 0 and "Created the account Ann" in out
    code, out = run(["login", "ann", "--password-stdin", *server], ["correct horse"])
    assert code == 0 and "as Ann" in out
    saved = tmp_path / "config" / "credentials.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    token = json.loads(saved.read_text())[live.url]["token"]
    assert token.startswith("csa_") and token not in out
    code, out = run(["new", "--players", "2", "--bots", "random", "--quiet", *server])
    game = out.strip().splitlines()[0]
    code, out = run(["join", game, "--account", *server])
    assert code == 0, out
    code, out = run(["games", *server])
    assert code == 0
    assert game in out and "Running" in out
    code, out = run(["logout", *server])
    assert code == 0 and "Signed out" in out
    with pytest.raises(SystemExit, match="not signed in"):
        run(["games", *server])


def test_login_with_a_wrong_password_fails_and_keeps_nothing(live, tmp_path):
    server = ["--server", live.url]
    run(["signup", "Ann", "--password-stdin", *server], ["correct horse"])
    code, _ = run(["login", "Ann", "--password-stdin", *server], ["wrong one!"])
    assert code == 2
    assert not (tmp_path / "config" / "credentials.json").exists()
