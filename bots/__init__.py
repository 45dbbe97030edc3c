"""Bots: programs that play a seat from what that seat may see.

A bot is any object with ``choose(view, rng) -> command``. ``view`` is the seat view a client gets
from the API (``legal_moves`` included), never the hidden state: a bot knows exactly what a human in
its seat would know, so server-side bots and client-side bots are interchangeable and a bot can
never leak or exploit another seat's hand. ``rng`` is a ``random.Random``; a bot draws all its
randomness from it, so a game between bots is reproducible from its seeds.

Levels: ``random`` works for every game (uniform over the legal moves). A game adds its own levels
in ``games/<name>/bots.py`` as a ``BOTS`` mapping ``{level: bot}``; ``games/`` never imports this
package (dependencies point inward), so the registry looks the module up by name. ``expert`` (the
searching bot, ``bots/expert.py``) is offered for every game with the search hooks
(``games.base.SearchHooks``); it decides from the state the platform holds (``choose_move``'s
``state``), whose hidden parts the game's ``determinize`` erases before it samples.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Mapping
from importlib import import_module
from typing import Any, Protocol, runtime_checkable

from bots.expert import ExpertBot
from bots.search import searchable
from games import game_module, get_game

Command = dict[str, Any]
View = Mapping[str, Any]


@runtime_checkable
class Bot(Protocol):
    level: str

    def choose(self, view: View, rng: random.Random) -> Command:
        """One of ``view["legal_moves"]``."""


class UnknownBotLevel(KeyError):
    def __init__(self, game_name: str, level: str):
        super().__init__(f"no bot level {level!r} for game {game_name!r}")
        self.game_name = game_name
        self.level = level


class NoLegalMove(ValueError):
    """Asked to move although the view offers no legal move (the seat is not awaited)."""


class RandomBot:
    """Uniform over the legal moves: the baseline, and a fuzzer for the server."""

    level = "random"

    def choose(self, view: View, rng: random.Random) -> Command:
        moves = view.get("legal_moves") or []
        if not moves:
            raise NoLegalMove("the view offers no legal move")
        return copy.deepcopy(rng.choice(moves))


RANDOM = RandomBot()
_GENERIC: dict[str, Bot] = {"random": RANDOM}
EXPERT = "expert"
_EXPERTS: dict[str, ExpertBot] = {}


def _expert(game_name: str) -> ExpertBot | None:
    """The ``expert`` bot of ``game_name`` when the game can be searched (one per game)."""
    if game_name not in _EXPERTS:
        try:
            game = get_game(game_name)
        except KeyError:
            return None
        if not searchable(game):
            return None
        fallback = _game_bots(game_name).get("heuristic", RANDOM)
        _EXPERTS[game_name] = ExpertBot(game_name, fallback)
    return _EXPERTS[game_name]


def _game_bots(game_name: str) -> Mapping[str, Bot]:
    try:
        package = game_module(game_name)  # the bots module sits beside the engine: <package>.bots
    except KeyError:
        return {}
    try:
        module = import_module(f"{package}.bots")
    except ModuleNotFoundError as exc:
        # Only "this game has no bots module" is an expected absence; a broken import inside the
        # module is a bug and must surface.
        if exc.name != f"{package}.bots":
            raise
        return {}
    return getattr(module, "BOTS", {})


def levels(game_name: str) -> list[str]:
    """Every bot level available for ``game_name`` (``random`` first)."""
    names = list(_GENERIC)
    names += [name for name in _game_bots(game_name) if name not in _GENERIC]
    if _expert(game_name) is not None:
        names.append(EXPERT)
    return names


def all_levels() -> list[str]:
    """Every bot level some registered game offers (what the API documents as examples)."""
    from games import game_names

    return sorted({level for name in game_names() for level in levels(name)})


def get_bot(game_name: str, level: str) -> Bot:
    bot = _game_bots(game_name).get(level) or _GENERIC.get(level)
    if bot is None and level == EXPERT:
        bot = _expert(game_name)
    if bot is None:
        raise UnknownBotLevel(game_name, level)
    return bot


def only_move(view: View) -> Command | None:
    """The seat's move when it has exactly one (e.g. RL-12: *keep*, for a seat holding a Mercenary,
    at the hand discard), else None. The server asks every seat the same question so that nobody
    learns who had a choice; a client may answer a question that offers no choice by itself."""
    moves = view.get("legal_moves") or []
    return copy.deepcopy(moves[0]) if len(moves) == 1 else None


def choose_move(
    game_name: str,
    level: str,
    view: View,
    rng: random.Random,
    *,
    strict: bool = False,
    state: Any = None,
) -> Command:
    """The move of bot ``level`` for ``view``; always one of ``view["legal_moves"]``.

    ``state`` (the game's state the view was made from, when the caller holds it) lets a searching
    bot (``choose_in``) decide; its game's ``determinize`` hides from it what the seat may not see.

    A game-specific bot that fails or answers an illegal move falls back to the random bot, so a
    bot seat never stalls a game. ``strict=True`` (tests, simulations that measure a bot) raises
    instead, so a bot's bug is seen rather than hidden by the fallback.
    """
    moves = view.get("legal_moves") or []
    if not moves:
        raise NoLegalMove("the view offers no legal move")
    forced = only_move(view)
    if forced is not None:  # nothing to choose (RL-12's keep): no bot needed, no randomness drawn
        return forced
    bot = get_bot(game_name, level)
    try:
        choose_in = getattr(bot, "choose_in", None)
        if choose_in is not None and state is not None:
            move: Command = choose_in(state, view["seat"], rng)
        else:
            move = bot.choose(view, rng)
        if move in moves:
            return move
        if strict:
            raise AssertionError(f"bot {level!r} chose an illegal move: {move!r}")
    except Exception:
        if strict:
            raise
    return RANDOM.choose(view, rng)


def seeded_rng(*parts: Any) -> random.Random:
    """A ``random.Random`` seeded from ``parts`` (stable across processes and Python runs,
    unlike ``hash()``), e.g. ``seeded_rng(game_id, version, seat)``."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
