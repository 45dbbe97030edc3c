"""The interface every game engine implements: with :mod:`games.contract_schema`, the plug-in kit.

A game package, in this repository or in a distribution of its own, needs nothing of the platform
but these two modules (``games`` carries a ``py.typed`` marker, so a plug-in's own mypy checks it
against them). Its entry point (``<name> = "<package>:GAME"``, see :mod:`games`) names one object,
an instance of a class that implements :class:`Game` and *declares* every optional hook it provides
by subclassing the hook's protocol (``class MyGame(ArchiveHooks, TextHooks): ...``) and defining
each of the protocol's members in its own body: mypy then checks each member against the protocol
(a member left out makes the class abstract, and ``GAME = MyGame()`` a type error). The platform
reaches a hook only through its typed accessor (:func:`archive_hooks`, :func:`seat_hooks`, ...),
which answers for declared hooks only; nothing is attached to a game object after it is built.

A game is a *decider*: ``decide(state, seat, command) -> events`` validates a seat's command and
returns the facts it causes (including every engine-driven step that follows, up to the next point
where a player must decide); ``evolve(state, event) -> state`` applies one fact and never fails.
The state of a game is the left fold of its event log through ``evolve``, starting from ``None``.

Everything here is pure: no I/O, no clock, no global randomness. Randomness comes from the seed
in the game's configuration, and its outcomes (shuffles, draws) are recorded as events, so a replay
never re-draws anything.

Nothing outside ``games/<name>/`` may assume anything about a particular game: the server, the
archive and the workers only speak this interface.

Conventions shared by all games:

* Events and commands are JSON-serialisable ``dict`` objects with a ``"type"`` key; events also
  carry ``"v"``, the schema version of that event type.
* Seats are ``int`` from ``0`` to ``seat_count - 1``.
* A *viewer* is a seat number, ``SPECTATOR`` (``None``: sees only public information) or ``FULL``
  (sees everything: for finished games and for the engine's own checks).

Longer than 500 lines because it is the whole contract between the platform and a game, read in
one place by whoever writes a game: the ``Game`` protocol, each optional hook's protocol (archive,
seats, chance, decisions, web, text, contract, revisions, configuration, first seat) beside the
platform's helper that calls it or applies its default (``archive_labels``, ``encode_state``,
``configure_recorded``, ``public_config``, the hooks' typed accessors...), and the names of the
facts every game's log shares; it holds no game's logic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

import orjson

Event = dict[str, Any]
Command = dict[str, Any]
Config = dict[str, Any]

SPECTATOR = None
FULL = "full"
Viewer = int | str | None  # a seat, SPECTATOR or FULL

# A game's own state type (opaque outside ``games/<name>/``): ``Game[State]``.
StateT = TypeVar("StateT")


class GameError(Exception):
    """A command or configuration the rules refuse.

    ``code`` is stable and machine-readable (``NOT_YOUR_TURN``); ``message`` is plain English and
    must never reveal hidden information the caller may not see; ``rule`` names the rule ID that
    refuses it, when there is one.
    """

    def __init__(self, code: str, message: str, rule: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    def to_dict(self) -> dict[str, Any]:
        data = {"code": self.code, "message": self.message}
        if self.rule:
            data["rule"] = self.rule
        return data


class ConfigError(GameError):
    """An invalid game configuration."""


class CommandError(GameError):
    """A command refused by the rules (wrong turn, card not in hand, region not allowed...)."""


@dataclass(frozen=True)
class LogError:
    """The first event of a log that the rules do not accept."""

    index: int  # 0-based position of the offending event in the log
    code: str
    message: str
    rule: str | None = None
    event: Event | None = field(default=None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "code": self.code,
            "message": self.message,
            "rule": self.rule,
            "event": self.event,
        }


@runtime_checkable
class Game(Protocol[StateT]):
    """One game's rules, generic in its state type. Implementations are stateless singletons
    (module-level objects); code outside the game's package holds a ``Game[Any]`` (from
    ``games.get_game``) and treats states as opaque values it only hands back to the engine."""

    name: str  # stable identifier used in URLs and stored data, e.g. "condottiere"
    title: str  # human-readable name

    # -- configuration ---------------------------------------------------------------------
    def configure(self, raw: Mapping[str, Any]) -> Config:
        """Validate and normalise a configuration (fill defaults); raise ConfigError."""

    def seat_count(self, config: Config) -> int: ...

    def start(self, config: Config) -> list[Event]:
        """The genesis events of a new game: configuration, first player, shuffles, deals...

        The first event records the full normalised configuration, so a log describes itself.
        """

    # -- the decider -----------------------------------------------------------------------
    def evolve(self, state: StateT | None, event: Event) -> StateT:
        """Apply one event. ``state`` is ``None`` before the first event. Never fails on a valid
        log, never mutates its input."""

    def decide(self, state: StateT, seat: int, command: Command) -> list[Event]:
        """Validate ``command`` by ``seat``; return the events it causes followed by every
        automatic event up to the next player decision. Raise CommandError to refuse."""

    def legal_moves(self, state: StateT, seat: int) -> list[Command]:
        """Every command ``seat`` may send now (empty when nothing is awaited from it). ``decide``
        accepts each of them."""

    def awaiting(self, state: StateT) -> list[int]:
        """Seats from which a decision is awaited now (empty when the game is over)."""

    def is_over(self, state: StateT) -> bool: ...

    def result(self, state: StateT) -> dict[str, Any] | None:
        """``None`` while the game runs; then at least ``{"winners": [seats], "reason": str}``
        (``winners`` may be empty when the rules allow a game without a winner)."""

    # -- information -----------------------------------------------------------------------
    def view(self, state: StateT, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` may see. A seat's view includes its hand and its legal moves; the
        spectator view hides every hand; FULL shows everything."""

    def redact(self, event: Event, viewer: Viewer) -> Event:
        """The event as ``viewer`` may see it (a copy when anything is hidden)."""

    def annotate(self, before: StateT | None, event: Event, after: StateT) -> str:
        """One short English sentence describing the event, with the numbers that matter."""

    # -- persistence and verification --------------------------------------------------------
    def state_to_json(self, state: StateT) -> dict[str, Any]: ...

    def state_from_json(self, data: Mapping[str, Any]) -> StateT: ...

    def verify_log(self, events: Sequence[Event]) -> LogError | None:
        """Replay ``events`` through the rules: every player event must be one the rules accept
        at that point and every automatic event must be exactly the one the rules produce (chance
        events such as shuffles are accepted when they are a valid outcome). Return the first
        offending event, or ``None`` when the log is valid."""


