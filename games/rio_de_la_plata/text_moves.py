"""Rio's legal moves in words for the terminal client (``games.base.TextHooks.describe_move`` and
``move_menu``): one line per move, and the menu that asks for a move with many variants (a cell, a
space, an edge, a group's destination) in two questions, with what the board says each one costs
and gives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.rio_de_la_plata.board import Board
from games.rio_de_la_plata.text_words import (
    between,
    cell_name,
    character_terms,
    describe_edge,
    minor_terms,
    view_board,
    words,
)


def describe_move(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "place":
        space = move.get("space")
        if space == "cell":
            verb = "displace the people on" if move.get("displace") else "place a person on"
            return f"{verb} cell {cell_name(move.get('cell'))}"
        if space == "major":
            pay = f", paying 1 {move['pay']}" if move.get("pay") else ""
            grid = f" grid {move.get('grid', 0) + 1}" if move.get("grid") else ""
            space_number = move.get("index", 0) + 1
            return f"place a person on the {words(move.get('building'))}{grid}, space {space_number}{pay}"
        if space == "character":
            return f"place a person on the {words(move.get('character'))}"
        return f"place on the {words(space)}"
    if kind == "launch":
        return "order the ship's launch (pay the fee)"
    if kind == "end_turn":
        return "end your turn"
    if kind == "buy":
        return f"buy 1 {move.get('good')} from the bank"
    if kind == "collect":
        return f"collect from the {move.get('space')}"
    if kind == "claim":
        return f"claim the {words(move.get('character'))} (pay, or take the penalty)"
    if kind == "craft":
        give = move.get("give")
        return f"craftsmen: exchange 1 {give} for 1 luxury" if give else "craftsmen: decline the exchange"
    if kind == "load":
        return f"load 1 {move.get('good')} on the ship"
    if kind == "build":
        pool = f" (tile from {move['pool']})" if move.get("pool") else ""
        return f"build a {words(move.get('building'))} on {cell_name(move.get('cell'))}{pool}"
    if kind == "use":
        return f"use the building on {cell_name(move.get('cell'))}: option {move.get('choice', 0) + 1}"
    if kind == "place_tile":
        return f"put the tile on {cell_name(move.get('cell'))}"
    if kind == "place_section":
        return f"place a section {between(move.get('edge'))}"
    if kind == "choose_resource":
        return f"take 1 {move.get('good')}"
    if kind == "place_attacker":
        return f"place an attacker {between(move.get('edge'))}"
    if kind == "fire":
        return f"fire the cannons at {move.get('k')} attacker(s)"
    if kind == "remove_attacker":
        return f"remove the attacker {between(move.get('edge'))}"
    if kind == "defend":
        return f"put a defender on {cell_name(move.get('cell'))}"
    if kind == "split":
        return f"take a group of {move.get('size')} off the stack {between(move.get('edge'))}"
    if kind == "move":
        return f"move group {move.get('group')} to {cell_name(move.get('to'))}"
    if kind == "withdraw":
        return f"withdraw {move.get('count')} from {cell_name(move.get('cell'))}"
    if kind == "choose_across":
        return f"send the person at position {move.get('person', 0) + 1} of the pair across"
    if kind == "choose_commander":
        return f"let seat {move.get('commander')} command the new group"
    if kind == "consent":
        return "agree" if move.get("accept") else "refuse"
    if kind == "bonus":
        return f"start a bonus move with group {move.get('group')} (sacrificing groups)"
    if kind == "sacrifice":
        return f"sacrifice group {move.get('group')}"
    if kind == "bonus_step":
        return f"move group {move.get('group')} one extra cell to {cell_name(move.get('to'))}"
    if kind == "pass":
        return "pass"
    if kind == "offer_open":
        return f"write a trade offer to seat {move.get('to')}"
    if kind == "offer_add":
        what = "you give" if move.get("side") == "give" else "you ask for"
        return f"add 1 {words(move.get('item'))} to what {what}"
    if kind == "offer_send":
        return "send the trade offer"
    if kind == "offer_accept":
        return "accept the trade offer"
    if kind == "offer_decline":
        return "decline the trade offer"
    if kind == "undo":
        return "undo your last placement or build"
    fields = {k: v for k, v in move.items() if k != "type"}
    return f"{kind} {fields}" if fields else str(kind)


def _use_label(move: Mapping[str, Any], board: Board | None, building: str | None) -> str:
    use = board.uses.get(building or "") if board is not None else None
    choice = move.get("choice", 0)
    if use is not None:
        options = use["choose_one"]
        if 0 <= choice < len(options):
            pay = " + ".join(f"{n} {g}" for g, n in use["pay"].items())
            gain = " + ".join(f"{n} {g}" for g, n in options[choice].items())
            return f"pay {pay}, receive {gain}"
    return f"option {choice + 1}"


def _label_with_terms(move: Mapping[str, Any], label: str, board: Board, due: Mapping[str, Any]) -> str:
    """A move's label with what the board says it costs and gives: a major building space's VP, a
    character's price and VP requirement, a minor building's cost, VP and site, where an edge is."""
    kind, space = move.get("type"), move.get("space")
    if kind == "place" and space == "major":
        spec = board.majors.get(str(move.get("building")))
        grid, index = int(move.get("grid") or 0), int(move.get("index") or 0)
        if spec is not None and grid < len(spec.grids) and index < len(spec.grids[grid].spaces):
            vp = spec.grids[grid].spaces[index][0]
            where = f" grid {grid + 1}," if grid else ""
            pay = f", paying 1 {move['pay']}" if move.get("pay") else ""
            return f"place a person on the {words(spec.name)}{where} space {index + 1} ({vp} VP){pay}"
    if kind == "place" and space == "character":
        name = str(move.get("character"))
        return f"place a person on the {words(name)} ({character_terms(board, name)})"
    if kind == "claim":
        name = str(move.get("character"))
        return f"claim the {words(name)}: pay {character_terms(board, name)}, or take the penalty"
    if kind == "build":
        terms = minor_terms(board, str(move.get("building")))
        return f"{label}: {terms}" if terms else label
    if kind == "place_section":
        what = due.get("what") if due.get("kind") == "section" else None
        return f"place a {what or 'wall or road'} section {describe_edge(str(move.get('edge')))}"
    return label


# Moves with many variants, asked in two steps: the group they belong to (None: a menu entry of
# their own) and the question of the second step.
def _group(move: Mapping[str, Any]) -> tuple[tuple[Any, ...], str, str] | None:
    kind = move.get("type")
    if kind == "place" and move.get("space") == "cell":
        return ("cell",), "place a person on a city cell (choose the cell)", "Which cell"
    if kind == "place" and move.get("space") == "major":
        name = words(move.get("building"))
        return (
            ("major", move.get("building")),
            f"place a person on the {name} (choose the space)",
            "Which space",
        )
    if kind == "place" and move.get("space") == "character":
        return ("character",), "place a person on a character (choose which)", "Which character"
    if kind == "build":
        where = cell_name(move.get("cell"))
        return ("build", str(move.get("cell"))), f"build on {where} (choose the building)", "Which building"
    if kind == "use":
        where = cell_name(move.get("cell"))
        return (
            ("use", str(move.get("cell"))),
            f"use the building on {where} (choose what to receive)",
            "Which",
        )
    if kind in ("place_tile", "place_section", "place_attacker", "remove_attacker", "defend", "fire"):
        labels = {
            "place_tile": ("put the tile on a site (choose it)", "Which site"),
            "place_section": ("place a wall or road section (choose where)", "Between which corners"),
            "place_attacker": ("place an attacker (choose where)", "Between which corners"),
            "remove_attacker": ("remove an attacker (choose which)", "Between which corners"),
            "defend": ("put a defender on a cell (choose the cell)", "Which cell"),
            "fire": ("fire the cannons (choose how many)", "At how many attackers"),
        }
        label, prompt = labels[kind]
        return (kind,), label, prompt
    if kind == "move":
        return ("move", move.get("group")), f"move group {move.get('group')} (choose where)", "Where to"
    if kind == "split":
        edge = move.get("edge")
        return ("split", edge), f"split the stack {between(edge)} (choose the size)", "How many"
    if kind == "withdraw":
        return ("withdraw",), "withdraw people (choose the cell and how many)", "Which"
    if kind == "bonus_step":
        group = move.get("group")
        return ("bonus_step", group), f"move group {group} one extra cell (choose where)", "Where to"
    if kind == "sacrifice":
        return ("sacrifice",), "sacrifice a group (choose which)", "Which group"
    if kind == "offer_open":
        return ("offer_open",), "write a trade offer (choose to whom)", "To whom"
    if kind == "offer_add":
        return ("offer_add",), "add an item to your offer (choose it)", "Which item"
    return None


def _typed_key(move: Mapping[str, Any]) -> str | None:
    """What a reader may type for a variant that is a place (``TextHooks.move_menu``'s ``key``): the
    edge of a section, the cell of a placement or a defender; moves with other variants have none,
    so every key is unique within its question."""
    kind = move.get("type")
    if kind == "place_section":
        return str(move.get("edge"))
    cell = move.get("cell")
    placed = kind == "place" and move.get("space") == "cell" and not move.get("displace")
    if (kind == "defend" or placed) and isinstance(cell, (list, tuple)) and len(cell) == 2:
        return f"{cell[0]},{cell[1]}"
    return None


def move_menu(
    moves: Sequence[Mapping[str, Any]], view: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``TextHooks.move_menu``: a placement on one of fifty cells, the space of a major building, the
    building to build on a cell, an edge, a group's destination... are one entry each and a second
    question, so the first menu stays short; every move appears once, in the order given."""
    menu: list[dict[str, Any]] = []
    taken = (view or {}).get("undo")
    if taken and moves:  # RIO-UNDO-2: the view names it beside the legal moves, never among them
        command = {k: v for k, v in taken.items() if k not in ("type", "v", "seat")}
        command["type"] = "build" if taken.get("type") == "built" else "place"
        menu.append({"label": f"undo: take back '{describe_move(command)}'", "move": {"type": "undo"}})
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    board = view_board(view) if view is not None else None
    city = (view or {}).get("city") or {}
    due = ((view or {}).get("due") or [{}])[0]
    for move in moves:
        label = describe_move(move)
        if move.get("type") == "use":
            cell = move.get("cell") or [0, 0]
            building = (city.get(f"{cell[0]},{cell[1]}") or {}).get("b")
            label = f"use the {words(building or 'building')} on {cell_name(cell)}: " + _use_label(
                move, board, building
            )
        elif board is not None:
            label = _label_with_terms(move, label, board, due)
        grouped = _group(move)
        if grouped is None:
            menu.append({"label": label, "move": dict(move)})
            continue
        key, group_label, prompt = grouped
        if key not in groups:
            groups[key] = {"label": group_label, "prompt": prompt, "options": []}
            menu.append(groups[key])
        option: dict[str, Any] = {"label": label, "move": dict(move)}
        typed = _typed_key(move)
        if typed is not None:
            option["key"] = typed
        groups[key]["options"].append(option)
    return [
        {"label": e["options"][0]["label"], "move": e["options"][0]["move"]}
        if "options" in e and len(e["options"]) == 1
        else e
        for e in menu
    ]
