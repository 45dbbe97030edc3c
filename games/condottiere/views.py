"""What each viewer may see: views, redacted events and legal moves (OPT-HID-4, BAT-8)."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, NamedTuple

from games.base import FULL
from games.condottiere.board import MERCENARY, REGIONS, in_card_order
from games.condottiere.config import public_config
from games.condottiere.queries import allowed_regions, may_discard_hand, pope_regions, strengths
from games.condottiere.state import FIELDS, State
from games.condottiere.steps import (
    STEP_BATTLE,
    STEP_GAME_OVER,
    STEP_HAND_DISCARD,
    STEP_KEEP_CARDS,
    STEP_PLACE_TOKEN,
)

PHASES = {
    STEP_PLACE_TOKEN: "place_token",
    STEP_BATTLE: "battle",
    STEP_HAND_DISCARD: "hand_discard",
    STEP_KEEP_CARDS: "keep_cards",
    STEP_GAME_OVER: "over",
}


def phase(s: State) -> str:
    # "resolving" is only seen in replays between the events of one move
    if s.move_ends_with is not None:
        return "resolving"
    return PHASES.get(s.step, "resolving")


def legal_moves(s: State, seat: Any) -> list[dict]:
    if s is None or seat not in s.awaiting:
        return []
    step = s.step
    if step == STEP_BATTLE:
        moves: list[dict] = []
        hand = s.hands[seat]
        previous = None
        for card in hand:  # sorted: equal codes are neighbours
            if card == previous:
                continue
            previous = card
            if card == "scarecrow":
                moves.append({"type": "play", "card": card, "take_back": None})
                for back in sorted({c for c in s.lines[seat] if c in MERCENARY}):
                    moves.append({"type": "play", "card": card, "take_back": back})
            elif card == "bishop" and not s.classic:
                moves.append({"type": "play", "card": card, "pope": None})
                for region in pope_regions(s):
                    moves.append({"type": "play", "card": card, "pope": REGIONS[region]})
            else:
                moves.append({"type": "play", "card": card})
        if s.down[seat]:
            moves.append({"type": "pass", "reveal": False})
            moves.append({"type": "pass", "reveal": True})
        else:
            moves.append({"type": "pass"})
        return moves
    if step == STEP_PLACE_TOKEN:
        moves = [{"type": "place_token", "region": REGIONS[r]} for r in allowed_regions(s, seat)]
        if s.classic and s.declines < s.seat_count:
            moves.append({"type": "decline_token"})
        return moves
    if step == STEP_HAND_DISCARD:
        keep = {"type": "discard_hand", "discard": False}
        return [{"type": "discard_hand", "discard": True}, keep] if may_discard_hand(s, seat) else [keep]
    if step == STEP_KEEP_CARDS:
        hand = s.hands[seat]
        distinct = sorted(set(hand))
        moves = [{"type": "keep_cards", "cards": []}]
        for i, a in enumerate(distinct):
            moves.append({"type": "keep_cards", "cards": [a]})
            for b in distinct[i:]:
                if a != b or hand.count(a) >= 2:
                    moves.append({"type": "keep_cards", "cards": [a, b]})
        return moves
    return []


def known_lines(s: State, viewer: Any) -> list[tuple]:
    """The battle lines as ``viewer`` knows them: every face-up card, and the face-down cards the
    viewer may see (its own; all of them for FULL). Every strength shown to a viewer is derived
    from this and nothing else, so no number can depend on a card the viewer may not see (once,
    Spring's highest Mercenary once counted other seats' face-down cards)."""
    if viewer == FULL:
        return [line + down for line, down in zip(s.lines, s.down, strict=True)]
    return [
        line + down if seat == viewer else line
        for seat, (line, down) in enumerate(zip(s.lines, s.down, strict=True))
    ]


class _Public(NamedTuple):
    """What every viewer but FULL sees of one state: the view's top-level fields and each seat's
    entry as the other seats and the spectators see it (face-down cards hidden, OPT-HID-4)."""

    out: dict[str, Any]
    players: list[dict[str, Any]]


# Every field of a state: a view is a function of them and nothing else.
_state_key = attrgetter(*FIELDS)
# The last state's public part, with the key it was computed from. A move's views are computed one
# viewer after the other from the same state (every seat's stream, then the spectators'), so all
# but the first reuse it. Keyed by value, never by identity: a state changed in place after its view
# (a bot's trial copy, say) gets its own public part.
_last_public: tuple[tuple[Any, ...], _Public] | None = None


def view(s: State, viewer: Any) -> dict[str, Any]:
    """``viewer``'s view of ``s``: a seat's (its hand, its face-down cards, its legal moves), the
    spectators' (SPECTATOR) or everything (FULL). The parts every seat and spectator sees alike are
    computed once per state (``_public``); the viewer's own parts are built for it alone, in new
    containers, so nothing one viewer may see is ever written where another's view reads."""
    if viewer == FULL:
        return _full_view(s)
    public = _public(s)
    out = dict(public.out)
    out["players"] = players = list(public.players)
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < s.seat_count:
        line = [{"card": c, "face_down": False} for c in s.lines[viewer]]
        line.extend({"card": c, "face_down": True} for c in s.down[viewer])
        entry = public.players[viewer]
        # RL-X5: the viewer's own strength counting every card it knows of (its face-down cards too)
        known = strengths(known_lines(s, viewer))[viewer] if any(s.down) else entry["strength"]
        players[viewer] = {**entry, "line": line, "true_strength": known}
        out["seat"] = viewer
        out["hand"] = in_card_order(s.hands[viewer])
        out["legal_moves"] = legal_moves(s, viewer)
    return out


