"""Clients generated from the committed openapi.yaml compile strictly and play a whole game of each
engine against a live server (issue 36): openapi-python-client's package under ``mypy --strict``, and
openapi-typescript's types with openapi-fetch under ``tsc --strict``. The play scripts
(``play_python.py``, ``typescript/play.ts``) use only the generated functions, models and types, with
no cast and no hand-written request, so a schema that lies or says too little fails here: a field a
generator types as required, an empty object, a model shadowing its field, a route demanding a
token it does not need.

The generated code lives in a temporary directory, never in git. The TypeScript tools are pinned by
``typescript/package-lock.json`` and installed by ``./run test`` (``npm ci``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TYPESCRIPT = HERE / "typescript"
NODE_BIN = TYPESCRIPT / "node_modules" / ".bin"
PACKAGE = "game_client"
GAMES = [("condottiere", 3), ("rio_de_la_plata", 5)]
# Each client's scripts: a whole game (with the account's stream), and the lobby's and a chat room's streams.
PYTHON_SCRIPTS = ("play_python.py", "streams_python.py")
TYPESCRIPT_SCRIPTS = ("play.ts", "streams.ts")
# Loaded 2-core machines: generating, type-checking and compiling take 10-40 s each there.
STEP_TIMEOUT = 600


def run(command: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False, **kwargs
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def server_url(redis_server):
    from api import create_app

    redis_server.client().flushall()
    app = create_app({"REDIS_URL": redis_server.url, "TESTING": True, "RATE_LIMITS_ENABLED": False})
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def python_client(tmp_path_factory) -> Path:
    """The generated package (and the play script beside it), type-checked with mypy --strict."""
    where = tmp_path_factory.mktemp("python_client")
    config = where / "generator.yaml"
    # No post hooks: the code as the generator's templates write it (its default runs ruff, whose
    # fixes depend on the ruff release found on PATH).
    config.write_text("post_hooks: []\n")
    generator = Path(sys.executable).with_name("openapi-python-client")
    run(
        [
            str(generator),
            "generate",
            "--path",
            str(ROOT / "openapi.yaml"),
            "--output-path",
            PACKAGE,
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        cwd=where,
    )
    for script in PYTHON_SCRIPTS:
        shutil.copy(HERE / script, where / script)
    run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            os.devnull,
            "--config-file",
            os.devnull,
            PACKAGE,
            *PYTHON_SCRIPTS,
        ],
        cwd=where,
    )
    return where


@pytest.fixture(scope="module")
def typescript_client(tmp_path_factory) -> Path:
    """The generated types and the play script, compiled with tsc --strict to JavaScript."""
    assert (NODE_BIN / "tsc").exists(), "the TypeScript tools are missing: run ./run test (npm ci)"
    where = tmp_path_factory.mktemp("typescript_client")
    for name in (*TYPESCRIPT_SCRIPTS, "tsconfig.json", "package.json"):
        shutil.copy(TYPESCRIPT / name, where / name)
    (where / "node_modules").symlink_to(TYPESCRIPT / "node_modules")
    run([str(NODE_BIN / "openapi-typescript"), str(ROOT / "openapi.yaml"), "-o", "schema.d.ts"], cwd=where)
    run([str(NODE_BIN / "tsc"), "-p", "."], cwd=where)
    return where


def played(done: subprocess.CompletedProcess[str]) -> dict:
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["moves"] > 0 and outcome["version"] > outcome["moves"]
    assert isinstance(outcome["winners"], list)
    # The account's stream, each message decoded into the generated union of its events.
    assert outcome["stream"][0] == "open_games"
    assert outcome["stream"].count("game_started") == 1 and outcome["stream"][-1] == "game_finished"
    return outcome


@pytest.mark.parametrize(("game", "seed"), GAMES)
def test_the_generated_python_client_plays_a_whole_game(python_client, server_url, game, seed):
    done = run([sys.executable, "play_python.py", server_url, game, str(seed)], cwd=python_client)
    played(done)


@pytest.mark.parametrize(("game", "seed"), GAMES)
def test_the_generated_typescript_client_plays_a_whole_game(typescript_client, server_url, game, seed):
    done = run(["node", "build/play.js", server_url, game, str(seed)], cwd=typescript_client)
    played(done)


def streamed(done: subprocess.CompletedProcess[str]) -> dict:
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    # The lobby opened with its snapshot and announced the game and the challenge (each decoded
    # into the generated message its event names); the challenge's configuration is the game's.
    assert outcome["lobby"][0] == "lobby" and {"game", "challenge"} <= set(outcome["lobby"][1:])
    assert outcome["challenge_config"] == "CondottiereConfig"
    assert outcome["chat"][-1].startswith("good luck")
    return outcome


def test_the_generated_python_client_reads_the_lobby_and_a_chat_room(python_client, server_url):
    streamed(run([sys.executable, "streams_python.py", server_url, "7"], cwd=python_client))


def test_the_generated_typescript_client_reads_the_lobby_and_a_chat_room(typescript_client, server_url):
    streamed(run(["node", "build/streams.js", server_url, "8"], cwd=typescript_client))


def test_the_play_scripts_neither_cast_nor_silence_the_checker():
    """The compile steps above prove the scripts type-check; this proves they do so honestly: no
    TypeScript ``as``/``any``/``@ts-`` comment, no Python ``cast``, ``Any`` or ``type: ignore``."""
    for script in TYPESCRIPT_SCRIPTS:
        typescript = "\n".join(
            line
            for line in (TYPESCRIPT / script).read_text().splitlines()
            if not line.lstrip().startswith("//")
        )
        assert not re.search(r"\bas\s+[A-Za-z{(\[]|\bany\b|@ts-", typescript), script
    for script in PYTHON_SCRIPTS:
        code = "\n".join(
            line for line in (HERE / script).read_text().splitlines() if not line.lstrip().startswith("#")
        ).split('"""', 2)[-1]  # after the module docstring
        assert not re.search(r"\bcast\(|\bAny\b|type:\s*ignore", code), script
