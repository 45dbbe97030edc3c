"""Plain-text rendering of a Condottiere view for the terminal (``games.base.TextHooks``: the
command-line client, cli/, asks the game for its text rather than knowing its cards and regions).

Everything here is a pure function of a view (the API's seat or spectator view, see
docs/condottiere-protocol.md), so it is tested on constructed views and shows exactly what the
viewer may see: nothing else is available to it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from games.condottiere.annotate import annotate

# The board read north to south, west to east, so the grid looks like the map (MAP-1).
MAP_ROWS = [
    ["Torino", "Milano", "Venezia"],
    ["Genova", "Mantova", "Ferrara"],
    ["Parma", "Modena", "Bologna"],
    ["Lucca", "Firenze", "Urbino"],
    ["Siena", "Spoleto", "Ancona"],
    ["Roma", "Napoli"],
]

CARD_NAMES = {
    "m1": "1",
    "m2": "2",
    "m3": "3",
    "m4": "4",
    "m5": "5",
    "m6": "6",
    "m10": "10",
    "winter": "Winter",
    "spring": "Spring",
    "bishop": "Bishop",
    "courtesan": "Courtesan",
    "drummer": "Drummer",
    "heroine": "Heroine",
    "scarecrow": "Scarecrow",
    "surrender": "Surrender",
}
_CARD_ORDER = list(CARD_NAMES)


def card_name(card: str | None) -> str:
    if card is None:
        return "[face down]"
    return CARD_NAMES.get(card, card)


def sorted_cards(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda c: (_CARD_ORDER.index(c) if c in _CARD_ORDER else 99, c))


def seat_label(seat: int | None, names: Mapping[int, str] | None = None) -> str:
    if seat is None:
        return "-"
    name = (names or {}).get(seat)
    return f"{seat} {name}" if name else f"seat {seat}"


def describe_move(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "place_token":
        owner_note = " (capture)" if move.get("capture") else ""
        return f"fight for {move.get('region')}{owner_note}"
    if kind == "decline_token":
        return "decline the token (your left neighbour chooses)"
    if kind == "play":
        text = f"play {card_name(move.get('card'))}"
        if move.get("card") == "scarecrow":
            back = move.get("take_back")
            text += f", take back {card_name(back)}" if back else ", take nothing back"
        if move.get("card") == "bishop" and "pope" in move:
            pope = move.get("pope")
            text += f", Pope to {pope}" if pope else ", Pope off the board"
        return text
    if kind == "pass":
        return "pass and reveal your face-down card" if move.get("reveal") else "pass"
    if kind == "discard_hand":
        return "discard your whole hand" if move.get("discard") else "keep your hand"
    if kind == "keep_cards":
        cards = move.get("cards") or []
        return "keep " + ", ".join(card_name(c) for c in cards) if cards else "keep no card"
    return str(dict(move))


def _line(player: Mapping[str, Any]) -> str:
    slots = player.get("line") or []
    if not slots:
        return "(no cards)"
    parts = []
    for slot in slots:
        name = card_name(slot.get("card"))
        if slot.get("face_down") and slot.get("card") is not None:
            name += " (face down)"
        parts.append(name)
    return " ".join(parts)


def render_view(
    view: Mapping[str, Any], names: Mapping[int, str] | None = None, *, moves: bool = True
) -> str:
    """The whole table as text: header, map, battle lines, the viewer's hand and (``moves``) the
    numbered legal moves."""
    config = view.get("config") or {}
    me = view.get("seat")
    out: list[str] = []
    options = [k for k, v in (config.get("options") or {}).items() if v]
    header = f"Condottiere ({config.get('ruleset', '2006')} rules, {config.get('players', '?')} players"
    header += f"; options: {', '.join(options)})" if options else ")"
    out.append(header)
    match = view.get("match")
    if match:
        out.append(
            f"Match game {match.get('game_number')}, scores {match.get('scores')}, "
            f"target {match.get('target')}"
        )

    # -- map
    regions: Mapping[str, Any] = view.get("regions") or {}
    battle = view.get("battle") or {}
    pope = view.get("pope")
    out.append("")
    out.append("Map (owner seat in brackets; * battle, P Pope):")
    listed = {r for row in MAP_ROWS for r in row}
    rows = [list(row) for row in MAP_ROWS]
    extra = [r for r in regions if r not in listed]
    if extra:  # a map the display does not know yet: still show every region
        rows.append(extra)
    for row in rows:
        cells = []
        for region in row:
            if region not in regions:
                continue
            owner = regions.get(region)
            mark = "*" if battle.get("region") == region else " "
            mark += "P" if pope == region else " "
            owner_text = f"[{owner}]" if owner is not None else "[ ]"
            cells.append(f"{mark}{region:<8}{owner_text:<4}")
        out.append("  " + "  ".join(cells))

    # -- status
    out.append("")
    phase = view.get("phase")
    awaiting = view.get("awaiting") or []
    status = f"Phase: {phase}. Condottiere token: {seat_label(view.get('condottiere'), names)}."
    if config.get("ruleset", "2006") != "classic":
        status += f" Pope: {pope or 'off the board'}."
    out.append(status)
    if phase == "battle" and battle:
        if battle.get("final") or battle.get("region") is None:
            where = "the final battle (no region)"
        else:
            where = f"the battle for {battle.get('region')}"
            if battle.get("defender") is not None:
                where += f", defended by {seat_label(battle.get('defender'), names)}"
        turn = view.get("turn")
        out.append(f"In {where}; to play: {seat_label(turn, names)}.")
    elif awaiting:
        out.append("Waiting for: " + ", ".join(seat_label(s, names) for s in awaiting) + ".")
    last = view.get("last_battle")
    if last:
        where = last.get("region") or "the final battle"
        winner = last.get("winner")
        strengths = last.get("strengths")
        shown = ", ".join(str(v) for v in strengths) if isinstance(strengths, list) else ""
        outcome = seat_label(winner, names) + " won" if winner is not None else "nobody won"
        out.append(
            f"Last battle: {where}, {outcome}"
            f"{' (' + str(last.get('cause')) + ')' if last.get('cause') not in (None, 'all_passed') else ''}"
            f"{'; strengths by seat ' + shown if shown else ''}."
        )
    out.append(f"Deck {view.get('deck_size', '?')} cards, discard pile {view.get('discard_size', '?')}.")

    # -- players and battle lines
    out.append("")
    for player in view.get("players") or []:
        seat = player.get("seat")
        pointer = ">" if seat in awaiting else " "
        who = seat_label(seat, names) + (" (you)" if seat == me else "")
        flags = []
        if player.get("passed"):
            flags.append("passed")
        if view.get("condottiere") == seat:
            flags.append("token")
        strength = player.get("strength", 0)
        if seat == me and player.get("true_strength") not in (None, strength):
            strength_text = f"{strength} shown, {player['true_strength']} true"
        else:
            strength_text = str(strength)
        owned = player.get("regions") or []
        out.append(
            f"{pointer} {who:<20} hand {player.get('hand_size', 0):>2}  "
            f"regions {len(owned)}{': ' + ', '.join(owned) if owned else ''}"
            f"{'  [' + ', '.join(flags) + ']' if flags else ''}"
        )
        if phase == "battle" or player.get("line"):
            out.append(f"      strength {strength_text:<16} line: {_line(player)}")

    # -- result
    if view.get("winners") is not None:
        result = view.get("result") or {}
        winners = view.get("winners") or []
        if winners:
            out.append("")
            out.append(
                "Game over. Winner: "
                + ", ".join(seat_label(s, names) for s in winners)
                + (f" ({result.get('reason')})" if result.get("reason") else "")
                + "."
            )
        else:
            out.append("")
            out.append("Game over without a winner.")

    # -- own hand and moves
    if me is not None:
        out.append("")
        hand = view.get("hand") or []
        out.append("Your hand: " + (" ".join(card_name(c) for c in sorted_cards(hand)) or "(empty)"))
        legal = view.get("legal_moves") or []
        if legal and moves:
            out.append("Your moves:")
            for number, move in enumerate(legal, 1):
                out.append(f"  {number:>2}) {describe_move(move)}")
        elif not legal and view.get("winners") is None:
            out.append("Nothing to do: waiting for the others.")
    return "\n".join(out)


# "Seat 2", "seat 2" in a sentence of the table; "Seats 1, 2" is left as it is.
_SEAT = re.compile(r"\b[Ss]eat (\d+)\b")


def describe_event(event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """One line for an event as the viewer received it (hidden cards already redacted): the
    engine's sentence for it from the one table of Condottiere's sentences (``annotate.py``, which
    the annotations and the exports read too), with the players' names. A client holds no state,
    so the sentence is the one a redacted event gives without the states around it."""
    sentence = annotate(None, dict(event), None)
    return _SEAT.sub(lambda found: seat_label(int(found.group(1)), names), sentence)


def render_text(view: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """``TextHooks.render_text``: the table without the move list (the client numbers the menu)."""
    return render_view(view, names, moves=False)


def move_menu(
    moves: Sequence[Mapping[str, Any]], view: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``TextHooks.move_menu``: a card with sub-choices (the Bishop's Pope region, BIS-2; the
    Scarecrow's take-back, SCA-1) is one entry with a second question; order is kept."""
    menu: list[dict[str, Any]] = []
    by_card: dict[Any, dict[str, Any]] = {}
    for move in moves:
        if not (move.get("type") == "play" and ("pope" in move or "take_back" in move)):
            menu.append({"label": describe_move(move), "move": dict(move)})
            continue
        card = move.get("card")
        if card not in by_card:
            then = "where the Pope goes" if card == "bishop" else "what to take back"
            by_card[card] = {
                "label": f"play {card_name(card)} (then choose {then})",
                "prompt": "Where does the Pope go" if card == "bishop" else "What do you take back",
                "options": [],
            }
            menu.append(by_card[card])
        by_card[card]["options"].append({"label": describe_move(move), "move": dict(move)})
    # A card with a single variant needs no second question.
    return [
        {"label": e["options"][0]["label"], "move": e["options"][0]["move"]}
        if "options" in e and len(e["options"]) == 1
        else e
        for e in menu
    ]