def _public(s: State) -> _Public:
    global _last_public
    key = _state_key(s)
    last = _last_public
    if last is not None and last[0] == key:
        return last[1]
    public = _Public(*_common_fields(s, full=False))
    _last_public = (key, public)
    return public


def _full_view(s: State) -> dict[str, Any]:
    out, _ = _common_fields(s, full=True)
    out["deck"] = list(s.deck)
    return out


def _common_fields(s: State, *, full: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The view's fields and its players' entries as FULL sees them (``full``), else as a spectator
    does: every face-down card hidden, no hand."""
    n = s.seat_count
    shown = strengths(s.lines)  # OPT-HID-4: face-up cards only
    known = strengths(known_lines(s, FULL)) if full and any(s.down) else shown
    in_battle = s.step == STEP_BATTLE or (s.region is not None) or s.final_battle is not None
    regions_of: list[list[str]] = [[] for _ in range(n)]
    for i, owner in enumerate(s.owners):
        if owner is not None:
            regions_of[owner].append(REGIONS[i])
    players = []
    for i in range(n):
        line = [{"card": c, "face_down": False} for c in s.lines[i]]
        line.extend({"card": c if full else None, "face_down": True} for c in s.down[i])
        player = {
            "seat": i,
            "hand_size": len(s.hands[i]),
            "passed": bool(s.passed[i]) if in_battle else False,
            "regions": regions_of[i],
            "line": line,
            "strength": shown[i],
        }
        if full:
            player["true_strength"] = known[i]
            player["hand"] = in_card_order(s.hands[i])
        players.append(player)
    battle = None
    if s.region is not None or s.final_battle is not None:
        battle = {
            "region": None if s.region is None else REGIONS[s.region],
            "defender": s.defender,
            "final": s.final_battle is not None,
        }
    last_battle = None
    if s.last_strengths is not None:
        last_battle = {
            "region": None if s.last_region is None else REGIONS[s.last_region],
            "winner": s.last_winner,
            "strengths": list(s.last_strengths),
            "cause": s.last_cause,
        }
    out: dict[str, Any] = {
        "game": "condottiere",
        "config": _full_config(s.config) if full else public_config(s.config),
        "phase": phase(s),
        "awaiting": list(s.awaiting),
        "turn": s.turn if s.step == STEP_BATTLE else None,
        "condottiere": s.holder,
        "pope": None if s.pope is None else REGIONS[s.pope],
        "battle": battle,
        "last_battle": last_battle,
        "regions": {REGIONS[i]: owner for i, owner in enumerate(s.owners)},
        "players": players,
        "deck_size": len(s.deck),
        "discard_size": len(s.discard),
        "winners": None if s.winners is None else list(s.winners),
        "result": _result(s),
        "match": (
            {"game_number": s.game_number, "scores": list(s.scores), "target": s.points_target}
            if s.points_target
            else None
        ),
    }
    if s.step == STEP_PLACE_TOKEN and s.classic:
        out["declines"] = s.declines
    if s.step == STEP_HAND_DISCARD:
        out["hand_discard"] = list(s.hand_discard_awaited)
    return out, players


def _full_config(config: dict) -> dict[str, Any]:
    full = dict(config)
    full["options"] = dict(config["options"])
    full["deck_order_given"] = config.get("deck_order") is not None
    if config.get("deck_order") is not None:
        full["deck_order"] = list(config["deck_order"])
    return full


def _result(s: State) -> dict[str, Any] | None:
    if s.step != STEP_GAME_OVER:
        return None
    regions: list[list[str]] = [[] for _ in range(s.seat_count)]
    for i, owner in enumerate(s.owners):
        if owner is not None:
            regions[owner].append(REGIONS[i])
    if s.points_target:
        return {
            "winners": list(s.match_winners or ()),
            # A match that did not end on points says why (RL-11, RL-X17, RL-X18).
            "reason": s.reason if s.reason in ("stalled", "resigned", "aborted") else "points",
            "scores": list(s.scores),
            "games": s.game_number,
            "game_winners": list(s.winners or ()),
            "game_reason": s.reason,
            "regions": regions,
        }
    return {"winners": list(s.winners or ()), "reason": s.reason, "regions": regions}


result = _result

_SEAT_PRIVATE = {
    "cards_dealt": ("cards",),
    "cards_drawn": ("cards",),
    "hand_discarded": ("cards",),
    "card_taken_back": ("card",),
    "cards_kept": ("kept", "discarded"),
}


def redact(event: dict, viewer: Any) -> dict:
    if viewer == FULL:
        return event
    kind = event.get("type")
    if kind == "game_started":
        config = event.get("config")
        if isinstance(config, dict) and (
            config.get("deck_order") is not None or config.get("seed") is not None
        ):
            redacted = dict(event)
            redacted["config"] = public_config(config)
            return redacted
        return event
    if kind == "deck_shuffled":
        if event.get("cards") is None:
            return event
        redacted = dict(event)
        redacted["cards"] = None
        return redacted
    if kind == "card_played":
        if event.get("face_down") and viewer != event.get("seat"):
            redacted = dict(event)
            redacted["card"] = None
            return redacted
        return event
    private = _SEAT_PRIVATE.get(kind)
    if private and viewer != event.get("seat"):
        redacted = dict(event)
        for name in private:
            redacted[name] = None
        return redacted
    return event
