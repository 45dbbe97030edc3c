"""Bot levels a seat may be claimed by. One place, so the API schema and the service agree; the BOTS
engineer's registry replaces this set."""

BOT_LEVELS: frozenset[str] = frozenset({"random", "heuristic"})
