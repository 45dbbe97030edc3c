"""Free commands (RIO-TRADE-1, RIO-TRADE-2, RIO-RL-27): purchases from the bank and trades between
players, which any player may issue whenever the game awaits a decision from anybody.

A trade offer names exactly what each side gives (resources, silver, character tiles; RIO-RL-27).
Listing every possible offer as a legal move would explode, so an offer is written the way
RIO-RL-69 has the battle's set-valued answers given: one item at a time. The proposer opens a draft
to one other player (``offer_open``), adds one unit of something one side gives (``offer_add``),
and sends it (``offer_send``); the other player accepts or declines. Every list stays short (the
partners, the kinds of things each side holds, send) and the draft can still express any terms.

State: ``offer`` is ``None`` or ``{"from", "to", "give", "get", "sent"}`` where ``give`` is what the
proposer gives and ``get`` what he receives, each ``{item: count}`` (an item is ``silver``, a
resource, or a character's name, count 1). The offer (or the draft) lapses when any event other than
its own drafting and answer is applied (:func:`lapses`); ``evolve`` does that, so the log needs no
lapse event and a replay cannot disagree.
"""

from __future__ import annotations

from typing import Any

from games.rio_de_la_plata.events import ev
from games.rio_de_la_plata.queries import buy_price
from games.rio_de_la_plata.state import State

Command = dict[str, Any]
Event = dict[str, Any]

MONEY_AND_GOODS = ("silver", "stone", "wood", "luxury")
FREE_COMMANDS = ("buy", "offer_open", "offer_add", "offer_send", "offer_accept", "offer_decline")
TRADE_EVENT_OF = {
    "offer_open": "offer_opened",
    "offer_add": "offer_added",
    "offer_send": "offer_sent",
    "offer_accept": "offer_accepted",
    "offer_decline": "offer_declined",
}
#: the events that do not make an open offer lapse (its own drafting; the answers close it anyway)
KEEPS_OFFER = frozenset(("offer_added", "offer_sent", "offer_accepted", "offer_declined", "offer_opened"))


def offer_of(s: State) -> dict[str, Any] | None:
    return s.get("offer")


def holdings(s: State, seat: int, item: str) -> int:
    """How many of ``item`` the seat holds: silver or a resource count, or 1 for an owned character."""
    if item in MONEY_AND_GOODS:
        return int(s["p"][seat][item])
    return int(s["chars"].get(item, {}).get("owner") == seat)


def tradable_items(s: State, seat: int) -> list[str]:
    """Everything the seat could give: silver, resources and the characters he holds (RIO-TRADE-1,
    RIO-CHAR-6). Characters placed on in phase A but not yet paid for are still the bank's."""
    items = [item for item in MONEY_AND_GOODS if s["p"][seat][item] > 0]
    items += sorted(name for name, ch in s["chars"].items() if ch["owner"] == seat)
    return items


def _room(s: State, offer: dict[str, Any], side: str, item: str) -> bool:
    giver = offer["from"] if side == "give" else offer["to"]
    return holdings(s, giver, item) > offer[side].get(item, 0)


def can_accept(s: State, offer: dict[str, Any]) -> bool:
    """RIO-RL-27: an offer can be accepted only while both sides still hold what they give."""
    for side, giver in (("give", offer["from"]), ("get", offer["to"])):
        for item, count in offer[side].items():
            if holdings(s, giver, item) < count:
                return False
    return True


def free_moves(s: State, seat: int) -> list[Command]:
    """The free commands open to ``seat`` now (the caller checks that the game awaits somebody)."""
    moves: list[Command] = []
    if s["p"][seat]["silver"] >= buy_price(s, seat):  # RIO-TRADE-2, RIO-TRADE-3: stone and wood only
        moves += [{"type": "buy", "good": good} for good in s.board.buyable]
    offer = offer_of(s)
    if offer is not None and offer["from"] == seat and not offer["sent"]:
        for side in ("give", "get"):
            giver = seat if side == "give" else offer["to"]
            for item in tradable_items(s, giver):
                if _room(s, offer, side, item):
                    moves.append({"type": "offer_add", "side": side, "item": item})
        if offer["give"] or offer["get"]:
            moves.append({"type": "offer_send"})
    elif offer is not None and offer["sent"] and offer["to"] == seat:
        if can_accept(s, offer):
            moves.append({"type": "offer_accept"})
        moves.append({"type": "offer_decline"})
    # a new offer (which makes the open one lapse) is always possible, so no seat is ever left
    # without a move while the game awaits anybody
    moves += [{"type": "offer_open", "to": other} for other in range(s["n"]) if other != seat]
    return moves


def trade_event(s: State, seat: int, kind: str, command: Command) -> Event:
    return ev(TRADE_EVENT_OF[kind], seat=seat, **command)


def _offer_opened(s: State, e: Event) -> None:
    s["offer"] = {"from": e["seat"], "to": e["to"], "give": {}, "get": {}, "sent": False}


def _offer_added(s: State, e: Event) -> None:
    side = s["offer"][e["side"]]
    side[e["item"]] = side.get(e["item"], 0) + 1


def _offer_sent(s: State, e: Event) -> None:
    s["offer"]["sent"] = True


def _move_item(s: State, giver: int, taker: int, item: str, count: int) -> None:
    if item in MONEY_AND_GOODS:
        s["p"][giver][item] -= count
        s["p"][taker][item] += count
    else:  # RIO-RL-22: no VP check; its benefits apply from phase B of the next round
        s["chars"][item] = {"owner": taker, "from": s["year"] + 1}


def _offer_accepted(s: State, e: Event) -> None:
    """RIO-TRADE-1: both sides give what the offer names, at once."""
    offer = s["offer"]
    for item, count in offer["give"].items():
        _move_item(s, offer["from"], offer["to"], item, count)
    for item, count in offer["get"].items():
        _move_item(s, offer["to"], offer["from"], item, count)
    s["offer"] = None


def _offer_declined(s: State, e: Event) -> None:
    s["offer"] = None


TRADE_HANDLERS = {
    "offer_opened": _offer_opened,
    "offer_added": _offer_added,
    "offer_sent": _offer_sent,
    "offer_accepted": _offer_accepted,
    "offer_declined": _offer_declined,
}


def lapses(kind: str) -> bool:
    """RIO-RL-27: an open offer lapses when any other command is applied. Automatic events only ever
    follow a command, which has already made it lapse."""
    return kind not in KEEPS_OFFER
