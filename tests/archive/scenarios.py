"""Complete Condottiere games with known answers, built from exact hands (deck_order) and fixed
moves through the engine (the rule tests' scenario helper). The expected numbers live in the
tests, computed by hand from the moves below."""

from __future__ import annotations

from tests.condottiere.scenario import Table

# Seat 0 takes Torino, Genova and Milano (3 adjacent regions, VIC-1) in four battles:
#   1 Torino:  0 plays m10, 1 m4, 2 passes, 3 m2              -> 10/4/0/2, seat 0 wins
#   2 Milano:  0 m6, 1 m3, 2 m1, 3 passes; 1 adds a Drummer  -> 6/6/1/0 tie, nobody wins (END-2)
#   3 Genova:  (seat 1 holds the token, END-3) 1 m4, 3 Courtesan, 0 Heroine -> 10/4/0/1, seat 0 wins;
#              seat 3's lone Courtesan takes the token (END-3)
#   4 Milano:  0 m5                                            -> 5/0/0/0, seat 0 wins: 3 adjacent
HANDS = [
    ["m10", "m6", "heroine", "m5"],
    ["m4", "m3", "drummer", "m4"],
    ["m1"],
    ["m2", "courtesan"],
]


def three_adjacent_game() -> list[dict]:
    table = Table(HANDS, players=4, first=0)
    table.place("Torino", 0)
    table.play_lines({0: ["m10"], 1: ["m4"], 3: ["m2"]}, then_pass=True)
    table.settle()
    table.place("Milano", 0)
    table.play_lines({0: ["m6"], 1: ["m3", "drummer"], 2: ["m1"]}, then_pass=True)
    table.settle()
    table.place("Genova", 1)
    table.play_lines({1: ["m4"], 3: ["courtesan"], 0: ["heroine"]}, then_pass=True)
    table.settle()
    table.place("Milano", 3)
    table.play_lines({0: ["m5"]}, then_pass=True)
    return table.log


# OPT-CAP-1: seat 1 takes Torino from seat 0.
#   1 Torino: 0 plays m10, the others pass                     -> seat 0 takes Torino
#   2 Milano: 0 m2, 1 m6                                       -> seat 1 takes Milano, gets the token
#   3 Torino (defended by seat 0): 1 m10, 0 m3                 -> seat 1 takes Torino from seat 0
CAPTURE_HANDS = [["m10", "m2", "m3"], ["m6", "m10"], [], []]


def capture_game() -> list[dict]:
    table = Table(CAPTURE_HANDS, players=4, first=0, options={"capturing": True})
    table.place("Torino", 0)
    table.play_lines({0: ["m10"]}, then_pass=True)
    table.settle()
    table.place("Milano", 0)
    table.play_lines({0: ["m2"], 1: ["m6"]}, then_pass=True)
    table.settle()
    table.place("Torino", 1)
    table.play_lines({1: ["m10"], 0: ["m3"]}, then_pass=True)
    return table.log
