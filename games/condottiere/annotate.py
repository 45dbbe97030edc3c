"""Condottiere's one table of sentences: one English sentence per event, with the numbers that
matter. The engine's annotations (``GAME.annotate``, the exports) and the terminal client's event
lines (``text.describe_event``) all read it. Works on redacted events too (it never names a card
the event does not show), so it can be used per viewer, and without the states around the event
(a client holds none): the figures read from a state are then left out."""

from __future__ import annotations

from typing import Any

from games.condottiere.board import CARD_NAMES, MERCENARY
from games.condottiere.queries import strengths

_EFFECTS = {
    "winter": "every mercenary counts 1",
    "spring": "the highest mercenaries get +3",
    "drummer": "this line's mercenaries count double",
    "heroine": "worth 10",
    "courtesan": "worth 1",
    "surrender": "the battle ends now",
}


def card_name(code: str | None) -> str:
    if code is None:
        return "a hidden card"
    return CARD_NAMES.get(code, code)


def _cards(cards: list | None, count: int | None = None) -> str:
    if cards is None:
        return f"{count} card{'s' if count != 1 else ''}" if count is not None else "some cards"
    if not cards:
        return "no card"
    return ", ".join(card_name(c) for c in cards)


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _shown(state: Any) -> str:
    if state is None or not hasattr(state, "lines"):
        return ""
    # By seat, not by position, so a reader (and the web page, which puts names for "Seat N") knows
    # whose strength each figure is.
    return ", ".join(f"Seat {seat}: {x}" for seat, x in enumerate(strengths(state.lines)))


