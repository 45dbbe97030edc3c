"""Build Condottiere games with exact hands, through the engine's public interface only.

Dealing contract (docs/condottiere-protocol.md, ``deck_order``): cards are taken from the top of
the deck (index 0 first), seat 0 first, each seat its whole allotment as one block, so with a
10-card deal seat ``s`` receives ``deck_order[10*s:10*s+10]``; the rest of the deck follows.

Nothing here looks inside the engine's state: everything goes through ``decide``, ``evolve``,
``view``, ``legal_moves`` and friends, so the tests stay valid whatever the internals.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from games import get_game
from games.base import FULL, SPECTATOR, CommandError, fold
from tests.condottiere.spec import (  # noqa: F401  (re-exported for the tests)
    BORDERS,
    DECK_2006,
    DECK_CLASSIC,
    DECKS,
    MERCENARIES,
    PRINTED,
    REGIONS,
    largest_connected,
)

GAME = get_game("condottiere")


def deal_size(ruleset: str = "2006", options: Mapping[str, Any] | None = None) -> int:
    return 7 if (options or {}).get("draw_after_battle") else 10


# Order in which spare cards fill unspecified hand slots and the rest of the deck: plain
# mercenaries first so that filler cards trigger no special effect unless a test asks for one.
_FILL_ORDER = (
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m10",
    "heroine",
    "surrender",
    "courtesan",
    "drummer",
    "scarecrow",
    "bishop",
    "winter",
    "spring",
)


def build_deck(
    hands: Sequence[Sequence[str]],
    ruleset: str = "2006",
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    deck_next: Sequence[str] = (),
    fill_hands: bool = True,
) -> list[str]:
    """A valid full deck order giving ``hands[s]`` to seat s, then ``deck_next`` on top of the rest.

    Hands shorter than the deal are completed from the spare cards (mercenaries first) unless
    ``fill_hands`` is false, in which case every hand must be complete.
    """
    players = players or len(hands)
    size = deal_size(ruleset, options)
    pool = Counter(DECKS[ruleset])
    wanted = Counter()
    for hand in hands:
        wanted.update(hand)
    wanted.update(deck_next)
    for card, count in wanted.items():
        if pool[card] < count:
            raise ValueError(f"scenario wants {count} x {card}, the {ruleset} deck has {pool[card]}")
    pool -= wanted
    spare = [card for card in _FILL_ORDER for _ in range(pool[card])]
    deck: list[str] = []
    for seat in range(players):
        hand = list(hands[seat]) if seat < len(hands) else []
        if len(hand) > size:
            raise ValueError(f"seat {seat}: {len(hand)} cards, the deal is {size}")
        if len(hand) < size:
            if not fill_hands:
                raise ValueError(f"seat {seat}: {len(hand)} cards, the deal is {size}")
            hand += [spare.pop(0) for _ in range(size - len(hand))]
        deck += hand
    deck += list(deck_next) + spare
    assert Counter(deck) == Counter(DECKS[ruleset])
    return deck


def make_config(
    players: int,
    ruleset: str = "2006",
    options: Mapping[str, Any] | None = None,
    seed: int = 7,
    first: int | None = 0,
    deck_order: Sequence[str] | None = None,
) -> dict[str, Any]:
    raw: dict[str, Any] = {"ruleset": ruleset, "players": players, "seed": seed, "first_condottiere": first}
    if options:
        raw["options"] = dict(options)
    if deck_order is not None:
        raw["deck_order"] = list(deck_order)
    return GAME.configure(raw)


def play(state: Any, seat: int, command: Mapping[str, Any]) -> tuple[list[dict], Any]:
    """Decide then fold: (the events ``command`` causes, the new state)."""
    events = GAME.decide(state, seat, dict(command))
    return events, fold(GAME, events, state)


def line_strengths(view: Mapping[str, Any]) -> list[int]:
    """BAT-8: the strength every view shows, per seat."""
    return [player["strength"] for player in view["players"]]


def normalise_per_seat(value: Any, players: int) -> list[Any]:
    """Events may give per-seat data as a list or as a {seat: value} mapping."""
    if isinstance(value, Mapping):
        return [value.get(seat, value.get(str(seat))) for seat in range(players)]
    return list(value)


def state_json(state: Any) -> str:
    return json.dumps(GAME.state_to_json(state), sort_keys=True)


class Table:
    """One game built from exact hands, with the helpers the rule tests need."""

    def __init__(
        self,
        hands: Sequence[Sequence[str]] = (),
        players: int | None = None,
        ruleset: str = "2006",
        options: Mapping[str, Any] | None = None,
        first: int | None = 0,
        deck_next: Sequence[str] = (),
        seed: int = 7,
        fill_hands: bool = True,
        auto_keep: bool = True,
    ):
        # RL-12: every seat holding cards is asked at the hand discard; like a client, the table
        # answers *keep* for a seat whose only legal answer it is, unless a test asks otherwise.
        self.auto_keep = auto_keep
        self.players = players or len(hands)
        self.ruleset = ruleset
        self.options = dict(options or {})
        self.deck_order = build_deck(hands, ruleset, self.players, self.options, deck_next, fill_hands)
        self.config = make_config(self.players, ruleset, self.options, seed, first, self.deck_order)
        self.log: list[dict] = list(GAME.start(self.config))
        self.state = fold(GAME, self.log)

    # -- acting ------------------------------------------------------------------------------
    def do(self, seat: int, command: Mapping[str, Any]) -> list[dict]:
        events, self.state = play(self.state, seat, command)
        self.log += events
        if self.auto_keep:
            events += self.keep_where_forced()
        return events

    def keep_where_forced(self) -> list[dict]:
        """Answer *keep* for every awaited seat whose only legal hand-discard answer it is (RL-12)."""
        keep = {"type": "discard_hand", "discard": False}
        events: list[dict] = []
        while self.phase == "hand_discard":
            forced = [seat for seat in self.awaiting if self.legal(seat) == [keep]]
            if not forced:
                break
            more, self.state = play(self.state, forced[0], keep)
            self.log += more
            events += more
        return events

    def refuse(self, seat: int, command: Mapping[str, Any]) -> CommandError:
        """Assert the command is refused and that the refusal changed nothing."""
        before = state_json(self.state)
        snapshot = copy.deepcopy(command)
        with pytest.raises(CommandError) as info:
            GAME.decide(self.state, seat, dict(command))
        assert state_json(self.state) == before, "a refused command changed the state"
        assert command == snapshot
        return info.value

    def refuse_code(self, seat: int, command: Mapping[str, Any]) -> str:
        return self.refuse(seat, command).code

    def place(self, region: str, seat: int | None = None) -> list[dict]:
        seat = self.holder if seat is None else seat
        return self.do(seat, {"type": "place_token", "region": region})

    def card(self, seat: int, card: str, **extra: Any) -> list[dict]:
        return self.do(seat, {"type": "play", "card": card, **extra})

    def pass_(self, seat: int, **extra: Any) -> list[dict]:
        return self.do(seat, {"type": "pass", **extra})

    def play_lines(self, lines: Mapping[int, Sequence[Any]], then_pass: bool = False) -> list[dict]:
        """Play the given cards, seat by seat in turn order; a seat with nothing left to play
        passes only when every seat is done (or at once, when ``then_pass``).

        Items are card codes or full play commands (dicts)."""
        todo = {seat: list(cards) for seat, cards in lines.items()}
        events: list[dict] = []
        guard = 0
        while any(todo.values()):
            guard += 1
            assert guard < 200, "play_lines does not progress"
            seat = self.turn
            assert seat is not None, f"no turn while cards remain to play: {todo}"
            if todo.get(seat):
                item = todo[seat].pop(0)
                command = item if isinstance(item, dict) else {"type": "play", "card": item}
                events += self.do(seat, command)
            else:
                events += self.pass_(seat)
        if then_pass:
            events += self.pass_all()
        return events

    def pass_all(self) -> list[dict]:
        """Everyone whose turn comes passes until the battle ends."""
        events: list[dict] = []
        guard = 0
        while (
            self.phase == "battle"
            and self.turn is not None
            and not any(e["type"] == "battle_ended" for e in events)
        ):
            guard += 1
            assert guard < 50
            events += self.pass_(self.turn)
        return events

    def win_battle(self, region: str, winner: int, card: str | None = None) -> list[dict]:
        """The holder places the token on ``region``; ``winner`` plays one mercenary, everyone
        else passes: ``winner`` takes the region (unless something else intervenes)."""
        events = self.place(region)
        events += self.settle()
        played = False
        guard = 0
        # stop at this battle's end: a final battle (VIC-4) may follow at once
        while (
            self.phase == "battle"
            and self.turn is not None
            and not any(e["type"] == "battle_ended" for e in events)
        ):
            guard += 1
            assert guard < 50
            seat = self.turn
            if seat == winner and not played:
                chosen = card or next(c for c in self.hand(seat) if c in MERCENARIES)
                events += self.card(seat, chosen)
                played = True
            else:
                events += self.pass_(seat)
        return events

    def tie_battle(self, region: str) -> list[dict]:
        """Everyone passes at once: a 0-0 tie (END-2)."""
        events = self.place(region)
        events += self.settle()
        return events + self.pass_all()

    def settle(self) -> list[dict]:
        """Answer the decisions between battles the way that changes least: keep hands (END-7),
        keep nothing at a round's end (RND-2)."""
        events: list[dict] = []
        guard = 0
        while self.phase in ("hand_discard", "keep_cards"):
            guard += 1
            assert guard < 20
            seat = self.awaiting[0]
            if self.phase == "hand_discard":
                events += self.do(seat, {"type": "discard_hand", "discard": False})
            else:
                events += self.do(seat, {"type": "keep_cards", "cards": []})
        return events

    def answer_hand_discards(self, discard: bool = False) -> list[dict]:
        events: list[dict] = []
        while self.phase == "hand_discard":
            seat = self.awaiting[0]
            events += self.do(seat, {"type": "discard_hand", "discard": discard})
        return events

    # -- looking -------------------------------------------------------------------------------
    def view(self, viewer: Any = FULL) -> dict[str, Any]:
        return GAME.view(self.state, viewer)

    def spectator(self) -> dict[str, Any]:
        return GAME.view(self.state, SPECTATOR)

    @property
    def phase(self) -> str:
        return self.view()["phase"]

    @property
    def turn(self) -> int | None:
        return self.view()["turn"]

    @property
    def holder(self) -> int:
        return self.view()["condottiere"]

    @property
    def awaiting(self) -> list[int]:
        return list(GAME.awaiting(self.state))

    def hand(self, seat: int) -> list[str]:
        return list(GAME.view(self.state, seat)["hand"])

    def hand_size(self, seat: int) -> int:
        return self.view()["players"][seat]["hand_size"]

    def strengths(self, viewer: Any = SPECTATOR) -> list[int]:
        return line_strengths(GAME.view(self.state, viewer))

    def line(self, seat: int, viewer: Any = FULL) -> list[str | None]:
        return [entry["card"] for entry in GAME.view(self.state, viewer)["players"][seat]["line"]]

    def regions_of(self, seat: int) -> list[str]:
        return sorted(r for r, owner in self.view()["regions"].items() if owner == seat)

    def owner(self, region: str) -> int | None:
        return self.view()["regions"][region]

    def legal(self, seat: int) -> list[dict]:
        return list(GAME.legal_moves(self.state, seat))

    def events_of(self, kind: str, events: Iterable[dict] | None = None) -> list[dict]:
        return [e for e in (self.log if events is None else events) if e["type"] == kind]

    def last(self, kind: str) -> dict:
        found = self.events_of(kind)
        assert found, f"no {kind} event in the log"
        return found[-1]

    def total_cards(self) -> int:
        """Every card of the game, counted from the FULL view (deck, discards, hands, lines)."""
        return count_cards(self.view())


