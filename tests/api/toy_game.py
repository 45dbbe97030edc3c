"""A tiny two-seat card game with hidden hands, used only by the server's tests so they prove the
server is game-agnostic (nothing in store/, service/ or api/ may know Condottiere).

Rules: each seat is dealt ``hand_size`` distinct cards ("c001".."c200", hidden from the other
seat); seats alternate playing one card face up, seat ``first`` starting; a seat may instead "pass"
once per game (the turn moves on). The game ends when both hands are empty; the higher total wins.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from games.base import FULL, CommandError, ConfigError, LogError, fold

NAME = "toy"


def card_value(card: str) -> int:
    return int(card[1:])


class ToyGame:
    name = NAME
    title = "Toy high card"

    def configure(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        allowed = {"seed", "hand_size", "first"}
        unknown = set(raw) - allowed
        if unknown:
            raise ConfigError("UNKNOWN_OPTION", f"Unknown option(s): {', '.join(sorted(unknown))}")
        hand_size = raw.get("hand_size", 3)
        if not isinstance(hand_size, int) or isinstance(hand_size, bool) or not 1 <= hand_size <= 50:
            raise ConfigError("INVALID_HAND_SIZE", "hand_size must be an integer from 1 to 50", "TOY-1")
        seed = raw.get("seed")
        # the server draws 128-bit seeds and passes them as decimal strings
        decimal = isinstance(seed, str) and seed.isascii() and seed.isdigit()
        if not decimal and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ConfigError("INVALID_SEED", "seed must be an integer")
        first = raw.get("first", 0)
        if first not in (0, 1):
            raise ConfigError("INVALID_SEAT", "first must be 0 or 1")
        return {"seed": seed, "hand_size": hand_size, "first": first}

    def seat_count(self, config) -> int:
        return 2

    def start(self, config) -> list[dict[str, Any]]:
        rng = random.Random(config["seed"])
        cards = [f"c{n:03d}" for n in rng.sample(range(1, 201), 2 * config["hand_size"])]
        size = config["hand_size"]
        return [
            {"type": "game_started", "v": 1, "config": dict(config)},
            {"type": "cards_dealt", "v": 1, "seat": 0, "cards": sorted(cards[:size])},
            {"type": "cards_dealt", "v": 1, "seat": 1, "cards": sorted(cards[size:])},
        ]

    def evolve(self, state, event):
        kind = event["type"]
        if kind == "game_started":
            return {
                "config": event["config"],
                "hands": [[], []],
                "played": [[], []],
                "passed": [False, False],
                "turn": event["config"]["first"],
            }
        new = {
            "config": state["config"],
            "hands": [list(h) for h in state["hands"]],
            "played": [list(p) for p in state["played"]],
            "passed": list(state["passed"]),
            "turn": state["turn"],
        }
        seat = event["seat"]
        if kind == "cards_dealt":
            new["hands"][seat] = list(event["cards"])
        elif kind == "card_played":
            new["hands"][seat].remove(event["card"])
            new["played"][seat].append(event["card"])
            new["turn"] = 1 - seat
        elif kind == "passed":
            new["passed"][seat] = True
            new["turn"] = 1 - seat
        return new

    def _over(self, state) -> bool:
        return (
            state is not None
            and not state["hands"][0]
            and not state["hands"][1]
            and bool(state["played"][0] or state["played"][1])
        )

    def decide(self, state, seat, command):
        if self._over(state):
            raise CommandError("GAME_OVER", "The game is over")
        if seat != state["turn"]:
            raise CommandError("NOT_YOUR_TURN", "It is not your turn", "TOY-2")
        kind = command.get("type")
        if kind == "play":
            card = command.get("card")
            if set(command) - {"type", "card"} or not isinstance(card, str):
                raise CommandError("INVALID_COMMAND", "play needs a card code")
            if card not in state["hands"][seat]:
                raise CommandError("CARD_NOT_IN_HAND", "That card is not in your hand", "TOY-3")
            events = [{"type": "card_played", "v": 1, "seat": seat, "card": card}]
        elif kind == "pass":
            if set(command) - {"type"}:
                raise CommandError("INVALID_COMMAND", "pass takes no fields")
            if state["passed"][seat]:
                raise CommandError("ALREADY_PASSED", "You may pass only once", "TOY-4")
            events = [{"type": "passed", "v": 1, "seat": seat, "auto": False}]
        else:
            raise CommandError("UNKNOWN_COMMAND", "Unknown command type")
        # An engine-driven step: a seat with an empty hand passes automatically.
        after = fold(self, events, state)
        nxt = after["turn"]
        if not self._over(after) and not after["hands"][nxt]:
            events.append({"type": "passed", "v": 1, "seat": nxt, "auto": True})
        return events

    def legal_moves(self, state, seat):
        if self._over(state) or seat != state["turn"]:
            return []
        moves = [{"type": "play", "card": c} for c in state["hands"][seat]]
        if not state["passed"][seat]:
            moves.append({"type": "pass"})
        return moves

    def awaiting(self, state):
        return [] if self._over(state) else [state["turn"]]

    def is_over(self, state) -> bool:
        return self._over(state)

    def result(self, state):
        if not self._over(state):
            return None
        totals = [sum(card_value(c) for c in played) for played in state["played"]]
        winners = [s for s in (0, 1) if totals[s] == max(totals)]
        return {"winners": winners, "reason": "total", "totals": totals}

    def view(self, state, viewer):
        players = []
        for seat in (0, 1):
            player = {
                "seat": seat,
                "hand_size": len(state["hands"][seat]),
                "played": list(state["played"][seat]),
                "passed": state["passed"][seat],
            }
            if viewer == FULL:
                player["hand"] = list(state["hands"][seat])
            players.append(player)
        view = {
            "game": NAME,
            "config": {k: v for k, v in state["config"].items() if k != "seed"},
            "turn": None if self._over(state) else state["turn"],
            "awaiting": self.awaiting(state),
            "players": players,
            "result": self.result(state),
        }
        if viewer in (0, 1):
            view["seat"] = viewer
            view["hand"] = list(state["hands"][viewer])
            view["legal_moves"] = self.legal_moves(state, viewer)
        return view

    def redact(self, event, viewer):
        if viewer == FULL:
            return event
        if event["type"] == "cards_dealt" and viewer != event["seat"]:
            return {**event, "cards": None, "count": len(event["cards"])}
        if event["type"] == "game_started":
            return {**event, "config": {k: v for k, v in event["config"].items() if k != "seed"}}
        return event

    def annotate(self, before, event, after) -> str:
        return event["type"]

    def state_to_json(self, state):
        return state

    def state_from_json(self, data):
        return dict(data)

    def verify_log(self, events):
        state = None
        for index, event in enumerate(events):
            try:
                state = self.evolve(state, event)
            except Exception as err:  # noqa: BLE001
                return LogError(index, "INVALID_EVENT", str(err), event=event)
        return None


GAME = ToyGame()


# Its metadata, the one line that registers it (``toy = tests.api.toy_game:GAME`` in the entry
# points of ``games.ENTRY_POINT_GROUP``), as an installed distribution would have it: the registry
# finds the game while this directory is on ``sys.path`` (or PYTHONPATH, for a process of its own).
PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


def register() -> None:
    """Make ``games.get_game("toy")`` find this engine through its entry point, for the rest of
    the process (a process of its own, e.g. gunicorn or an RQ worker)."""
    import games

    if str(PLUGINS) not in sys.path:
        sys.path.append(str(PLUGINS))
        games.refresh()


@contextmanager
def registered():
    """The toy engine is registered only while the block runs, so tests of other areas never see
    a game they do not know in ``games.game_names()``."""
    import games

    added = str(PLUGINS) not in sys.path
    if added:
        sys.path.append(str(PLUGINS))
        games.refresh()
    try:
        yield GAME
    finally:
        if added:
            sys.path.remove(str(PLUGINS))
            games.refresh()
