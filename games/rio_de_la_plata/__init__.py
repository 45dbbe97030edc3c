"""Rio de la Plata (Giochix, 2010) as a pure event-sourced rule engine.

``GAME`` implements :class:`games.base.Game`. Rule IDs refer to ``shared/rules/rio-de-la-plata.md``;
commands, events and views are specified in ``docs/rio-de-la-plata-protocol.md``. The board model
(section 21) is ``data/board.json``; a configuration may carry another board document."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.base import REVISION, Game, LogError
from games.rio_de_la_plata import chance, rules, views
from games.rio_de_la_plata.annotate import annotate as _annotate
from games.rio_de_la_plata.archive import attach_archive_hooks
from games.rio_de_la_plata.board import load_board
from games.rio_de_la_plata.config import RULES_REVISION
from games.rio_de_la_plata.config import configure as _configure
from games.rio_de_la_plata.contract import contract
from games.rio_de_la_plata.state import State, make_state
from games.rio_de_la_plata.text import attach_text_hooks
from games.rio_de_la_plata.verify import verify_log as _verify_log

STATE_FORMAT = 1


class RioDeLaPlata:
    name = "rio_de_la_plata"
    title = "Rio de la Plata"
    rules_revision = RULES_REVISION

    def configure(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return _configure(raw)

    # -- games.base.RevisionHooks ----------------------------------------------------------------
    def configure_recorded(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return _configure(config, recorded=True)

    def seat_count(self, config: Mapping[str, Any]) -> int:
        return int(config["players"])

    def start(self, config: Mapping[str, Any]) -> list[dict]:
        # A configuration that names its revision (normalised, perhaps before the engine's last
        # revision) starts under it; one without is a new game's.
        return rules.start(_configure(config, recorded=REVISION in config))

    def evolve(self, state: State | None, event: dict) -> State:
        return rules.evolve(state, event)

    def decide(self, state: State, seat: int, command: dict) -> list[dict]:
        return rules.decide(state, seat, command)

    def next_automatic_event(self, state: State) -> dict | None:
        return rules.next_automatic(state)

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        return rules.legal_moves(state, seat)

    def awaiting(self, state: State) -> list[int]:
        return rules.awaiting(state)

    def is_over(self, state: State) -> bool:
        return state is not None and state["step"] == rules.OVER

    def result(self, state: State) -> dict[str, Any] | None:
        return None if state is None else views.result(state)

    def view(self, state: State, viewer: Any) -> dict[str, Any]:
        return views.view(state, viewer)

    def public_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return views.public_config(dict(config))

    def redact(self, event: dict, viewer: Any) -> dict:
        return views.redact(event, viewer)

    def annotate(self, before: State | None, event: dict, after: State | None) -> str:
        return _annotate(before, event, after)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "state": dict(state)}

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        if data.get("format") != STATE_FORMAT:
            raise ValueError(f"unknown Rio de la Plata snapshot format {data.get('format')!r}")
        body = dict(data["state"])
        return make_state(body, load_board(body["config"].get("board")))

    def verify_log(self, events: Sequence[dict]) -> LogError | None:
        return _verify_log(events)

    # -- games.base.ChanceHooks, games.base.DecisionHooks ---------------------------------------
    def rederive_chance(self, events: Sequence[dict]) -> Iterator[tuple[int, dict]]:
        return chance.rederive_chance(events)

    def decisions(self, events: Sequence[dict]) -> Iterator[tuple[int, int, dict]]:
        return chance.decisions(events)

    # -- games.base.ContractHooks --------------------------------------------------------------
    def contract(self) -> dict[str, Any]:
        """The JSON Schemas of commands, events, views and config (contract.py)."""
        return contract()


GAME: Game[State] = RioDeLaPlata()

# Optional archive hooks (games.base.ArchiveHooks): chapters per round, facts, export rendering.
attach_archive_hooks(GAME)

# Optional terminal hooks (games.base.TextHooks): the command-line client's text of views and moves.
attach_text_hooks(GAME)

# Optional search hooks (games.base.SearchHooks): samples of a seat's information set for the
# searching bot and the analysis of finished games.
from games.rio_de_la_plata import search as _search  # noqa: E402

GAME.determinize = _search.determinize  # type: ignore[attr-defined]
GAME.estimate = _search.estimate  # type: ignore[attr-defined]
GAME.advance = _search.advance  # type: ignore[attr-defined]