def count_cards(view: Mapping[str, Any]) -> int:
    return (
        view["deck_size"]
        + view["discard_size"]
        + sum(p["hand_size"] + len(p["line"]) for p in view["players"])
    )


def battle_end(events: Iterable[dict]) -> dict:
    ended = [e for e in events if e["type"] == "battle_ended"]
    assert ended, "the battle did not end"
    return ended[-1]


def conquer(table: Table, assignment, last_winner: int | None = None, skip: str | None = None):
    """Each seat wins its regions, one battle each; ``last_winner`` wins the last battle."""
    order = [
        (region, seat) for seat, regions in enumerate(assignment) for region in regions if region != skip
    ]
    if last_winner is not None:
        order.sort(key=lambda item: item[1] == last_winner)
    for region, seat in order:
        assert not GAME.is_over(table.state), f"over before {region}"
        table.win_battle(region, seat)


def three_regions_then_round_end(ruleset: str) -> Table:
    """2 players: seat 0 wins three scattered regions, then seat 1 plays out his whole hand and
    wins a fourth: only seat 0 (7 cards) holds cards: the round ends."""
    table = Table([], players=2, ruleset=ruleset)
    for region in ("Torino", "Siena", "Ancona"):
        table.win_battle(region, 0)
    table.place("Venezia")
    table.pass_(0)
    for _ in range(10):
        table.card(1, table.hand(1)[0])
    assert table.owner("Venezia") == 1
    assert table.hand_size(0) == 7
    return table
