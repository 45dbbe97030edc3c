"""Condottiere (2006 edition and classic edition) as a pure event-sourced rule engine.

``GAME`` implements :class:`games.base.Game` and declares every optional hook it provides by
subclassing its protocol (``games.base``, the plug-in kit); each member is defined below. Rule IDs
refer to ``shared/rules/condottiere.md``;
commands, events and views are specified in ``docs/condottiere-protocol.md``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from games.base import (
    REVISION,
    ArchiveHooks,
    ChanceHooks,
    ConfigHooks,
    ContractHooks,
    DecideHooks,
    DecisionHooks,
    ExplorerHooks,
    FirstSeatHooks,
    Game,
    LogError,
    OutcomeHooks,
    RatingHooks,
    RevisionHooks,
    SearchHooks,
    SeatHooks,
    SnapshotHooks,
    TextHooks,
    WebHooks,
    without_secret_keys,
)
from games.condottiere import automatic, chance, decide, evolve, leave, render, stats, text, views
from games.condottiere import explorer as _explorer
from games.condottiere import playout as _playout
from games.condottiere import search as _search
from games.condottiere.annotate import annotate as _annotate
from games.condottiere.config import RULES_REVISION, SECRET_CONFIG_KEYS
from games.condottiere.config import archive_labels as _archive_labels
from games.condottiere.config import configure as _configure
from games.condottiere.config import export_config as _export_config
from games.condottiere.contract import contract as _contract
from games.condottiere.serial import encode_state as _encode_state
from games.condottiere.serial import state_from_json as _from_json
from games.condottiere.serial import state_to_json as _to_json
from games.condottiere.state import State
from games.condottiere.steps import STEP_GAME_OVER
from games.condottiere.verify import verify_log as _verify_log

RATED_DECISIONS = 5


class Condottiere(
    RevisionHooks,
    ConfigHooks,
    FirstSeatHooks,
    DecideHooks,
    SnapshotHooks,
    SeatHooks,
    ChanceHooks,
    DecisionHooks,
    RatingHooks,
    ExplorerHooks,
    ArchiveHooks,
    WebHooks,
    OutcomeHooks,
    TextHooks,
    ContractHooks,
    SearchHooks,
):
    name = "condottiere"
    title = "Condottiere"
    rules_revision = RULES_REVISION

    # -- games.base.ConfigHooks ------------------------------------------------------------------
    secret_config_keys = SECRET_CONFIG_KEYS

    def public_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return without_secret_keys(config, SECRET_CONFIG_KEYS)

    def configure(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return _configure(raw)

    # -- games.base.FirstSeatHooks ----------------------------------------------------------------
    def first_seat_config(self, config: Mapping[str, Any], seat: int) -> dict[str, Any] | None:
        """SET-2: a configuration that names ``first_condottiere`` starts with that seat (nothing is
        drawn); one that already names it keeps it."""
        if config.get("first_condottiere") is not None:
            return None
        return {**config, "first_condottiere": seat}

    # -- games.base.RevisionHooks ----------------------------------------------------------------
    def configure_recorded(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return _configure(config, recorded=True)

    def seat_count(self, config: Mapping[str, Any]) -> int:
        return config["players"]

    def start(self, config: Mapping[str, Any]) -> list[dict]:
        # A configuration that names its revision (normalised, perhaps before the engine's last
        # revision) starts under it; one without is a new game's.
        return decide.start(_configure(config, recorded=REVISION in config))

    def evolve(self, state: State | None, event: dict) -> State:
        after = evolve.evolve(state, event)
        assert after is not None, "a log starts with game_started"
        return after

    def decide(self, state: State, seat: int, command: dict) -> list[dict]:
        return decide.decide(state, seat, command)

    # -- games.base.DecideHooks ----------------------------------------------------------------
    def decide_and_evolve(self, state: State, seat: int, command: dict) -> tuple[list[dict], State]:
        return decide.decide_and_evolve(state, seat, command)

    def next_automatic_event(self, state: State) -> dict | None:
        return automatic.next_automatic_event(state)

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        return views.legal_moves(state, seat)

    def awaiting(self, state: State) -> list[int]:
        return [] if state is None else list(state.awaiting)

    def is_over(self, state: State) -> bool:
        return state is not None and state.step == STEP_GAME_OVER

    def result(self, state: State) -> dict[str, Any] | None:
        return None if state is None else views.result(state)

    def view(self, state: State, viewer: Any) -> dict[str, Any]:
        return views.view(state, viewer)

    def redact(self, event: dict, viewer: Any) -> dict:
        return views.redact(event, viewer)

    def annotate(self, before: State | None, event: dict, after: State | None) -> str:
        return _annotate(before, event, after)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return _to_json(state)

    # -- games.base.SnapshotHooks ---------------------------------------------------------------
    def encode_state(self, state: State) -> bytes:
        return _encode_state(state)

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        return _from_json(data)

    def verify_log(self, events: Sequence[dict]) -> LogError | None:
        return _verify_log(events)

    # -- games.base.SeatHooks ----------------------------------------------------------------
    def resign(self, state: State, seat: int) -> list[dict]:
        return _with_automatic(state, leave.resign_events(state, seat))

    def abort(self, state: State, seat: int) -> list[dict]:
        return _with_automatic(state, leave.abort_events(state, seat))

    def timeout(self, state: State, seat: int) -> list[dict]:
        return _with_automatic(state, leave.timeout_events(state, seat))

    # -- games.base.ChanceHooks, games.base.DecisionHooks ---------------------------------------
    def rederive_chance(self, events: Sequence[dict]) -> Iterator[tuple[int, dict]]:
        return chance.rederive_chance(events)

    def decisions(self, events: Sequence[dict]) -> Iterator[tuple[int, int, dict]]:
        return chance.decisions(events)

    # -- games.base.RatingHooks --------------------------------------------------------------------
    def rated_decisions(self, config: Mapping[str, Any]) -> int:
        """Five decisions of each seat: about one battle's cards and passes (a random whole game
        gives each seat 15 or more), so a game resigned or abandoned at once is never rated."""
        return RATED_DECISIONS

    # -- games.base.ExplorerHooks: the situations the decision explorer groups -------------------
    explorer_situations = staticmethod(_explorer.explorer_situations)
    explore = staticmethod(_explorer.explore)

    # -- games.base.ArchiveHooks: chapters, statistics facts, export rendering -------------------
    chapters = staticmethod(stats.chapters)
    game_facts = staticmethod(stats.game_facts)
    summarize = staticmethod(render.summarize)
    render_chapter_html = staticmethod(render.render_chapter_html)
    render_chapter_markdown = staticmethod(render.render_chapter_markdown)
    render_css = render.RENDER_CSS
    annotator_for = staticmethod(render.annotator_for)

    def archive_labels(self, config: Mapping[str, Any]) -> dict[str, list[str]]:
        return _archive_labels(config)

    def export_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return _export_config(config)

    # -- games.base.OutcomeHooks ------------------------------------------------------------------
    def outcome_names(self) -> dict[str, str]:
        return dict(stats.OUTCOMES)

    # -- games.base.WebHooks: the board drawn by render.py, and the page module beside it --------
    board_template = staticmethod(render.board_template)
    web_module = Path(__file__).parent / "web" / "renderer.js"

    # -- games.base.TextHooks: the command-line client's text of views, moves and events ---------
    render_text = staticmethod(text.render_text)
    describe_event = staticmethod(text.describe_event)
    describe_move = staticmethod(text.describe_move)
    move_menu = staticmethod(text.move_menu)

    # -- games.base.SearchHooks: samples of a seat's information set (search.py) ---------------
    determinize = staticmethod(_search.determinize)
    estimate = staticmethod(_search.estimate)
    advance = staticmethod(_search.advance)
    playout_move = staticmethod(_search.playout_move)
    guided_move = staticmethod(_playout.guided_move)
    expert_candidates = staticmethod(_playout.expert_candidates)
    analysis_budget = (100, 30, "guided")
    chance_only = False

    # -- games.base.ContractHooks --------------------------------------------------------------
    def contract(self) -> dict[str, Any]:
        """The JSON Schemas of commands, events, views and config."""
        return _contract()


def _with_automatic(state: State, events: list[dict]) -> list[dict]:
    for event in events:
        state = evolve.evolve(state, event)
    out = list(events)
    automatic.run_automatic(state, out)
    return out


GAME: Game[State] = Condottiere()
