"""What the Condottiere heuristic bot (:mod:`games.condottiere.bots`) knows of a game, from its seat
view: the map as a graph and the victory thresholds (how far a set of regions is from a victory),
what each region is worth to each seat (:class:`Position`), and the battle lines as far as it can
see them, which it plays forward to score a card (:class:`Battle`, STR-1, STR-2 and the card rules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.condottiere.board import ADJACENT, MERCENARY, REGIONS
from games.condottiere.queries import card_strength

# Two of the bot's tuning constants (bots.py has the others and how they were chosen): they are
# the model's, the extra worth of a winning region and the guess at a face-down card.
WIN_BONUS = 3.0  # extra progress units for a region that wins the game at once
HIDDEN_CARD_ESTIMATE = 4.0  # an opponent's face-down card (OPT-HID-4), unknown

# The engine's map (MAP-1) as region name -> neighbour names, for the bot's graph searches.
ADJACENCY: dict[str, frozenset[str]] = {
    name: frozenset(REGIONS[j] for j in range(len(REGIONS)) if (ADJACENT[i] >> j) & 1)
    for i, name in enumerate(REGIONS)
}

MERCENARY_STRENGTH: dict[str, int] = dict(MERCENARY)
# Cards that may lie face down under OPT-HID-1.
HIDDEN_KINDS = set(MERCENARY_STRENGTH) | {"drummer", "heroine", "courtesan"}


def _printed(card: str | None) -> int:
    return MERCENARY_STRENGTH.get(card or "", 0)


def largest_group(regions: set[str]) -> int:
    """Size of the largest connected group of ``regions`` (MAP-2)."""
    best = 0
    seen: set[str] = set()
    for start in regions:
        if start in seen:
            continue
        size = 0
        stack = [start]
        seen.add(start)
        while stack:
            region = stack.pop()
            size += 1
            for neighbour in ADJACENCY.get(region, ()):
                if neighbour in regions and neighbour not in seen:
                    seen.add(neighbour)
                    stack.append(neighbour)
        best = max(best, size)
    return best


@dataclass(frozen=True)
class Thresholds:
    adjacent: int
    total: int | None  # classic: no total-count victory (CL-2)

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Thresholds:
        players = config.get("players", 4)
        options = config.get("options") or {}
        small = players <= 3
        adjacent = (4 if small else 3) + (1 if options.get("bigger_kingdoms") else 0)
        if config.get("ruleset") == "classic":
            return cls(adjacent, None)
        return cls(adjacent, 6 if small else 5)

    def progress(self, regions: set[str]) -> float:
        """How far ``regions`` are towards a victory: 1.0 or more is a win (VIC-1, VIC-2, CL-2)."""
        value = largest_group(regions) / self.adjacent
        if self.total:
            value = max(value, len(regions) / self.total)
        return value


class Position:
    """The map as a seat sees it: who owns what, and what each region is worth to whom."""

    def __init__(self, view: Mapping[str, Any]):
        self.view = view
        self.thresholds = Thresholds.of(view.get("config") or {})
        self.owners: dict[str, int | None] = dict(view.get("regions") or {})
        self.seats = [p["seat"] for p in view.get("players", [])]
        self.owned: dict[int, set[str]] = {seat: set() for seat in self.seats}
        for region, owner in self.owners.items():
            if owner is not None and owner in self.owned:
                self.owned[owner].add(region)
        self._cache: dict[tuple[int, str], float] = {}

    def value(self, seat: int, region: str) -> float:
        """Progress ``seat`` gains by winning ``region`` (taking it from its owner if needed), or,
        when ``seat`` owns it, the progress it would lose. Includes the instant-win bonus."""
        key = (seat, region)
        if key not in self._cache:
            mine = self.owned.get(seat, set())
            with_it = mine | {region}
            without_it = mine - {region}
            after = self.thresholds.progress(with_it)
            # Convex in progress: a first region is worth little, the one before a victory a lot.
            gain = min(after, 1.0) ** 2 - min(self.thresholds.progress(without_it), 1.0) ** 2
            if after >= 1.0:
                gain += WIN_BONUS
            # A region with free neighbours can grow into a group later; a small tie-breaker.
            free = sum(1 for n in ADJACENCY.get(region, ()) if self.owners.get(n) is None)
            own_neighbours = sum(1 for n in ADJACENCY.get(region, ()) if n in mine)
            gain += 0.02 * free + 0.03 * own_neighbours + 0.08
            self._cache[key] = gain
        return self._cache[key]

    def threat(self, region: str, me: int, among: Sequence[int] | None = None) -> tuple[float, int | None]:
        """The largest value of ``region`` for an opponent (in ``among``), and that opponent."""
        best, who = 0.0, None
        for seat in among if among is not None else self.seats:
            if seat == me:
                continue
            value = self.value(seat, region)
            if value > best:
                best, who = value, seat
        return best, who


@dataclass
class Slot:
    card: str | None  # None: an opponent's face-down card (unknown)
    face_down: bool = False


@dataclass
class Battle:
    lines: dict[int, list[Slot]]
    passed: dict[int, bool]
    hand_sizes: dict[int, int]
    me: int
    defender: int | None
    over: bool = False  # Surrender, or a classic Bishop, ended it
    no_victor: bool = False  # classic Bishop (CL-3)
    hand: list[str] = field(default_factory=list)

    def copy(self) -> Battle:
        return Battle(
            lines={s: [Slot(x.card, x.face_down) for x in line] for s, line in self.lines.items()},
            passed=dict(self.passed),
            hand_sizes=dict(self.hand_sizes),
            me=self.me,
            defender=self.defender,
            over=self.over,
            no_victor=self.no_victor,
            hand=list(self.hand),
        )

    def _in_play(self, card: str) -> bool:
        return any(slot.card == card for line in self.lines.values() for slot in line)

    def highest_mercenary(self) -> int:
        return max((_printed(slot.card) for line in self.lines.values() for slot in line), default=0)

    def strength(self, seat: int) -> float:
        """Strength of ``seat``'s line as far as known; an unknown face-down card is estimated."""
        winter = self._in_play("winter")
        spring = self._in_play("spring")
        highest = self.highest_mercenary()
        line = self.lines.get(seat, [])
        drummer = any(slot.card == "drummer" for slot in line)
        total = 0.0
        for slot in line:
            card = slot.card
            if card is None:
                total += 2.0 if winter else HIDDEN_CARD_ESTIMATE
            else:
                total += card_strength(
                    card, winter=winter, spring=spring, drummer=drummer, highest_mercenary=highest
                )
        return total

    def play(self, command: Mapping[str, Any], ruleset: str, hidden: bool) -> Battle:
        """The battle after ``self.me`` plays ``command`` (a ``play`` command)."""
        after = self.copy()
        card = command["card"]
        me = after.me
        after.hand.remove(card)
        after.hand_sizes[me] = after.hand_sizes.get(me, 0) - 1
        line = after.lines.setdefault(me, [])
        if card == "winter":
            after._discard(lambda slot: slot.card == "spring")
            line.append(Slot("winter"))
        elif card == "spring":
            after._discard(lambda slot: slot.card == "winter")
            line.append(Slot("spring"))
        elif card == "bishop":
            if ruleset == "classic":
                after.over = after.no_victor = True
            else:
                highest = max(
                    (_printed(s.card) for line in after.lines.values() for s in line if not s.face_down),
                    default=0,
                )
                if highest:
                    after._discard(lambda slot: not slot.face_down and _printed(slot.card) == highest)
        elif card == "scarecrow":
            take_back = command.get("take_back")
            if take_back:
                for index, slot in enumerate(line):
                    if slot.card == take_back and not slot.face_down:
                        del line[index]
                        break
                after.hand.append(take_back)
                after.hand_sizes[me] += 1
        elif card == "surrender":
            after.over = True
        else:
            line.append(Slot(card, face_down=hidden and card in HIDDEN_KINDS))
        return after

    def _discard(self, predicate) -> None:
        for line in self.lines.values():
            line[:] = [slot for slot in line if not predicate(slot)]

    def marginal(self, card: str) -> float:
        """What playing ``card`` next would add to the bot's own strength now."""
        if card not in HIDDEN_KINDS and card not in ("winter", "spring"):
            return 0.0
        me = self.me
        before = self.strength(me) - max((self.strength(s) for s in self.lines if s != me), default=0)
        trial = self.copy()
        trial.hand.append(card)  # play() removes it again
        trial = trial.play({"card": card}, "2006", False)
        after = trial.strength(me) - max((trial.strength(s) for s in trial.lines if s != me), default=0)
        return after - before
