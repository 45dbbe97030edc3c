"""The README's curl walk-through, run as written against a live service: every command succeeds
and every answer the README shows (its ``# ...`` lines) comes back, in order (issue 3, item 5).
The game it plays ends by VIC-2 (four adjacent regions with two players)."""

from __future__ import annotations

import re
import subprocess

import redis

from tests.platform.service import ROOT, start_service, stop_service, wait_for_health

GAME_ID = re.compile(r"\b01[0-9a-z]{18}\b")


def readme_walkthrough_blocks() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    section = text.split("<!-- walkthrough:start -->", 1)[1].split("<!-- walkthrough:end -->", 1)[0]
    return [block.splitlines() for block in re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)]


def expected_answers() -> list[str]:
    """The README's shown answers: every comment line of a walk-through block, ids normalised;
    ``# ...`` stands for lines left out."""
    answers = []
    for block in readme_walkthrough_blocks():
        for line in block:
            if line.startswith("#"):
                answer = line[2:] if line.startswith("# ") else line[1:]
                if answer != "...":
                    answers.append(GAME_ID.sub("<id>", answer))
    return answers


def test_readme_has_a_walkthrough_with_answers_to_check():
    assert len(readme_walkthrough_blocks()) >= 8
    answers = expected_answers()
    assert any("201 CREATED" in answer for answer in answers)
    assert any("game_won" in answer for answer in answers)


def test_vic_2_walkthrough_runs_against_a_live_server_as_the_readme_shows(tmp_path, redis_server):
    # On the Redis the earlier tests shared: their queued jobs (imports, analyses) would keep this
    # service's workers busy past the stop's bound; the README's reader starts on an empty one.
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    process, port, log = start_service(tmp_path, REDIS_URL=redis_server.url)
    try:
        wait_for_health(process, port, log)
        result = subprocess.run(
            ["bash", str(ROOT / "scripts" / "walkthrough.sh"), f"http://127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        stop_service(process, log)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    output = [GAME_ID.sub("<id>", line) for line in result.stdout.splitlines()]

    # Every shown answer appears, in the README's order (lines it leaves out may come between).
    position = 0
    for answer in expected_answers():
        try:
            position = output.index(answer, position) + 1
        except ValueError:
            context = "\n".join(output[max(0, position - 3) : position + 5])
            raise AssertionError(
                f"README shows {answer!r} but the server answered (from line {position}):\n{context}"
            ) from None
