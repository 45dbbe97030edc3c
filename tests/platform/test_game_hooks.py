"""The platform learns what of a configuration is secret from each game's hooks (issue 29 item 5,
``games.base.ConfigHooks``), not from a list of Condottiere's keys: the seed by default, the seed and
the deck order for Condottiere (RL-10: either decides every hand)."""

from __future__ import annotations

import inspect
import re
from collections import Counter
from pathlib import Path

from games import base, get_game
from games.base import COMMITMENT, fixed_chance_keys, public_config, secret_config_keys
from games.condottiere.board import DECK_COUNTS
from replays import export, fairness
from tests.api.toy_game import GAME as TOY


def _deck(ruleset: str) -> list[str]:
    return sorted(Counter(DECK_COUNTS[ruleset]).elements())


def test_a_game_without_the_hook_keeps_only_its_seed_secret():
    assert secret_config_keys(TOY) == ("seed",)
    assert fixed_chance_keys(TOY) == ()
    config = TOY.configure({"seed": 5, "hand_size": 2})
    # The toy game has no public_config: the default drops exactly its secret keys.
    assert public_config(TOY, config) == {"hand_size": 2, "first": 0}


def test_rl_10_condottiere_declares_the_seed_and_the_deck_order_secret():
    game = get_game("condottiere")
    assert secret_config_keys(game) == ("seed", "deck_order")
    assert fixed_chance_keys(game) == ("deck_order",)
    config = game.configure({"players": 2, "seed": 7, "deck_order": _deck("2006")})
    public = public_config(game, config)
    assert "seed" not in public and "deck_order" not in public
    assert public["players"] == 2


def test_a_games_own_public_config_hook_wins():
    rio = get_game("rio_de_la_plata")
    config = rio.configure({"players": 3, "seed": 11})
    assert public_config(rio, config) == rio.public_config(config)
    assert "seed" not in public_config(rio, config)


def test_rl_10_a_given_deck_order_under_a_drawn_commitment_is_refused_by_the_fairness_check():
    """The key that fixes the deal comes from Condottiere's hook (``fixed_chance_keys``)."""
    game = get_game("condottiere")
    first, *rest = game.start(game.configure({"players": 2, "seed": 3, "deck_order": _deck("2006")}))
    first = {**first, COMMITMENT: {"scheme": "x", "digest": "0" * 64, "prearranged": False}}
    document = {"game": "condottiere", "id": "g1", "finished": True, "events": [first, *rest]}
    report = fairness.verify_fair(document)
    assert report["opens"] is False and report["ok"] is False
    assert report["problem"] == "The configuration gives deck_order, but the commitment says drawn."


def test_rl_10_the_markdown_export_says_a_given_deck_order_in_a_few_words():
    game = get_game("condottiere")
    deck = _deck("2006")
    config = game.configure({"players": 2, "seed": 3, "deck_order": deck})
    text = export.to_markdown(game, {"id": "g1", "config": config, "players": [], "version": 0})
    assert f'"deck_order":"given ({len(deck)} cards)"' in text
    assert deck[0] not in text.split("**Configuration:**")[1].splitlines()[0]


PRODUCT = ("api", "bots", "cli", "launcher", "replays", "schemas", "service", "store", "web", "worker")
# hook(game, "name") / getattr(game, "name", ...): the optional members the platform looks up.
LOOKUP = re.compile(r"""(?:\bhook|\bgetattr)\(\s*(?:[\w.]*game[\w.()]*|_game_or_404\(name\)),\s*"(\w+)\"""")


def _looked_up() -> dict[str, list[str]]:
    root = Path(__file__).resolve().parents[2]
    found: dict[str, list[str]] = {}
    # games/base.py's helpers (public_config, archive_labels...) look hooks up for the platform too.
    paths = [root / "games" / "base.py", root / "games" / "__init__.py"]
    paths += [path for package in PRODUCT for path in sorted((root / package).rglob("*.py"))]
    for path in paths:
        for name in LOOKUP.findall(path.read_text()):
            found.setdefault(name, []).append(str(path.relative_to(root)))
    return found


def _declared() -> set[str]:
    names: set[str] = set()
    for _, member in inspect.getmembers(base, inspect.isclass):
        if getattr(member, "_is_protocol", False) and member.__module__ == base.__name__:
            names.update(getattr(member, "__protocol_attrs__", None) or _protocol_names(member))
    return names


def _protocol_names(protocol: type) -> set[str]:
    names = {n for n in vars(protocol) if not n.startswith("_")}
    return names | set(getattr(protocol, "__annotations__", {}))


def test_every_hook_the_platform_looks_up_is_declared_in_games_base():
    """``public_config`` was looked up with getattr but declared nowhere (issue 29): every optional
    member the platform reaches for must be a member of one of games/base.py's protocols."""
    looked_up = _looked_up()
    assert {"public_config", "export_config", "archive_labels", "render_css", "timeout"} <= set(looked_up)
    undeclared = {name: where for name, where in looked_up.items() if name not in _declared()}
    assert undeclared == {}