def fold(game: Game[StateT], events: Iterable[Event], state: StateT | None = None) -> StateT | None:
    """The state after applying ``events`` to ``state`` (``None``: a new game; ``None`` is also
    what no event at all from ``None`` gives)."""
    evolve = game.evolve
    for event in events:
        state = evolve(state, event)
    return state


# -- optional hooks -------------------------------------------------------------------------------
# A game may implement any of these in addition to ``Game``, declared by subclassing the protocol
# (every member then defined in the game's class); the platform reaches them with their typed
# accessors (:func:`archive_hooks`, ...) and falls back to a generic behaviour when one is missing.
# They are kept out of ``Game`` itself so that ``isinstance(x, Game)`` keeps meaning "can be played".


@runtime_checkable
class ArchiveHooks(Protocol):
    """Optional, pure hooks used by replays, statistics and exports (added by the archive)."""

    def chapters(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        """The log cut into chapters a reader steps through (battles, rounds, hands...):
        ``[{"title": str, "start": int, "end": int}]`` where ``start``/``end`` are versions
        (numbers of events applied): the state at ``start`` is just before the chapter and the
        state at ``end`` is just after its conclusion. Works on a complete (FULL) log."""

    def game_facts(self, events: Sequence[Event]) -> dict[str, Any]:
        """Statistics facts of one complete game, in one pass over its events (no folding needed):
        ``{"seats": n, "first_seat": s|None, "winners": [...], "outcome": str, "chapters": int,
        "seat_counters": [{name: {key: n}}], "seat_totals": [{name: n}], "counters": {name:
        {key: n}}, "detail": {...}}`` (``detail`` is game-specific and shown per game only)."""

    def summarize(self, state: Any, viewer: Viewer) -> dict[str, Any]:
        """A compact JSON summary of ``state`` for ``viewer`` (what an export shows after a chapter)."""

    def render_chapter_html(self, summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
        """An HTML fragment (inline SVG/CSS only, no scripts, no external resources) showing
        ``summary`` at the end of ``chapter``; the text must be HTML-escaped by the game."""

    def render_chapter_markdown(self, summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
        """The same as Markdown."""

    def annotator_for(self, events: Sequence[Event], viewer: Viewer) -> Any:
        """A function ``(before, event, after) -> str`` annotating ``events`` for ``viewer`` (not
        FULL) without revealing anything hidden from it; ``before``/``after`` are complete states."""

    def archive_labels(self, config: Mapping[str, Any]) -> dict[str, list[str]]:
        """What the archive lists, indexes and filters a finished game by, from its public
        configuration: ``{RULESET: [its edition]}`` (one at most) and ``{OPTION: [each option that
        was on]}``, the values of the archive's ``ruleset`` and ``option`` filters. Without this
        hook a game has neither (:func:`archive_labels`)."""

    def export_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """A finished game's configuration as its Markdown export prints it (a long value said in
        a few words). Without this hook the export prints the configuration as it is."""

    # CSS rules the HTML fragments need, included once per page (a plain attribute).
    render_css: str


# The labels of :meth:`ArchiveHooks.archive_labels`: the archive's entry fields ``ruleset`` and
# ``options`` and its filters ``ruleset`` and ``option`` (the platform's words; a game gives values).
RULESET = "ruleset"
OPTION = "option"


def archive_labels(game: Game[Any], config: Mapping[str, Any]) -> dict[str, list[str]]:
    """The archive labels of a finished ``game`` with public configuration ``config``
    (:meth:`ArchiveHooks.archive_labels`; none without the hook)."""
    hooks = archive_hooks(game)
    return {} if hooks is None else hooks.archive_labels(config)


# Events every engine folds as no-ops and accepts wherever a decision is awaited: the server records
# in the log that a seat's token was replaced (``{"type": SEAT_TOKEN_ROTATED, "v": 1, "seat": s}``)
# or that a seat was handed to a bot after too many timeouts (``{..., "seat": s, "level": "random"}``).
SEAT_TOKEN_ROTATED = "seat_token_rotated"
SEAT_HANDED_TO_BOT = "seat_handed_to_bot"

# Result reason of a game aborted before enough was played (``SeatHooks.abort``): no winner, and the
# result carries ``"rated": false`` so no rating or statistic counts it.
ABORTED = "aborted"


@runtime_checkable
class DecideHooks(Protocol):
    """An optional hook for the server's hot path: ``decide`` already evolves every event it returns
    to find the automatic ones, and the server needs that final state too; without this hook it
    folds the same events again."""

    def decide_and_evolve(self, state: Any, seat: int, command: Command) -> tuple[list[Event], Any]:
        """``decide(state, seat, command)`` and the state after its events (the same events, and
        the state ``fold`` of them would give)."""


@runtime_checkable
class SnapshotHooks(Protocol):
    """An optional hook for the server's hot path: every accepted move stores a snapshot, and
    building ``state_to_json``'s plain lists only to encode them was about 4% of a web worker's CPU."""

    def encode_state(self, state: Any) -> bytes:
        """``state_to_json(state)`` encoded as compact JSON, byte for byte what
        ``orjson.dumps(state_to_json(state))`` gives, written straight from the state."""


def encode_state(game: Game[Any], state: Any) -> bytes:
    """The JSON bytes of ``game.state_to_json(state)``, through the engine's
    :class:`SnapshotHooks` when it has one."""
    hooks = snapshot_hooks(game)
    if hooks is not None:
        return hooks.encode_state(state)
    return orjson.dumps(game.state_to_json(state))


@runtime_checkable
class SeatHooks(Protocol):
    """Optional hooks for seats that leave (reached with :func:`seat_hooks`). Each returns the events
    the action causes, its own first (``seat_resigned``, ``game_aborted`` with ``"seat"``), then
    every automatic event up to the next decision, like ``decide``; each raises CommandError to
    refuse. What a resignation does to the seat's cards, regions or pieces is the engine's ruling."""

    def resign(self, state: Any, seat: int) -> list[Event]:
        """``seat`` leaves the game for good."""

    def abort(self, state: Any, seat: int) -> list[Event]:
        """End the game with no result (reason ``ABORTED``), allowed only while too little has been
        played for a result to mean anything (the engine says how little)."""

    def timeout(self, state: Any, seat: int) -> list[Event]:
        """``seat``, awaited, ran out of time (the server's clock decided it: the engine has none):
        ``seat_timed_out`` then what the engine's policy makes the seat do."""


# Committed randomness (replays/fairness.py, docs/fairness.md): the server adds this member to the
# first event of every log it starts, ``{"scheme", "digest", "prearranged"}``, the commitment to the
# seed it published at creation. Engines keep it as it is (``evolve`` ignores it, ``redact`` passes
# it on: it hides the seed) and ``verify_log`` accepts it.
COMMITMENT = "commitment"


@runtime_checkable
class ChanceHooks(Protocol):
    """The optional hook of the fairness verifier: how a game's random events follow from its seed,
    so that anyone holding a finished game's log can check every shuffle and die against the seed it
    was committed to (the platform knows no card and no die; the engine re-derives them)."""

    def rederive_chance(self, events: Sequence[Event]) -> Iterable[tuple[int, Event]]:
        """For a complete (FULL) log that ``verify_log`` accepts, each event a random draw produced,
        in log order: its 0-based index and the event the seed of the log's configuration draws at
        that point. Lazy: the log is folded only as far as the caller iterates (events after an
        index are not looked at before that index is yielded)."""


@runtime_checkable
class DecisionHooks(Protocol):
    """The optional hook of the observation export: where in a log the seats decided."""

    def decisions(self, events: Sequence[Event]) -> Iterable[tuple[int, int, Command]]:
        """For a complete (FULL) log that ``verify_log`` accepts, each player decision in log order:
        ``(version, seat, command)``, where ``version`` is the number of events before the
        decision's first event (the state the seat decided on) and ``command`` is the command
        ``decide`` accepts there to produce the events that follow. Server records (token
        rotations, hand-overs to bots) and timeouts are not decisions."""


# One grouped decision of a finished game (:class:`ExplorerHooks`): (decision index, seat,
# situation, context, move). The index counts the game's decisions (``DecisionHooks.decisions``) from 0.
ExploredMove = tuple[int, int, str, str, str]


@runtime_checkable
class ExplorerHooks(Protocol):
    """The optional hook of the decision explorer: the situations of a game worth grouping across
    games, and how to name the move a seat chose in each. A game without it still has the general
    statistics; its decisions are not grouped.

    Only what every seat saw may name a situation, its context or a move: a seat's own choice (the
    card it played, the region it chose) and the public course of the game (the battle's number, the
    year). ``explore`` is given finished games only (the archive's), but must not read a hand, the
    deck or another seat's hidden choice to name anything, so the same names stay right were it
    ever given a game in progress."""

    def explorer_situations(self) -> Mapping[str, str]:
        """Each situation's key (letters, digits, ``_``) and a sentence describing it."""

    def explore(self, events: Sequence[Event]) -> Iterable[ExploredMove]:
        """For a complete (FULL), finished log, every decision that falls in a declared situation:
        ``(decision index, seat, situation, context, move)``; ``context`` narrows the situation
        (``"battle 2"``, ``"seat 1"``; may be empty) and ``move`` names the choice (``"Milano"``)."""


@runtime_checkable
class RatingHooks(Protocol):
    """The optional hook of the ratings: how much real play a finished game needs to be rated."""

    def rated_decisions(self, config: Mapping[str, Any]) -> int:
        """How many decisions of its own (as :class:`DecisionHooks` finds them) every seat must
        have made, before leaving if it left, for a finished game of ``config`` to be rated. Fewer:
        the game ended before real play (two accounts resigning at once, a seat idle from its
        first turn) and counts like an abort. A game declaring no minimum needs none."""


@runtime_checkable
class WebHooks(Protocol):
    """Optional hooks of the browser client (web/): what a game draws on its pages."""

    def board_template(self) -> str:
        """The game's board as an SVG fragment (the same drawing its HTML export uses), whose
        elements the game's page module updates from each view."""

    # Path of the game's ES module for the pages (renderer.js; interface in web/static/app.js).
    web_module: Any


@runtime_checkable
class OutcomeHooks(Protocol):
    """The optional hook of the pages that show how finished games ended (the archive's outcome
    filter and column): a game's outcome codes in words."""

    def outcome_names(self) -> dict[str, str]:
        """Each outcome a finished game of this game may have (its result's ``reason``, the
        archive's ``outcome``) and the words a player reads for it ("adjacent": "3 adjacent
        regions"). Without this hook the pages show the codes with their underscores as spaces."""


# Outcomes the platform itself gives any game (a game's own words for them take precedence).
PLATFORM_OUTCOMES = {ABORTED: "aborted", "unfinished": "not finished"}


def outcome_names(game: Game[Any]) -> dict[str, str]:
    """Every outcome code of ``game`` with its words (:meth:`OutcomeHooks.outcome_names`, after the
    platform's own)."""
    hooks = outcome_hooks(game)
    return {**PLATFORM_OUTCOMES, **(hooks.outcome_names() if hooks is not None else {})}


@runtime_checkable
class TextHooks(Protocol):
    """Optional hooks of the terminal client (cli/): a game's views, moves and events as plain text.
    Pure functions of what the API sends the reader (a view already redacted for it), so a client
    shows exactly what its seat may see. A game without them is shown generically (JSON)."""

    def render_text(self, view: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        """The table a person reads: board, players' stocks, whose decision it is (no move list:
        the client numbers the moves from :meth:`move_menu`)."""

    def describe_event(self, event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        """One line for an event as the reader received it."""

    def describe_move(self, move: Mapping[str, Any]) -> str:
        """A legal move as a short imperative phrase ("build a church on (3, 4)")."""

    def move_menu(
        self, moves: Sequence[Mapping[str, Any]], view: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """The legal moves as a short menu (``view``, when given, lends labels the table they
        need): entries ``{"label", "move"}`` or, for a move with many variants (a cell among
        fifty), ``{"label", "prompt", "options": [{"label", "move"}]}``, in the order of
        ``moves``; every move appears exactly once (the shape of the web page module's
        ``choices``). An option may also carry a ``key``, a short text unique among its question's
        options that a reader may type instead of its number (a cell ``3,4``, an edge ``3,4-4,4``:
        quicker than finding it among hundreds)."""


@runtime_checkable
class ContractHooks(Protocol):
    """The optional hook through which a game publishes its part of the API contract (openapi.yaml),
    so that nothing outside ``games/<name>/`` describes its cards, regions or moves."""

    def contract(self) -> dict[str, Any]:
        """A JSON Schema document (draft 2020-12, the dialect of OpenAPI 3.1) whose ``$defs`` hold at
        least ``Command`` (every command a seat may send: a ``oneOf`` with a ``discriminator`` on
        ``type``), ``Event`` (every event as any viewer may receive it, redacted or not: the same
        kind of union), ``View`` (what ``view`` returns for a seat, the spectator or FULL) and
        ``Config`` (a normalised configuration). References stay inside the document
        (``#/$defs/<name>``); the API publishes each definition under the game's prefix. Every
        ``legal_moves`` entry, every event (redacted for any viewer) and every view must validate."""


# -- rules revisions ------------------------------------------------------------------------------
# A rules revision is a number an engine bumps with every change that alters what a log means (an
# automatic event produced differently, a move that becomes legal or illegal, a different
# consequence of an event). Every normalised configuration records the revision the game was
# created under (key ``revision``), so its first event does too, and the engine folds, decides and
# verifies a log under the revision that log recorded: an engine keeps every older revision's
# behaviour behind the number (a few branches), because refusing an old revision would make the
# archive's finished games unverifiable and unreplayable after each rules change. A log recorded
# before engines had revisions names none: it is revision 1.
REVISION = "revision"
UNREVISED = 1


def log_revision(config: Mapping[str, Any]) -> int:
    """The rules revision a recorded configuration names (``UNREVISED`` when it names none)."""
    value = config.get(REVISION, UNREVISED)
    return value if isinstance(value, int) and not isinstance(value, bool) else UNREVISED


def normalise_revision(raw: Mapping[str, Any], current: int, *, recorded: bool) -> int:
    """The revision a configuration is normalised to, for an engine whose newest is ``current``.

    A new game (``recorded=False``) is always played under ``current``: a configuration naming
    another revision is refused, because an older revision may show what a newer one hides (the
    Condottiere hand discard before RL-12). A recorded configuration (a log's, ``recorded=True``)
    keeps the revision it names, ``UNREVISED`` when it names none; a revision the engine does not
    know (above ``current``, below 1) is refused either way. Refusals are ``ConfigError`` with the
    code ``UNSUPPORTED_RULES_REVISION``."""
    if REVISION not in raw or raw[REVISION] is None:
        return UNREVISED if recorded else current
    value = raw[REVISION]
    if not isinstance(value, int) or isinstance(value, bool) or not UNREVISED <= value <= current:
        raise ConfigError(
            "UNSUPPORTED_RULES_REVISION",
            f"Rules revision {value!r} is not one this engine knows (it knows {UNREVISED} to {current}).",
        )
    if not recorded and value != current:
        raise ConfigError(
            "UNSUPPORTED_RULES_REVISION",
            f"New games are played under rules revision {current}; revision {value} is kept only to"
            " replay and verify the logs recorded under it.",
        )
    return value


@runtime_checkable
class RevisionHooks(Protocol):
    """How a game with rules revisions normalises a configuration a log recorded (reached with
    :func:`revision_hooks`; :func:`configure_recorded` falls back to ``configure`` for a game without)."""

    rules_revision: int  # the revision new games are created under

    def configure_recorded(self, config: Mapping[str, Any]) -> Config:
        """``configure`` for the configuration a log recorded (its first event's): it keeps the
        revision the configuration names (``UNREVISED`` when none) instead of the newest."""


def configure_recorded(game: Game[Any], config: Mapping[str, Any]) -> Config:
    """The normalised form of the configuration a log recorded, under the revision it names."""
    hooks = revision_hooks(game)
    return game.configure(config) if hooks is None else hooks.configure_recorded(config)


def is_recorded_form(normalised: Mapping[str, Any], recorded: Mapping[str, Any]) -> bool:
    """Whether a log's configuration is in normalised form: ``normalised`` is what
    :func:`configure_recorded` made of ``recorded``, which may leave the revision out (revision 1,
    recorded before revisions existed)."""
    if REVISION in recorded:
        return dict(normalised) == dict(recorded)
    return normalised.get(REVISION) == UNREVISED and {
        k: v for k, v in normalised.items() if k != REVISION
    } == dict(recorded)


# -- secret configuration ------------------------------------------------------------------------
# The configuration key of the seed every shuffle and die is drawn from: the server draws one (128
# bits) when the creator gives none, and the fairness commitment (``COMMITMENT``) is to its value.
SEED = "seed"


@runtime_checkable
class ConfigHooks(Protocol):
    """Optional hooks on what of a configuration is secret while a game runs (reached with
    :func:`config_hooks`; :func:`secret_config_keys` and :func:`public_config` give the defaults)."""

    # The keys of a configuration that decide hidden information (the seed, a given deal): a game
    # whose creator gave one is prearranged (its creator may know every hand), and none is shown to
    # anyone before the game is over. A key other than ``SEED`` fixes chance outcomes outright (a
    # given deck order): the fairness check calls such a game prearranged whatever its commitment
    # says, and an exchange document may leave it out (the log's first event records it).
    # Without this attribute: ``(SEED,)``.
    secret_config_keys: tuple[str, ...]

    def public_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The configuration as everybody may see it while the game runs (the game's public
        summary, the archive index). Without this hook: the configuration without its
        :func:`secret_config_keys`."""


@runtime_checkable
class FirstSeatHooks(Protocol):
    """The optional hook of events that balance who moves first (a Swiss tournament's pairing gives
    each table's first seat to the player due it): the configuration under which a given seat makes
    the game's first move. A game without it leaves its first player to its rules (drawn at random,
    say), and the platform does not call any seat the first player."""

    def first_seat_config(self, config: Mapping[str, Any], seat: int) -> dict[str, Any] | None:
        """``config`` (a raw configuration, as ``configure`` takes it, with its ``players``)
        changed so that ``seat`` starts; None when ``config`` already names who starts (the
        organiser's choice stands)."""


def first_seat_config(game: Game[Any], config: Mapping[str, Any], seat: int) -> dict[str, Any] | None:
    """``config`` made to start with ``seat`` (:meth:`FirstSeatHooks.first_seat_config`); None when
    ``game`` does not declare the hook or ``config`` already fixes its first player."""
    hooks = first_seat_hooks(game)
    return hooks.first_seat_config(config, seat) if hooks is not None else None


def secret_config_keys(game: Game[Any]) -> tuple[str, ...]:
    """The configuration keys ``game`` keeps secret while it runs (:class:`ConfigHooks`)."""
    hooks = config_hooks(game)
    return (SEED,) if hooks is None else hooks.secret_config_keys


def fixed_chance_keys(game: Game[Any]) -> tuple[str, ...]:
    """The secret configuration keys that fix chance outcomes outright (all but the seed)."""
    return tuple(key for key in secret_config_keys(game) if key != SEED)


def without_secret_keys(config: Mapping[str, Any], secret: Iterable[str]) -> dict[str, Any]:
    """``config`` without the keys ``secret`` names (what :func:`public_config` gives by default)."""
    hidden = set(secret)
    return {k: v for k, v in config.items() if k not in hidden}


def public_config(game: Game[Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` as everybody may see it while the game runs (:class:`ConfigHooks`)."""
    hooks = config_hooks(game)
    if hooks is not None:
        return hooks.public_config(config)
    return without_secret_keys(config, secret_config_keys(game))


# -- search ---------------------------------------------------------------------------------------


@runtime_checkable
class SearchHooks(Protocol):
    """Optional hooks of the searching bot (level ``expert``, ``bots/search.py``) and of the
    analysis of finished games (``replays/analysis.py``): a game with them can be searched."""

    def determinize(self, state: Any, seat: int | None, rng: Any) -> Any:
        """A complete state ``seat`` cannot tell from ``state``, drawn with ``rng`` (a
        ``random.Random``): what the seat may not see (other hands, face-down cards, the deck's
        order, the seed and so every future draw or die) is sampled from what it may see, and is
        never read from ``state``. ``seat`` None (a finished game's analysis): every card is known,
        only future chance is sampled."""

    def estimate(self, state: Any) -> list[float]:
        """Each seat's chance to win a game stopped at ``state`` (a cheap prior, summing to 1;
        exact when the game is over)."""

    def advance(self, state: Any, seat: int, command: Command) -> Any:
        """The state after ``decide(state, seat, command)``'s events (one evolve each).
        ``command`` is one of ``legal_moves(state, seat)``: a game need not check it again."""

    def playout_move(self, state: Any, seat: int, rng: Any) -> Command:
        """The move a search's playout makes for ``seat`` (one of ``legal_moves(state, seat)``,
        drawn with ``rng``): cheap, and not sillier than need be."""

    def guided_move(self, state: Any, seat: int, rng: Any) -> Command:
        """Like ``playout_move``, but imitating good play where that is cheap (the default
        playout policy of a search, ``bots.search.Budget.playout``); a game without a cheap
        policy answers its ``playout_move``."""

    def expert_candidates(self, state: Any, seat: int, moves: list[Command]) -> list[Command]:
        """The moves among ``moves`` (``seat``'s legal moves, at least one) the expert bot searches
        between, in the game's order of preference: a game whose decisions offer dozens of moves and
        that has a cheap judge of them keeps the few worth a search's budget; one that has not
        answers ``moves``. The analysis ignores it: it judges every legal move."""

    # The default budget of a finished game's analysis per decision, (iterations, playout moves,
    # playout policy: "guided" or "uniform", as ``bots.search.Budget.playout``): the game's cost
    # per move decides it (``replays.analysis.default_budget``). The policy is the analysis' own: a
    # game whose guided playouts cost more than a whole game's analysis can afford keeps them for
    # the expert bot, which spends one decision's budget at a time.
    analysis_budget: tuple[int, int, str]

    # True when a seat sees everything but the future's chance (``determinize`` samples alike for
    # every seat and for None): a search from the decider's information set is then also the
    # full-information one, and the analysis spares the second search.
    chance_only: bool


# Every optional hook protocol: a game declares one by subclassing it (see the module's docstring).
HOOK_PROTOCOLS: tuple[type, ...] = (
    ArchiveHooks,
    DecideHooks,
    SnapshotHooks,
    SeatHooks,
    ChanceHooks,
    DecisionHooks,
    RatingHooks,
    ExplorerHooks,
    WebHooks,
    OutcomeHooks,
    TextHooks,
    ContractHooks,
    RevisionHooks,
    ConfigHooks,
    FirstSeatHooks,
    SearchHooks,
)


def protocol_members(protocol: type) -> frozenset[str]:
    """The members (methods and attributes) a hook protocol declares."""
    names = {n for n, v in vars(protocol).items() if not n.startswith("_") and callable(v)}
    return frozenset(names | set(getattr(protocol, "__annotations__", {})))


HOOK_NAMES: frozenset[str] = frozenset().union(*(protocol_members(p) for p in HOOK_PROTOCOLS))

# A game's class -> the hooks it declares (classes are few and never change: no eviction needed).
_DECLARED: dict[type, frozenset[str]] = {}


def declared_hooks(game: Game[Any]) -> frozenset[str]:
    """The names of the optional hooks ``game`` declares: every member of each hook protocol its
    class subclasses."""
    cls = type(game)
    names = _DECLARED.get(cls)
    if names is None:
        mro = cls.__mro__
        names = frozenset().union(*(protocol_members(p) for p in HOOK_PROTOCOLS if p in mro))
        _DECLARED[cls] = names
    return names


# -- the typed accessors -------------------------------------------------------------------------
# The platform reaches a game's optional hooks only through these: each answers the game itself,
# typed as the protocol, when the game's class declares it (subclasses it), else None; so mypy
# checks every use of a hook against its protocol, and no hook is looked up by its name.


def _declares(game: Game[Any], protocol: type) -> bool:
    return protocol in type(game).__mro__


def archive_hooks(game: Game[Any]) -> ArchiveHooks | None:
    """``game``'s :class:`ArchiveHooks`, when it declares them."""
    return cast(ArchiveHooks, game) if _declares(game, ArchiveHooks) else None


def decide_hooks(game: Game[Any]) -> DecideHooks | None:
    """``game``'s :class:`DecideHooks`, when it declares them."""
    return cast(DecideHooks, game) if _declares(game, DecideHooks) else None


def snapshot_hooks(game: Game[Any]) -> SnapshotHooks | None:
    """``game``'s :class:`SnapshotHooks`, when it declares them."""
    return cast(SnapshotHooks, game) if _declares(game, SnapshotHooks) else None


def seat_hooks(game: Game[Any]) -> SeatHooks | None:
    """``game``'s :class:`SeatHooks`, when it declares them."""
    return cast(SeatHooks, game) if _declares(game, SeatHooks) else None


def chance_hooks(game: Game[Any]) -> ChanceHooks | None:
    """``game``'s :class:`ChanceHooks`, when it declares them."""
    return cast(ChanceHooks, game) if _declares(game, ChanceHooks) else None


def decision_hooks(game: Game[Any]) -> DecisionHooks | None:
    """``game``'s :class:`DecisionHooks`, when it declares them."""
    return cast(DecisionHooks, game) if _declares(game, DecisionHooks) else None


def rating_hooks(game: Game[Any]) -> RatingHooks | None:
    """``game``'s :class:`RatingHooks`, when it declares them."""
    return cast(RatingHooks, game) if _declares(game, RatingHooks) else None


def explorer_hooks(game: Game[Any]) -> ExplorerHooks | None:
    """``game``'s :class:`ExplorerHooks`, when it declares them."""
    return cast(ExplorerHooks, game) if _declares(game, ExplorerHooks) else None


def web_hooks(game: Game[Any]) -> WebHooks | None:
    """``game``'s :class:`WebHooks`, when it declares them."""
    return cast(WebHooks, game) if _declares(game, WebHooks) else None


def text_hooks(game: Game[Any]) -> TextHooks | None:
    """``game``'s :class:`TextHooks`, when it declares them."""
    return cast(TextHooks, game) if _declares(game, TextHooks) else None


def contract_hooks(game: Game[Any]) -> ContractHooks | None:
    """``game``'s :class:`ContractHooks`, when it declares them."""
    return cast(ContractHooks, game) if _declares(game, ContractHooks) else None


def revision_hooks(game: Game[Any]) -> RevisionHooks | None:
    """``game``'s :class:`RevisionHooks`, when it declares them."""
    return cast(RevisionHooks, game) if _declares(game, RevisionHooks) else None


def config_hooks(game: Game[Any]) -> ConfigHooks | None:
    """``game``'s :class:`ConfigHooks`, when it declares them."""
    return cast(ConfigHooks, game) if _declares(game, ConfigHooks) else None


def outcome_hooks(game: Game[Any]) -> OutcomeHooks | None:
    """``game``'s :class:`OutcomeHooks`, when it declares them."""
    return cast(OutcomeHooks, game) if _declares(game, OutcomeHooks) else None


def first_seat_hooks(game: Game[Any]) -> FirstSeatHooks | None:
    """``game``'s :class:`FirstSeatHooks`, when it declares them."""
    return cast(FirstSeatHooks, game) if _declares(game, FirstSeatHooks) else None


def search_hooks(game: Game[Any]) -> SearchHooks | None:
    """``game``'s :class:`SearchHooks`, when it declares them."""
    return cast(SearchHooks, game) if _declares(game, SearchHooks) else None


# Seeds: integers from 0 to 2**128 - 1. Past 2**53 - 1 a JSON number loses bits in many clients
# (JavaScript's), so such a seed travels as a decimal string; engines read the seed through its
# decimal text (``Random(f"{seed}/{n}")``), so both forms of one number draw alike. Every engine
# accepts what the server draws (a 128-bit decimal string), so the rule lives here, not per game.
MAX_SEED = 2**128 - 1
MAX_EXACT_JSON_INTEGER = 2**53 - 1
_DECIMAL_SEED = re.compile(r"(?:0|[1-9][0-9]{0,38})")


def normalise_seed(seed: Any, rule: str | None = None) -> int | str:
    """A seed in its one canonical form: an int up to 2**53 - 1, a decimal string above (a seed up
    to 2**53 - 1 sent as a string, or a large one as a JSON number, is accepted only in its own
    form: a string "1" is refused). ``None`` is 0. Refusals are ``ConfigError`` naming ``rule``."""
    if seed is None:
        return 0
    if isinstance(seed, str) and _DECIMAL_SEED.fullmatch(seed) and int(seed) > MAX_EXACT_JSON_INTEGER:
        seed = int(seed)  # a small seed is a JSON integer: one number, one spelling
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(
            "INVALID_SEED",
            "seed must be an integer from 0 to 2**128 - 1 (a decimal string above 2**53 - 1).",
            rule,
        )
    return seed if seed <= MAX_EXACT_JSON_INTEGER else str(seed)
