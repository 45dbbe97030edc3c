"""``./run``: the bootstrap on a fresh machine (a venv, then the project installed once and again
only when pyproject.toml changes) and the exit codes CI relies on. A stand-in ``python`` records
what ``./run`` asks of the venv, so this runs in milliseconds and installs nothing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/usr/bin/env bash
# Stand-in for .venv/bin/python: log the call; answer "-c" with the real interpreter; fake pytest.
echo "$*" >> "$(dirname "$0")/../calls.log"
case "$1" in
    -c) exec {real} "$@" ;;
    -m) if [ "$2" = pytest ]; then exit "${{FAKE_PYTEST_STATUS:-0}}"; fi; exit 0 ;;
esac
exit 0
"""


@pytest.fixture()
def checkout(tmp_path):
    """A copy of ./run and pyproject.toml with a venv whose python is the stand-in."""
    shutil.copy(ROOT / "run", tmp_path / "run")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    python = venv_bin / "python"
    python.write_text(FAKE_PYTHON.format(real=sys.executable))
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return tmp_path


def run(checkout: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(checkout / "run"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def installs(checkout: Path) -> int:
    log = checkout / ".venv" / "calls.log"
    return sum("pip install" in line and "-e .[dev]" in line for line in log.read_text().splitlines())


def test_installs_once_then_only_when_pyproject_changes(checkout):
    assert run(checkout, "test").returncode == 0
    assert installs(checkout) == 1
    assert run(checkout, "test").returncode == 0
    assert installs(checkout) == 1  # the stamp matches: nothing to do

    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# a new dependency line\n")
    assert run(checkout, "test").returncode == 0
    assert installs(checkout) == 2


def test_test_passes_pytest_failures_through(checkout):
    failed = run(checkout, "test", FAKE_PYTEST_STATUS="1")
    assert failed.returncode == 1


def test_no_tests_collected_is_a_failure(checkout):
    empty = run(checkout, "test", FAKE_PYTEST_STATUS="5")
    assert empty.returncode == 5
    assert "no tests" in empty.stderr


def test_test_has_a_default_timeout_that_an_explicit_one_replaces(checkout):
    run(checkout, "test", "-k", "x")
    run(checkout, "test", "--timeout=5")
    pytest_calls = [
        line for line in (checkout / ".venv" / "calls.log").read_text().splitlines() if "-m pytest" in line
    ]
    assert pytest_calls[-2] == "-m pytest --timeout=600 -k x"
    assert pytest_calls[-1] == "-m pytest --timeout=5"


def test_unknown_command_is_an_error_and_help_lists_the_commands(checkout):
    assert run(checkout, "bogus").returncode == 2
    listed = run(checkout)
    assert listed.returncode == 0
    for command in ("serve", "test", "openapi", "bench", "redis"):
        assert f"./run {command}" in listed.stdout


def test_fresh_checkout_gets_a_venv_from_a_python_3_11_or_newer(tmp_path):
    """No .venv: ./run creates one. PYTHON points at a stand-in that records the venv request."""
    shutil.copy(ROOT / "run", tmp_path / "run")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    template = tmp_path / "venv-python"
    template.write_text(FAKE_PYTHON.format(real=sys.executable))
    fake = tmp_path / "python3-fake"
    fake.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1" = -m ] && [ "$2" = venv ]; then\n'
        f'    mkdir -p "$3/bin" && cp {template} "$3/bin/python" && chmod +x "$3/bin/python"\n'
        '    echo created > "$3/created-by-fake"; exit 0\n'
        "fi\n"
        f'exec {sys.executable} "$@"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    result = run(tmp_path, "test", PYTHON=str(fake))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / ".venv" / "created-by-fake").exists()
    assert installs(tmp_path) == 1


def test_the_whole_suite_runs_the_redis_suites_again_on_a_cluster(checkout):
    """Issue 13: `./run test` (as CI runs it) makes a second pytest pass with
    --redis-topology=cluster over the Redis suites; a failure in either pass fails the run; with
    arguments only the pass asked for runs."""
    calls_log = checkout / ".venv" / "calls.log"
    assert run(checkout, "test").returncode == 0
    calls = [line for line in calls_log.read_text().splitlines() if "-m pytest" in line]
    assert calls[-2] == "-m pytest --timeout=600"
    assert calls[-1].startswith("-m pytest --timeout=600 --redis-topology=cluster tests/store tests/api")
    assert run(checkout, "test", FAKE_PYTEST_STATUS="1").returncode == 1
    before = len(calls_log.read_text().splitlines())
    run(checkout, "test", "tests/api")
    after = [line for line in calls_log.read_text().splitlines()[before:] if "-m pytest" in line]
    assert after == ["-m pytest --timeout=600 tests/api"]
    skipped = run(checkout, "test", REDIS_TOPOLOGIES="single")
    assert skipped.returncode == 0
    last = [line for line in calls_log.read_text().splitlines() if "-m pytest" in line][-1]
    assert "--redis-topology" not in last
