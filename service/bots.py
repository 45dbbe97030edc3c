"""Which bot levels a seat may be given. The registry is the BOTS area's (``bots.levels``: ``random``
for every game, plus the game's own levels); this module is the one place the server asks it."""

from __future__ import annotations

# Levels every deployment knows: the schema documents them; a game may offer fewer or more.
BOT_LEVELS: frozenset[str] = frozenset({"random", "heuristic"})


def bot_levels(game_name: str) -> list[str]:
    """The levels available for ``game_name``."""
    import bots  # imported late: the registry imports game modules

    return list(bots.levels(game_name))
