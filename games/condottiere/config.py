"""Validation and normalisation of a game's configuration (SET-1, options of section 8, CL-7)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, TypeGuard

from games.base import REVISION, ConfigError, log_revision, normalise_revision
from games.base import normalise_seed as base_normalise_seed
from games.condottiere.board import DECK_COUNTS

RULESETS = ("2006", "classic")
OPTIONS = ("draw_after_battle", "points_target", "bigger_kingdoms", "capturing", "hidden_cards")
# Options that exist only in the 2006 edition (section 9 lists what the classic edition offers).
ONLY_2006 = ("draw_after_battle", "hidden_cards")
FIELDS = ("ruleset", "players", "options", "seed", "first_condottiere", "deck_order", REVISION)

# The rules revisions (games.base): 1, the rules before RL-11 and RL-12 (commit 0ba873d): the hand
# discard (END-7) was offered only to the seats holding cards but no Mercenary, and no number of
# battles without a card ended a game; 2, RL-11 and RL-12 as the specification has them. Revisions
# were first numbered after RL-12: a log recorded before then names none and may follow
# either, so the engine plays such a log under revision 2 (the running games and the archive of the
# day: RL-12 also keeps a seat's eligibility hidden) and reads it as revision 1 wherever the log
# shows it went on as revision 1 would (steps.read_as_revision_1; verify_log holds the log to one of
# the two throughout).
RULES_REVISION = 2
RL_11_RL_12 = 2


def revision(config: Mapping[str, Any]) -> int:
    """The rules revision a game is played under: the one its configuration names, else (a log
    recorded before revisions existed) revision 2, unless read as revision 1 where the log shows it."""
    return log_revision(config) if REVISION in config else RULES_REVISION


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def configure(raw: Mapping[str, Any], *, recorded: bool = False) -> dict[str, Any]:
    """A new game's configuration, or (``recorded``) the one a log recorded, whose rules revision it
    keeps (``games.base.normalise_revision``)."""
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
        REVISION: normalise_revision(raw, RULES_REVISION, recorded=recorded),
    }


def normalise_seed(seed: Any) -> int | str:
    """RL-10: the platform's seed rule (``games.base.normalise_seed``), refusals naming RL-10."""
    return base_normalise_seed(seed, rule="RL-10")


# games.base.ConfigHooks: the seed and a given deck order each decide every hand.
SECRET_CONFIG_KEYS = ("seed", "deck_order")


def archive_labels(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """games.base.ArchiveHooks: the archive lists a game under its edition and its options on."""
    options = config.get("options") or {}
    return {
        "ruleset": [config["ruleset"]] if config.get("ruleset") else [],
        "option": [k for k, v in options.items() if v not in (None, False)],  # the config's order
    }


def export_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A finished game's configuration as its Markdown export prints it: a given deck order (110
    card codes) as its length."""
    shown = {k: v for k, v in config.items() if k != "deck_order"}
    if config.get("deck_order"):
        shown["deck_order"] = f"given ({len(config['deck_order'])} cards)"
    return shown


def public_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration as everybody may see it while the game runs: a given deck order reveals
    every hand, and so does the seed (every shuffle is drawn from it)."""
    public = dict(config)
    public["options"] = dict(config["options"])
    public["deck_order_given"] = config.get("deck_order") is not None
    public["deck_order"] = None
    public["seed"] = None
    return public
