"""Validation and normalisation of a game's configuration (SET-1, options of section 8, CL-7)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.base import ConfigError
from games.condottiere.board import DECK_COUNTS

RULESETS = ("2006", "classic")
OPTIONS = ("draw_after_battle", "points_target", "bigger_kingdoms", "capturing", "hidden_cards")
# Options that exist only in the 2006 edition (section 9 lists what the classic edition offers).
ONLY_2006 = ("draw_after_battle", "hidden_cards")
FIELDS = ("ruleset", "players", "options", "seed", "first_condottiere", "deck_order")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def configure(raw: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError("INVALID_CONFIG", "The configuration must be an object.")
    unknown = sorted(set(raw) - set(FIELDS) - {"deck_order_given"})
    if unknown:
        raise ConfigError("INVALID_CONFIG", f"Unknown configuration field(s): {', '.join(unknown)}.")

    ruleset = raw.get("ruleset", "2006")
    if ruleset is None:
        ruleset = "2006"
    if ruleset not in RULESETS:
        raise ConfigError("INVALID_RULESET", 'The ruleset must be "2006" or "classic".')

    players = raw.get("players")
    if not _is_int(players) or not 2 <= players <= 6:
        raise ConfigError("INVALID_PLAYER_COUNT", "Condottiere is played by 2 to 6 players.", "SET-1")

    raw_options = raw.get("options")
    if raw_options is None:
        raw_options = {}
    if not isinstance(raw_options, Mapping):
        raise ConfigError("INVALID_OPTION", "options must be an object.")
    unknown = sorted(set(raw_options) - set(OPTIONS))
    if unknown:
        raise ConfigError("INVALID_OPTION", f"Unknown option(s): {', '.join(unknown)}.")
    options: dict[str, Any] = {}
    for name in ("draw_after_battle", "bigger_kingdoms", "capturing", "hidden_cards"):
        value = raw_options.get(name, False)
        if value is None:
            value = False
        if not isinstance(value, bool):
            raise ConfigError("INVALID_OPTION", f"Option {name} must be true or false.")
        options[name] = value
    target = raw_options.get("points_target")
    if target is not None and (not _is_int(target) or not 1 <= target <= 1000):
        raise ConfigError(
            "INVALID_TARGET", "points_target must be null or an integer from 1 to 1000.", "OPT-POINTS-1"
        )
    options["points_target"] = target
    options = {name: options[name] for name in OPTIONS}
    if ruleset == "classic":
        for name in ONLY_2006:
            if options[name]:
                raise ConfigError(
                    "OPTION_NOT_IN_RULESET", f"Option {name} exists only in the 2006 edition.", "CL-7"
                )

    seed = normalise_seed(raw.get("seed", 0))

    first = raw.get("first_condottiere")
    if first is not None and (not _is_int(first) or not 0 <= first < players):
        raise ConfigError(
            "INVALID_SEAT", f"first_condottiere must be a seat from 0 to {players - 1}.", "SET-2"
        )

    deck_order = raw.get("deck_order")
    if deck_order is not None:
        if not isinstance(deck_order, (list, tuple)) or not all(isinstance(c, str) for c in deck_order):
            raise ConfigError("INVALID_DECK_ORDER", "deck_order must be a list of card codes.")
        if Counter(deck_order) != Counter(DECK_COUNTS[ruleset]):
            size = sum(DECK_COUNTS[ruleset].values())
            raise ConfigError(
                "INVALID_DECK_ORDER",
                f"deck_order must hold exactly the {size} cards of the {ruleset} deck.",
                "CL-1" if ruleset == "classic" else "CARD-1",
            )
        deck_order = list(deck_order)

    return {
        "ruleset": ruleset,
        "players": players,
        "options": options,
        "seed": seed,
        "first_condottiere": first,
        "deck_order": deck_order,
    }


# RL-10: seeds are integers from 0 to 2**128 - 1. Past 2**53 - 1 a JSON number loses bits in many
# clients (JavaScript's), so such a seed travels as a decimal string; the shuffles read the seed
# through its decimal text (Random(f"{seed}/{n}")), so both forms of one number shuffle alike.
MAX_SEED = 2**128 - 1
MAX_EXACT_JSON_INTEGER = 2**53 - 1
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]{0,38})")


def normalise_seed(seed: Any) -> int | str:
    """A seed in its one canonical form: an int up to 2**53 - 1, a decimal string above (a seed up
    to 2**53 - 1 sent as a string, or a large one as a JSON number, is accepted only in its own
    form: numbers past 2**64 do not even parse, and a string "1" is refused as before)."""
    if seed is None:
        return 0
    if isinstance(seed, str) and _DECIMAL.fullmatch(seed) and int(seed) > MAX_EXACT_JSON_INTEGER:
        seed = int(seed)  # a small seed is a JSON integer: one number, one spelling
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(
            "INVALID_SEED",
            "seed must be an integer from 0 to 2**128 - 1 (a decimal string above 2**53 - 1).",
            "RL-10",
        )
    return seed if seed <= MAX_EXACT_JSON_INTEGER else str(seed)


def public_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration as everybody may see it while the game runs: a given deck order reveals
    every hand, and so does the seed (every shuffle is drawn from it)."""
    public = dict(config)
    public["options"] = dict(config["options"])
    public["deck_order_given"] = config.get("deck_order") is not None
    public["deck_order"] = None
    public["seed"] = None
    return public
