"""Rio de la Plata (Giochix, 2010) as a pure event-sourced rule engine.

``GAME`` implements :class:`games.base.Game` and declares every optional hook it provides by
subclassing its protocol (``games.base``, the plug-in kit); each member is defined below. Rule IDs
refer to ``shared/rules/rio-de-la-plata.md``; commands, events and views are specified in
``docs/rio-de-la-plata-protocol.md``. The board model (section 21) is ``data/board.json``; a
configuration may carry another board document."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from games.base import (
    REVISION,
    SEED,
    ArchiveHooks,
    ChanceHooks,
    ConfigHooks,
    ContractHooks,
    DecisionHooks,
    ExplorerHooks,
    Game,
    LogError,
    OutcomeHooks,
    RatingHooks,
    RevisionHooks,
    SearchHooks,
    TextHooks,
    WebHooks,
)
from games.rio_de_la_plata import archive, chance, rules, text, text_moves, undo, views
from games.rio_de_la_plata import explorer as _explorer
from games.rio_de_la_plata import playout as _playout
from games.rio_de_la_plata import search as _search
from games.rio_de_la_plata.annotate import annotate as _annotate
from games.rio_de_la_plata.board import load_board
from games.rio_de_la_plata.config import RULES_REVISION
from games.rio_de_la_plata.config import configure as _configure
from games.rio_de_la_plata.contract import contract
from games.rio_de_la_plata.state import State, make_state
from games.rio_de_la_plata.verify import verify_log as _verify_log

STATE_FORMAT = 1
RATED_DECISIONS = 10


class RioDeLaPlata(
    RevisionHooks,
    ConfigHooks,
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
    name = "rio_de_la_plata"
    title = "Rio de la Plata"
    rules_revision = RULES_REVISION
    secret_config_keys = (SEED,)  # games.base.ConfigHooks: the seed decides every draw

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

    # -- games.base.ConfigHooks ------------------------------------------------------------------
    def public_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return views.public_config(dict(config))

    def redact(self, event: dict, viewer: Any) -> dict:
        return views.redact(event, viewer)

    def annotate(self, before: State | None, event: dict, after: State | None) -> str:
        return _annotate(before, event, after)

    def state_to_json(self, state: State) -> dict[str, Any]:
        data: dict[str, Any] = {"format": STATE_FORMAT, "state": dict(state)}
        if state.taken is not None:  # mid-turn only: what an undo goes back to (undo.py)
            data["undo"] = undo.chain_to_json(state)
        return data

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        if data.get("format") != STATE_FORMAT:
            raise ValueError(f"unknown Rio de la Plata snapshot format {data.get('format')!r}")
        body = dict(data["state"])
        state = make_state(body, load_board(body["config"].get("board")))
        return undo.chain_from_json(state, list(data.get("undo") or ()))

    def verify_log(self, events: Sequence[dict]) -> LogError | None:
        return _verify_log(events)

    # -- games.base.ChanceHooks, games.base.DecisionHooks ---------------------------------------
    def rederive_chance(self, events: Sequence[dict]) -> Iterator[tuple[int, dict]]:
        return chance.rederive_chance(events)

    def decisions(self, events: Sequence[dict]) -> Iterator[tuple[int, int, dict]]:
        return chance.decisions(events)

    # -- games.base.RatingHooks --------------------------------------------------------------------
    def rated_decisions(self, config: Mapping[str, Any]) -> int:
        """Ten decisions of each seat (a random whole game gives each seat hundreds), so a game
        abandoned at once is never rated."""
        return RATED_DECISIONS

    # -- games.base.ExplorerHooks: the situations the decision explorer groups -------------------
    explorer_situations = staticmethod(_explorer.explorer_situations)
    explore = staticmethod(_explorer.explore)

    # -- games.base.ArchiveHooks: chapters per round, facts, export rendering (archive.py) -------
    chapters = staticmethod(archive.chapters)
    game_facts = staticmethod(archive.game_facts)
    summarize = staticmethod(archive.summarize)
    render_chapter_html = staticmethod(archive.render_chapter_html)
    render_chapter_markdown = staticmethod(archive.render_chapter_markdown)
    render_css = archive.RENDER_CSS
    annotator_for = staticmethod(archive.annotator_for)

    def archive_labels(self, config: Mapping[str, Any]) -> dict[str, list[str]]:
        return {}  # one edition and no options: nothing to list or filter finished games by

    def export_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return dict(config)  # every value is short: the export prints the configuration as it is

    # -- games.base.OutcomeHooks ------------------------------------------------------------------
    def outcome_names(self) -> dict[str, str]:
        return {"score": "most VP after the last year"}

    # -- games.base.WebHooks: the board drawn by archive.py, and the page module beside it -------
    board_template = staticmethod(archive.board_template)
    web_module = Path(__file__).parent / "web" / "renderer.js"

    # -- games.base.TextHooks: the command-line client's text of views, moves and events ---------
    render_text = staticmethod(text.render_text)
    describe_event = staticmethod(text.describe_event)
    describe_move = staticmethod(text_moves.describe_move)
    move_menu = staticmethod(text_moves.move_menu)

    # -- games.base.SearchHooks: samples of a seat's information set (search.py) ---------------
    determinize = staticmethod(_search.determinize)
    estimate = staticmethod(_search.estimate)
    advance = staticmethod(_search.advance)
    playout_move = staticmethod(_search.playout_move)
    guided_move = staticmethod(_playout.guided_move)
    expert_candidates = staticmethod(_playout.expert_candidates)
    # The analysis keeps uniform playouts: the heuristic-scored ones made a game's analysis 1.9x
    # dearer (bench/README.md), over its 180 CPU s target; the expert bot, which spends one
    # decision's budget at a time, plays the guided ones.
    analysis_budget = (60, 10, "uniform")
    chance_only = True

    # -- games.base.ContractHooks --------------------------------------------------------------
    def contract(self) -> dict[str, Any]:
        """The JSON Schemas of commands, events, views and config (contract.py)."""
        return contract()


GAME: Game[State] = RioDeLaPlata()
