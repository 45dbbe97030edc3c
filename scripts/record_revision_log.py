"""Record a random seeded game with the engine on PYTHONPATH, as test data for rules revisions.

Run it with the code of an earlier revision (a throw-away worktree of an old commit), e.g.::

    git worktree add --detach /tmp/old f9536cb
    PYTHONPATH=/tmp/old .venv/bin/python scripts/record_revision_log.py condottiere \
        '{"players": 3, "seed": 7}' 7 tests/archive/revision_logs/NAME.json

It writes the log and the SHA-256 of the canonical JSON of ``state_to_json`` after every event
(tests/archive/test_rules_revisions.py folds the log with today's engine and compares), plus the
state's top-level keys (fields added later are left out of the comparison)."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import orjson

from games import get_game
from games.base import fold


def digest(game, state) -> str:
    return hashlib.sha256(orjson.dumps(game.state_to_json(state), option=orjson.OPT_SORT_KEYS)).hexdigest()


def write(game, log, move_seed, out, recorded_by) -> None:
    hashes, state = [], None
    for event in log:
        state = game.evolve(state, event)
        hashes.append(digest(game, state))
    source = Path(sys.modules["games"].__file__).resolve().parent.parent
    commit = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    document = {
        "game": game.name,
        "rules_revision": 1,
        "recorded_with": commit,
        "recorded_by": recorded_by,
        "move_seed": move_seed,
        "result": game.result(state),
        "state_keys": sorted(game.state_to_json(state)),
        "events": log,
        "state_sha256": hashes,
    }
    Path(out).write_text(json.dumps(document, separators=(",", ":")))
    print(game.name, move_seed, len(log), game.result(state))


def main() -> None:
    name, config_json, move_seed, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    game = get_game(name)
    log = list(game.start(game.configure(json.loads(config_json))))
    state = fold(game, log)
    rng = random.Random(move_seed)
    while not game.is_over(state):
        seat = game.awaiting(state)[0]
        events = game.decide(state, seat, rng.choice(game.legal_moves(state, seat)))
        log.extend(events)
        state = fold(game, events, state)
    write(game, log, move_seed, out, " ".join(["record_revision_log.py", *sys.argv[1:4]]))


if __name__ == "__main__":
    main()
