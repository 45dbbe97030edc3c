"""What a player needs to read the board, in words, from the board document itself (so a board
document with other values explains those values): each building's cost, requirement, VP and use;
each character's price, VP requirement and effect; the penalty of a failed claim; what each action
space does. The web page module shows it on hover/focus and in its legend (``board_template``
embeds it as JSON beside the drawing)."""

from __future__ import annotations

from typing import Any

REQUIRES = {
    "no_building": "an empty cell",
    "own_hut": "a cell with your own hut",
    "market": "a cell with a market",
    "surrounded": "an empty cell with at least {surround} built neighbours",
    "square_statue_tile": "a square (from a square/statue tile)",
    "square_garden_tile": "a square (from a square/garden tile)",
}
# RIO-MAJOR-7's lasting effects, in a player's words.
MAJOR_TEXT = {
    "palace": "Its tile goes next to the Plaza Mayor; its district scores +{district} VP at the end.",
    "cathedral": "Its tile goes next to the Plaza Mayor; its district scores +{district} VP; "
    "churches pay more.",
    "fort": "Gives the city cannons in battle.",
    "port": "Puts the ship in play.",
    "walls": "The completer places {sections} wall sections: attackers cannot cross walls.",
    "roads": "The completer places {sections} road sections: roads connect districts.",
}


def goods(items: dict[str, int]) -> str:
    return ", ".join(f"{n} {good}" for good, n in items.items()) or "nothing"


def _minor(board: Any, name: str, minor: Any) -> dict[str, Any]:
    use = board.uses.get(name)
    text = f"Needs {REQUIRES.get(minor.requires, minor.requires).format(surround=board.surround_min)}."
    if use:
        options = " or ".join(goods(o) for o in use["choose_one"])
        text += f" Use (once a year, a person on it): pay {goods(use['pay'])}, get {options}."
        if use["with_cathedral"]:
            text += f" With the cathedral: {' or '.join(goods(o) for o in use['with_cathedral'])}."
    if name == "hut":
        text += " Your people live here: it holds your people in battle and counts for your district."
    if name == "house":
        text += f" Scores {board.per_house} VP per house in its district at the end of each year."
    bonus = board.district_bonus.get(name)
    if bonus:
        text += f" Adds {bonus} VP to its district's score."
    return {
        "people": minor.people,
        "cost": goods(minor.resources),
        "vp": minor.vp,
        "owned": minor.owned,
        "text": text,
    }


def _character(board: Any, ch: dict[str, Any]) -> str:
    parts = []
    if "income" in ch:
        parts.append(
            f"each year you receive {goods(ch['income']).replace('any_resource', 'resource of your choice')}"
        )
    if "roll_bonus" in ch:
        parts.append(f"+{ch['roll_bonus']} to your cannon rolls, {ch['vp_per_cannon_hit']} VP per hit")
    if "free_defenders" in ch:
        parts.append(
            f"{ch['free_defenders']} free defender, "
            f"{ch['vp_per_attacker_destroyed']} VP per attacker destroyed"
        )
    if "silver_per_arrival" in ch:
        parts.append(
            f"{ch['silver_per_arrival']} silver per arriving ship, "
            f"{ch['vp_per_full_voyage']} VP per full voyage"
        )
    if "free_road_sections" in ch:
        parts.append(
            f"{ch['free_road_sections']} free road section; "
            f"at the end {ch['end_vp_per_connected_district']} VP per connected district"
        )
    if "free_wall_sections" in ch:
        parts.append(
            f"{ch['free_wall_sections']} free wall section; "
            f"at the end {ch['end_vp_per_walled_district']} VP per walled district"
        )
    if "end_vp_per_church" in ch:
        parts.append(
            f"at the end {ch['end_vp_per_church']} VP per church, {ch['end_vp_cathedral']} for the cathedral"
        )
    if "end_vp_per_major_building" in ch:
        parts.append(f"at the end {ch['end_vp_per_major_building']} VP per major building you helped build")
    if "end_vp_per_noble_district" in ch:
        parts.append(
            f"at the end {ch['end_vp_per_noble_district']} VP per district with "
            f"{ch['noble_buildings_needed']} noble buildings"
        )
    if "end_vp" in ch:
        parts.append(f"{ch['end_vp']} VP at the end")
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "." if text else ""


def reference(board: Any) -> dict[str, Any]:
    penalty = board.penalty
    return {
        "minors": {name: _minor(board, name, minor) for name, minor in board.minors.items()},
        "majors": {
            name: {
                "cost": {
                    "all_of": "1 stone and 1 wood",
                    "one_of": "1 stone or 1 wood",
                    "none": "nothing",
                }.get(major.cost, major.cost)
                + " per space",
                "bonus": major.completer_bonus,
                "text": MAJOR_TEXT.get(name, "").format(
                    district=board.district_bonus.get(name, 0), sections=3
                ),
            }
            for name, major in board.majors.items()
        },
        "characters": {
            name: {"cost": ch["cost"], "min_vp": ch["min_vp"], "text": _character(board, ch)}
            for name, ch in board.characters.items()
        },
        "penalty": {"silver": penalty.get("silver", 0), "vp": penalty.get("vp", 0)},
        "spaces": {
            "mine": f"Mine: each space brings 1 {board.tracks['mine'][0]}; its number: the people it takes.",
            "forest": f"Forest: each space brings 1 {board.tracks['forest'][0]}; its number: the people.",
            "field": f"Fields: every {board.field_people_per_silver} people bring 1 silver.",
            "craftsmen": f"Craftsmen: each person turns 1 {' or '.join(board.craft_give)} "
            f"into 1 {board.craft_get}.",
            "dock": f"Dock: each person loads up to {board.ship['goods_per_person']} goods on the ship.",
            "order": "Turn order: the most people here play first next year.",
        },
        # RIO-WAR-2
        "enemies": "Each enemy's marker shows a number: in phase C two dice are rolled, and an enemy whose"
        " number is at least the roll attacks (the pirates when both do).",
        "start_zone": [f"{x},{y}" for x, y in board.start_zone],
        "districts": sorted(board.districts),
    }
