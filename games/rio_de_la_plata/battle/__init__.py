"""The battle of section 16 as a procedure of single commands (RIO-RL-51 .. RIO-RL-70).

Stages of ``state["battle"]["stage"]``: ``start`` (automatic: roles, groups and the number of
attackers), ``place`` (the attacker puts his attackers on entry edges one at a time), ``cannon`` and
``cannon_remove`` (the firing player names k, the dice decide, he removes k attackers one at a time),
``defend`` (each defender in turn order places free, then recruited, people and passes), ``split``
(first battle round: the attacker takes groups of 1..3 off each stack), ``move`` (battle rounds: each
side in turn moves groups one at a time and passes), ``over`` (automatic: the fighting ends),
``withdraw`` (each player in turn order takes people back and passes) and ``end`` (automatic:
RIO-RL-51, the enemy marker retreats).

Groups live in ``battle["groups"]`` (id -> group) while the fighting lasts: ``side`` ``a``/``d``,
``stack`` (owners, top first; attackers are ``-1``), ``at`` (a cell key) or ``edge`` (outside the
city), ``moved`` (this battle round), ``fought`` (the last battle round it fought in), ``can_bonus``
(a bonus move is open to it now) and ``bonused`` (it made its bonus move this battle round).

The modules, each importing only those listed before it: ``groups`` (who is who, where the groups
are), ``rounds`` (the battle rounds' turns), ``opening`` (the stages ``start`` .. ``split``),
``fighting`` (movement and combat), ``manoeuvres`` (joins and bonus moves, each a procedure of
single commands), ``closing`` (``over`` .. ``end``), ``flow`` (the automatic events and the handler
of each event), ``choices`` (whom the battle awaits, the legal moves, a command's event). This module
re-exports what the rest of the engine uses.
"""

from __future__ import annotations

from games.rio_de_la_plata.battle.choices import BATTLE_EVENT_OF, battle_awaiting, battle_event, battle_moves
from games.rio_de_la_plata.battle.flow import BATTLE_HANDLERS, next_battle_event
from games.rio_de_la_plata.battle.opening import cannon_rolled

__all__ = [
    "BATTLE_EVENT_OF",
    "BATTLE_HANDLERS",
    "battle_awaiting",
    "battle_event",
    "battle_moves",
    "cannon_rolled",
    "next_battle_event",
]