def annotate(before: Any, event: dict, after: Any) -> str:
    kind = event.get("type")
    seat = event.get("seat")
    who = f"Seat {seat}"
    if kind == "game_started":
        config = event.get("config") or {}
        options = [k for k, v in (config.get("options") or {}).items() if v]
        extra = f" with {', '.join(options)}" if options else ""
        number = event.get("game_number", 1)
        prefix = f"Game {number} of the match" if number and number > 1 else "A game"
        return (
            f"{prefix} of Condottiere ({config.get('ruleset')} edition) starts for "
            f"{config.get('players')} players{extra}."
        )
    if kind == "first_condottiere_chosen":
        how = "drawn at random" if event.get("drawn") else "chosen"
        return f"{who} is {how} as the first Condottiere."
    if kind == "deck_shuffled":
        count = event.get("count")
        if count is None and event.get("cards") is not None:
            count = len(event["cards"])
        reason = {
            "start": "to start the game",
            "round": "for a new round",
            "reshuffle": "from the discard pile into a new deck",
            "final_battle": "with every card for the final battle",
        }.get(event.get("reason"), "")
        deck = _plural(count, "card") if isinstance(count, int) else f"{count} cards"
        return f"The deck of {deck} is shuffled {reason}.".replace("  ", " ").replace(" .", ".")
    if kind in ("cards_dealt", "cards_drawn"):
        verb = "is dealt" if kind == "cards_dealt" else "draws"
        cards = event.get("cards")
        count = event.get("count", len(cards) if cards is not None else None)
        if cards is None:
            return f"{who} {verb} {_plural(count, 'card')}."
        return f"{who} {verb} {_plural(len(cards), 'card')}: {_cards(cards)}."
    if kind == "token_placed":
        defender = event.get("defender")
        tail = f", defended by seat {defender}" if defender is not None else ""
        return f"{who} places the Condottiere token on {event.get('region')}{tail}."
    if kind == "token_declined":
        return f"{who} declines to choose a region and passes the token to seat {event.get('to')}."
    if kind == "card_played":
        card = event.get("card")
        if event.get("face_down"):
            if card is None:
                return f"{who} plays a face-down card."
            return f"{who} plays {card_name(card)} face down."
        effect = _EFFECTS.get(card)
        if card in MERCENARY:
            effect = None
        text = f"{who} plays {card_name(card)}"
        if effect:
            text += f": {effect}"
        shown = _shown(after)
        if shown and card not in ("bishop", "scarecrow"):
            text += f". Strengths {shown}"
        return text + "."
    if kind == "card_taken_back":
        card = event.get("card")
        if card is None:
            return f"{who}'s Scarecrow takes a mercenary back into the hand."
        return f"{who}'s Scarecrow takes {card_name(card)} back into the hand."
    if kind == "cards_discarded":
        cause = event.get("cause")
        items = event.get("cards") or []
        names = [card_name(item.get("card")) for item in items]
        shown = _shown(after)
        tail = f" Strengths {shown}." if shown else ""
        if cause == "bishop":
            mercs = [n for item, n in zip(items, names, strict=True) if item.get("card") != "bishop"]
            if mercs:
                return f"The Bishop discards the highest mercenaries: {', '.join(mercs)}.{tail}"
            return f"The Bishop finds no mercenary to discard.{tail}"
        if cause == "scarecrow":
            return f"The Scarecrow is discarded.{tail}"
        return f"{cause.capitalize() if cause else 'A card'} discards {', '.join(names)}.{tail}"
    if kind == "pope_placed":
        region = event.get("region")
        if region is None:
            return f"{who} keeps the Pope off the board."
        return f"{who} places the Pope on {region}: no battle may be fought there."
    if kind == "cards_revealed":
        why = {
            "next_card": "on playing another card",
            "pass": "on passing",
            "battle_end": "as the battle ends",
        }.get(event.get("cause"), "")
        return f"{who} reveals {_cards(event.get('cards'))} {why}.".replace(" .", ".")
    if kind == "passed":
        if event.get("auto"):
            text = f"{who} has no cards and passes"
        else:
            text = f"{who} passes"
        if event.get("final") is False:
            text += " (a defender's free pass: may still play later)"
        return text + "."
    if kind == "battle_ended":
        values = ", ".join(f"Seat {s}: {x}" for s, x in enumerate(event.get("strengths") or []))
        where = event.get("region") or "the final battle"
        cause = {"surrender": " after a Surrender", "bishop": " by the Bishop"}.get(event.get("cause"), "")
        winner = event.get("winner")
        outcome = f"seat {winner} wins" if winner is not None else "nobody wins"
        return f"The battle for {where} ends{cause}: strengths {values}; {outcome}."
    if kind == "region_won":
        previous = event.get("from")
        tail = f", taking it from seat {previous}" if previous is not None else ""
        count = ""
        if after is not None and hasattr(after, "owners"):
            k = sum(1 for o in after.owners if o == seat)
            count = f" ({_plural(k, 'region')} now)"
        return f"{who} takes {event.get('region')}{tail}{count}."
    if kind == "token_passed":
        why = {
            "courtesans": "for the most Courtesans",
            "winner": "as the winner",
            "defender": "as the defender",
            "left_neighbour": "as the left neighbour",
        }.get(event.get("cause"), "")
        return f"{who} receives the Condottiere token {why}.".replace(" .", ".")
    if kind == "battle_lines_discarded":
        return f"The battle lines are discarded ({_plural(len(event.get('cards') or []), 'card')})."
    if kind == "hand_discard_offered":
        seats = event.get("seats") or []
        if len(seats) == 1:
            return f"Seat {seats[0]} says whether to discard a hand without mercenaries."
        listed = ", ".join(str(s) for s in seats)
        return f"Seats {listed} say whether to discard a hand without mercenaries."
    if kind == "hand_discarded":
        if not event.get("discard"):
            return f"{who} keeps the hand."
        count = event.get("count")
        cards = event.get("cards")
        if cards is not None:
            return f"{who} discards the hand: {_cards(cards)}."
        return f"{who} discards the hand ({_plural(count or 0, 'card')})."
    if kind == "round_ended":
        holder = event.get("holder")
        if holder is None:
            return "The round ends: nobody holds cards."
        return f"The round ends: only seat {holder} still holds cards."
    if kind == "cards_kept":
        kept = event.get("kept")
        if kept is None:
            return (
                f"{who} keeps {_plural(event.get('kept_count', 0), 'card')} and discards "
                f"{event.get('discarded_count', 0)}."
            )
        return f"{who} keeps {_cards(kept)} and discards {_cards(event.get('discarded'))}."
    if kind == "final_battle_started":
        seats = ", ".join(str(s) for s in event.get("seats") or [])
        return f"A final battle between seats {seats} decides; seat {event.get('first')} plays first."
    if kind == "game_won":
        winners = event.get("winners") or []
        regions = event.get("regions") or []
        counts = ", ".join(
            f"Seat {seat}: {len(r)}" for seat, r in enumerate(regions)
        )  # by seat, as strengths
        reason = {
            "total": "by controlling enough regions",
            "adjacent": "by controlling adjacent regions",
            "most_regions": "with the most regions",
            "final_battle": "in the final battle",
            "no_winner": "",
            "resigned": "after a resignation, with the most regions",
        }.get(event.get("reason"), "")
        if event.get("reason") == "stalled":
            stalled = "The game ends without a winner: ten battles in a row saw no card played."
            return f"{stalled} Regions {counts}."
        if not winners:
            return f"The game ends without a winner. Regions {counts}."
        listed = " and ".join(f"seat {w}" for w in winners)
        verb = "wins" if len(winners) == 1 else "win"
        return f"{listed[0].upper() + listed[1:]} {verb} the game {reason}. Regions {counts}."
    if kind == "game_scored":
        gained = ", ".join(str(x) for x in event.get("gained") or [])
        scores = ", ".join(str(x) for x in event.get("scores") or [])
        return f"Points gained {gained}; match scores {scores}."
    if kind == "match_won":
        winners = event.get("winners") or []
        scores = ", ".join(str(x) for x in event.get("scores") or [])
        if event.get("reason") == "stalled":
            return f"The match ends with the stalled game, without a winner. Scores {scores}."
        if not winners:
            return f"The match ends without a winner. Scores {scores}."
        listed = " and ".join(f"seat {w}" for w in winners)
        verb = "wins" if len(winners) == 1 else "win"
        return f"{listed[0].upper() + listed[1:]} {verb} the match. Scores {scores}."
    if kind == "seat_resigned":
        return f"{who} resigns: the game ends (RL-X17)."
    if kind == "game_aborted":
        return f"{who} aborts the game before any battle ended: no result (RL-X18)."
    if kind == "seat_token_rotated":
        return f"{who} receives a new seat token."
    if kind == "seat_timed_out":
        return f"{who} ran out of time: the default move follows (RL-X19)."
    if kind == "seat_handed_to_bot":
        return f"{who} timed out too often: a {event.get('level')} bot plays it from now on."
    return f"Event {kind}."
