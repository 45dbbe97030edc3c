"""Committed randomness: the commitment the server publishes when it creates a game, and the
verifier that checks a finished game's exported log against it with no server at all.

At creation the server draws (or takes from the creator) the game's seed and publishes
``commitment(seed, game_id, prearranged)``: a SHA-256 digest that binds the seed without showing it
(the seed has 128 secret bits, so the digest cannot be searched). The first event of the log
carries the same document; once the game is over the log is public in full, seed included (the
``config`` of its first event), and anyone can check with :func:`verify_fair` that the digest
opens to that seed and that every random event of the log (each shuffle, each die) is the one the
seed gives, re-derived by the game's own ``games.base.ChanceHooks.rederive_chance``. The exact
construction and each game's draws are specified in docs/fairness.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from games import get_game
from games.base import COMMITMENT, SEED, chance_hooks, fixed_chance_keys

SCHEME = "sha256-v1"
# The domain tag names what is hashed, so a digest made for this purpose can never be taken for
# any other SHA-256 of the same bytes; the flag is part of the tag, so a prearranged game cannot
# pass for one whose seed the server drew.
DOMAIN_TAG = "condottiere-server/seed-commitment/v1"


def digest(seed: int | str, game_id: str, prearranged: bool) -> str:
    """SHA-256 (hex) of ``tag || 0x00 || seed || 0x00 || game_id``, where ``tag`` is
    :data:`DOMAIN_TAG` + ``/prearranged`` or ``/drawn`` and ``seed`` is the seed's decimal ASCII
    (no sign, no leading zeros: a seed sent as a string and as a number hash alike)."""
    tag = f"{DOMAIN_TAG}/{'prearranged' if prearranged else 'drawn'}"
    data = b"\x00".join((tag.encode("ascii"), str(int(seed)).encode("ascii"), game_id.encode("ascii")))
    return hashlib.sha256(data).hexdigest()


def commitment(seed: int | str, game_id: str, prearranged: bool) -> dict[str, Any]:
    """The public commitment document of a game (summary ``commitment``, first event's
    ``commitment``)."""
    return {"scheme": SCHEME, "digest": digest(seed, game_id, prearranged), "prearranged": prearranged}


def opens(document: Mapping[str, Any] | None, seed: Any, game_id: Any) -> bool:
    """Whether the commitment ``document`` opens to ``seed`` for ``game_id``."""
    if not isinstance(document, Mapping) or document.get("scheme") != SCHEME:
        return False
    if not isinstance(game_id, str) or not isinstance(document.get("prearranged"), bool):
        return False
    try:
        expected = digest(seed, game_id, document["prearranged"])
    except (TypeError, ValueError, UnicodeEncodeError):
        return False
    return bool(document.get("digest") == expected)


def verify_fair(document: Mapping[str, Any]) -> dict[str, Any]:
    """Check an exported log (the ``log`` export, the exchange document) of a finished game: the
    commitment in its first event opens to the seed in that event's configuration for the
    document's ``id``, the log obeys the rules, and every random event equals what the seed gives.

    Returns ``{"ok", "game", "game_id", "commitment", "opens", "prearranged", "log_error",
    "random_events", "mismatch"}``: ``random_events`` counts the random events checked,
    ``mismatch`` is the first one that differs (``index``, ``version``, ``event``, ``expected``)."""
    report: dict[str, Any] = {
        "ok": False,
        "game": document.get("game"),
        "game_id": document.get("id"),
        "commitment": None,
        "opens": False,
        "prearranged": None,
        "log_error": None,
        "random_events": 0,
        "mismatch": None,
        "problem": None,
    }
    events = document.get("events")
    if document.get("redacted_for") or not document.get("finished"):
        report["problem"] = "Only a finished game's complete log can be checked (this one is redacted)."
        return report
    if not isinstance(events, list) or not events or not isinstance(events[0], dict):
        report["problem"] = "The document has no events."
        return report
    try:
        game = get_game(str(document.get("game")))
    except KeyError:
        report["problem"] = f"Unknown game {document.get('game')!r}."
        return report
    first = events[0]
    committed = first.get(COMMITMENT)
    given = first.get("config")
    config: dict[str, Any] = given if isinstance(given, dict) else {}
    report["commitment"] = committed
    report["prearranged"] = committed.get("prearranged") if isinstance(committed, dict) else None
    report["opens"] = opens(committed, config.get(SEED), document.get("id"))
    fixed = [key for key in fixed_chance_keys(game) if config.get(key) is not None]
    if fixed and report["prearranged"] is False:
        # A given deck order is a prearranged deal whatever the seed: a "drawn" claim is false.
        report["opens"] = False
        report["problem"] = f"The configuration gives {fixed[0]}, but the commitment says drawn."
    error = game.verify_log(events)
    if error is not None:
        report["log_error"] = error.to_dict()
    chance = chance_hooks(game)
    if chance is None:
        report["problem"] = f"{game.title} does not say how its random events follow from the seed."
        return report
    # Only the events the rules accept are folded: a log broken further on is not folded past it.
    checked = events if error is None else events[: error.index + 1]
    for index, expected in chance.rederive_chance(checked):
        report["random_events"] += 1
        if index >= len(events) or events[index] != expected:
            actual = events[index] if index < len(events) else None
            report["mismatch"] = {"index": index, "version": index + 1, "event": actual, "expected": expected}
            break
    report["ok"] = report["opens"] and error is None and report["mismatch"] is None
    return report


def tournament_round_key(tournament_id: str, number: int) -> str:
    """What a duplicate tournament round's commitment binds its one seed to (as a game's commitment
    binds its seed to the game's id)."""
    return f"tournament:{tournament_id}:round:{number}"


def verify_tournament(lines: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Check a tournament's export (its NDJSON lines): every table's game as :func:`verify_fair`
    does, and for each duplicate round (its games carry a ``round_commitment``) that every table
    shows the same commitment and the same seed, and that this seed opens it for the round. One
    report per game, then one per duplicate round (``{"ok", "round", "tables", "commitment",
    "same_commitment", "same_seed", "opens"}``)."""
    head = next((line for line in lines if line.get("type") == "tournament"), {})
    reports: list[dict[str, Any]] = []
    rounds: dict[int, list[tuple[Any, Any]]] = {}
    for line in lines:
        if line.get("type") != "game":
            continue
        summary = line.get("game") or {}
        events = [entry.get("event") for entry in line.get("events") or []]
        document = {
            "game": summary.get("game"),
            "id": line.get("game_id"),
            "finished": summary.get("status") == "finished",
            "events": events,
        }
        reports.append(verify_fair(document))
        if line.get("round_commitment") is not None:
            first = events[0] if events and isinstance(events[0], dict) else {}
            seed = (first.get("config") or {}).get(SEED)
            rounds.setdefault(int(line.get("round") or 0), []).append((line["round_commitment"], seed))
    for number, tables in sorted(rounds.items()):
        commitment, seed = tables[0]
        same_commitment = all(c == commitment for c, _ in tables)
        same_seed = all(s == seed for _, s in tables)
        opened = opens(commitment, seed, tournament_round_key(str(head.get("id")), number))
        reports.append(
            {
                "ok": same_commitment and same_seed and opened,
                "round": number,
                "tables": len(tables),
                "commitment": commitment,
                "same_commitment": same_commitment,
                "same_seed": same_seed,
                "opens": opened,
            }
        )
    return reports
