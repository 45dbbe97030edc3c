"""One short English sentence per event (public information only: nothing in Rio is hidden but
the seed)."""

from __future__ import annotations

from typing import Any


def _cell(value: Any) -> str:
    return f"({value[0]}, {value[1]})" if isinstance(value, list) else str(value)


def _edge(edge: Any) -> str:
    """A section's or an attacker's place on the city's lines in words: "between (10, 9) and (10, 10)"."""
    a, sep, b = str(edge).partition("-")
    if not sep:
        return f"at {edge}"
    return f"between ({a.replace(',', ', ')}) and ({b.replace(',', ', ')})"


def _section_kind(before: Any) -> str:
    try:
        return f"{before['due'][0]['what']} section"
    except (KeyError, IndexError, TypeError):
        return "section"


def _terms(offer: dict[str, Any]) -> str:
    def side(items: dict[str, int]) -> str:
        return ", ".join(f"{n} {item.replace('_', ' ')}" for item, n in sorted(items.items())) or "nothing"

    return f"gives {side(offer.get('give') or {})} for {side(offer.get('get') or {})}"


def _taken_back(event: dict[str, Any]) -> str:
    """The decision an undo takes back, in words: "the placement on cell (3, 4)"."""
    if event.get("type") == "built":
        return f"the {event.get('building')} built on {_cell(event.get('cell'))}"
    space = event.get("space")
    if space == "cell":
        what = "displacement" if event.get("displace") else "placement"
        return f"the {what} on cell {_cell(event.get('cell'))}"
    if space == "major":
        return f"the placement on the {event.get('building')} (space {int(event.get('index') or 0) + 1})"
    if space == "character":
        return f"the placement on the {str(event.get('character')).replace('_', ' ')}"
    return f"the placement on the {space}"


def annotate(before: Any, event: dict[str, Any], after: Any) -> str:
    kind = event.get("type")
    seat = event.get("seat")
    who = f"Seat {seat}"
    if kind == "game_started":
        return f"A game of Rio de la Plata for {event['config']['players']} players begins."
    if kind == "order_drawn":
        return "Turn order drawn: " + ", ".join(f"seat {s}" for s in event["order"]) + "."
    if kind == "placed":
        space = event["space"]
        if space == "cell":
            verb = "displaces the people on" if event.get("displace") else "places a person on"
            return f"{who} {verb} cell {_cell(event['cell'])}."
        if space == "major":
            return f"{who} places a person on the {event['building']} (space {event['index'] + 1})."
        if space == "character":
            return f"{who} places a person on the {event['character'].replace('_', ' ')}."
        return f"{who} places on the {space}."
    if kind == "bought":
        return f"{who} buys 1 {event['good']} for {event['price']} silver."
    if kind == "offer_opened":
        return f"{who} starts writing a trade offer to seat {event['to']}."
    if kind == "offer_added":
        what = event["item"].replace("_", " ")
        return f"{who} adds 1 {what} to what {'he gives' if event['side'] == 'give' else 'he asks for'}."
    if kind == "offer_sent":
        offer = (before or {}).get("offer") or {}
        return f"{who} offers a trade to seat {offer.get('to')}: {_terms(offer)}."
    if kind == "offer_accepted":
        return f"{who} accepts the trade offer."
    if kind == "offer_declined":
        return f"{who} declines the trade offer."
    if kind == "launched":
        return f"{who} orders the ship's launch."
    if kind == "turn_ended":
        return f"{who} ends the turn."
    if kind == "collected":
        return f"{who} collects from the {event['space']}."
    if kind == "claimed":
        ok = after is not None and after["chars"][event["character"]]["owner"] == seat
        name = event["character"].replace("_", " ")
        return f"{who} {'takes' if ok else 'fails to take, and pays the penalty for,'} the {name}."
    if kind == "crafted":
        if event["give"] is None:
            return f"{who} declines the craftsmen's exchange."
        return f"{who} exchanges 1 {event['give']} for 1 luxury."
    if kind == "loaded":
        return f"{who} loads 1 {event['good']} on the ship."
    if kind == "built":
        return f"{who} builds a {event['building']} on {_cell(event['cell'])}."
    if kind == "undone":
        return f"{who} takes back {_taken_back(dict(event.get('event') or {}))}."
    if kind == "used":
        return f"{who} uses the building on {_cell(event['cell'])}."
    if kind == "building_completed":
        plural = event["building"] in ("walls", "roads")  # the names of a plural thing
        verb, it = ("are", "them") if plural else ("is", "it")
        return f"The {event['building']} {verb} complete; seat {event['completer']} completed {it}."
    if kind == "tile_placed":
        return f"{who} puts the tile on {_cell(event['cell'])}."
    if kind == "section_placed":
        return f"{who} places a {_section_kind(before)} {_edge(event['edge'])}."
    if kind == "resource_chosen":
        return f"{who} takes 1 {event['good']}."
    if kind == "actions_started":
        return "Phase B: actions."
    if kind == "action_turn_started":
        return f"Seat {event['seat']}'s action turn."
    if kind == "ship_sailed":
        return "The ship sails" + (" with a full hold." if event["full"] else ".")
    if kind == "launch_refunded":
        return "The ship is empty and does not sail; the launch fee is refunded."
    if kind == "ship_returned":
        return "The ship returns and pays for its goods."
    if kind == "phase_c_started":
        return "Phase C: the war check."
    if kind == "dice_rolled":
        return f"Dice ({event['purpose']}): {' + '.join(map(str, event['dice']))} = {sum(event['dice'])}."
    if kind == "round_ended":
        return f"The year {event['year']} begins."
    if kind == "game_ended":
        return "The game ends; final scoring."
    if kind == "battle_started":
        return (
            f"Battle against the {event['enemy']}: seat {event['attacker']} leads "
            f"{event['attackers']} attackers."
        )
    if kind == "attacker_placed":
        return f"{who} places an attacker {_edge(event['edge'])}."
    if kind == "fired":
        k = event["k"]
        return f"{who} fires the cannons at {k} attacker{'' if k == 1 else 's'}."
    if kind == "attacker_removed":
        return f"{who} removes the attacker {_edge(event['edge'])}."
    if kind == "defended":
        return f"{who} puts a defender on {_cell(event['cell'])}."
    if kind == "split":
        return f"{who} takes a group of {event['size']} off the stack {_edge(event['edge'])}."
    if kind == "moved":
        return f"{who} moves group {event['group']} to {_cell(event['to'])}."
    if kind == "across_chosen":
        return f"{who} chooses which person goes across (position {event['person'] + 1} of the pair)."
    if kind == "commander_chosen":
        return f"{who} names seat {event['commander']} to command the new group."
    if kind == "consented":
        return f"{who} {'agrees' if event['accept'] else 'refuses'}."
    if kind == "bonus_started":
        return f"{who} starts a bonus move with group {event['group']}."
    if kind == "sacrificed":
        return f"{who} sacrifices group {event['group']}."
    if kind == "bonus_stepped":
        return f"{who} moves group {event['group']} one extra cell to {_cell(event['to'])}."
    if kind == "passed":
        return f"{who} passes."
    if kind == "fighting_ended":
        return "The fighting ends."
    if kind == "withdrew":
        return f"{who} withdraws {event['count']} from {_cell(event['cell'])}."
    if kind == "battle_ended":
        return f"The battle is over; the {event['enemy']} retreat."
    return str(kind)
