"""The battle as a state machine: the automatic event of each automatic stage, and the handler of
each battle event (the stages' own modules define them; ``pass`` ends one's part of whichever stage
awaits it)."""

from __future__ import annotations

from games.rio_de_la_plata.battle.closing import CLOSING_HANDLERS, retreat_index
from games.rio_de_la_plata.battle.groups import Event, battle_of
from games.rio_de_la_plata.battle.manoeuvres import MANOEUVRE_HANDLERS
from games.rio_de_la_plata.battle.opening import (
    OPENING_HANDLERS,
    attacker_count,
    choose_attacker,
    reset_defender,
)
from games.rio_de_la_plata.battle.rounds import skip_idle_movers
from games.rio_de_la_plata.events import ev
from games.rio_de_la_plata.queries import draw
from games.rio_de_la_plata.state import State


def next_battle_event(s: State) -> Event | None:
    battle = battle_of(s)
    stage = battle["stage"]
    if stage == "start":
        attacker, reset = choose_attacker(s)
        count = attacker_count(s, battle["enemy"], attacker, reset)
        return ev(
            "battle_started",
            enemy=battle["enemy"],
            attacker=attacker,
            marks_reset=reset,
            attackers=count["attackers"],
            people=count["people"],
        )
    if stage == "cannon_roll":
        rng = draw(s)
        dice, sides = s.board.dice
        return ev("dice_rolled", purpose="cannon", dice=[rng.randint(1, sides) for _ in range(dice)])
    if stage == "over":
        return ev("fighting_ended")
    if stage == "end":
        return ev("battle_ended", enemy=battle["enemy"], marker=retreat_index(s, battle["enemy"]))
    return None


def _passed(s: State, e: Event) -> None:
    battle = battle_of(s)
    if battle["stage"] == "defend":
        battle["di"] += 1
        reset_defender(s)
    elif battle["stage"] == "move":
        battle["mover"] += 1
        skip_idle_movers(s)
    elif battle["stage"] == "withdraw":
        battle["withdrawer"] += 1
        if battle["withdrawer"] >= s["n"]:
            battle["stage"] = "end"


BATTLE_HANDLERS = {**OPENING_HANDLERS, **MANOEUVRE_HANDLERS, "passed": _passed, **CLOSING_HANDLERS}
