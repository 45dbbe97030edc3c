"""The platform learns what of a configuration is secret from each game's hooks (issue 29 item 5,
``games.base.ConfigHooks``), not from a list of Condottiere's keys: the seed by default, the seed and
the deck order for Condottiere (RL-10: either decides every hand)."""

from __future__ import annotations

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


PRODUCT = (
    "api",
    "bots",
    "cli",
    "games",
    "launcher",
    "replays",
    "schemas",
    "service",
    "store",
    "web",
    "worker",
)
# hook(x, "name"), getattr(x, "name", ...), hasattr(x, "name"): a member looked up by its name.
LOOKUP = re.compile(r"""\b(?:hook|getattr|hasattr)\(\s*[^,]+,\s*["'](\w+)["']""")


def _looked_up() -> dict[str, list[str]]:
    """Each hook member some product module looks up by its name, and where."""
    root = Path(__file__).resolve().parents[2]
    found: dict[str, list[str]] = {}
    for path in (path for package in PRODUCT for path in sorted((root / package).rglob("*.py"))):
        for name in LOOKUP.findall(path.read_text()):
            if name in base.HOOK_NAMES:
                found.setdefault(name, []).append(str(path.relative_to(root)))
    return found


def test_no_product_code_looks_a_hook_up_by_its_name():
    """The platform reaches a game's hooks through their typed accessors (``games.base.archive_hooks``,
    ``seat_hooks``...), so mypy checks every use against the protocol: ``public_config`` was once
    looked up with getattr and declared nowhere. A lookup by name (``hook(game, "chapters")``,
    ``getattr(game, "render_css", "")``) is checked by nothing."""
    assert LOOKUP.findall('hook(game, "chapters") getattr(_game_or_404(name), "render_css", "")') == [
        "chapters",
        "render_css",
    ]
    assert not hasattr(base, "hook")
    assert _looked_up() == {}
