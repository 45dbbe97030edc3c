"""Playing one seat in the terminal: the menu of legal moves (numbered for the whole game), the
prompts, and the loop that follows the seat's view stream to the end of the game."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TextIO, overload

from cli.client import ApiClient, ApiError
from cli.display import GameText, text_for

BOT_PATIENCE_SECONDS = 30.0


def seat_names(summary: Mapping[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["name"] for s in summary.get("seats") or [] if s.get("name")}


QUIT = ("q", "quit", "exit")
BACK = ("b", "back")


class MenuNumbers:
    """Numbers for menu entries that keep their meaning for a whole game: an entry (known by its
    label) keeps the number it was first shown with and a new entry takes the next free number, so a
    number read off one menu and typed after the menu changed (another seat moved, a placement used
    up a space) picks the same move or none, never the entry that moved up into its place. Entries
    are listed by number; a new client (or a fresh object) starts again from 1."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def number(self, menu: Sequence[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any]]]:
        numbered = []
        seen: dict[str, int] = {}
        for entry in menu:
            # A label shown twice in one menu (it should not be) still gets one number per entry.
            seen[entry["label"]] = seen.get(entry["label"], 0) + 1
            key = entry["label"] if seen[entry["label"]] == 1 else f"{entry['label']}#{seen[entry['label']]}"
            if key not in self._numbers:
                self._numbers[key] = len(self._numbers) + 1
            numbered.append((self._numbers[key], entry))
        return sorted(numbered, key=lambda item: item[0])


def _prompt_number(
    numbers: Sequence[int],
    prompt: str,
    read_line: Callable[[], str],
    out: TextIO,
    *,
    back: bool = False,
    keys: Mapping[str, int] | None = None,
) -> int | str | None:
    """One of ``numbers`` as typed (or the number of one of ``keys`` typed as is); ``None`` when the
    input ends or the player quits; ``"back"`` (when ``back``) to return to the previous menu."""
    shown = f"1-{len(numbers)}" if list(numbers) == list(range(1, len(numbers) + 1)) else "a number above"
    if keys:
        shown += f", or one as {next(iter(keys))}"
    extra = ", b to go back" if back else ""
    while True:
        out.write(f"{prompt} [{shown}] (q to quit{extra}): ")
        out.flush()
        line = read_line()
        if line == "":
            return None
        answer = line.strip().lower()
        if answer in QUIT:
            return None
        if back and answer in BACK:
            return "back"
        if answer.isdigit() and int(answer) in numbers:
            return int(answer)
        if keys and answer.replace(" ", "") in keys:
            return keys[answer.replace(" ", "")]
        out.write(f"Please type one of the numbers shown ({', '.join(map(str, numbers))}).\n")


def ask_move(
    view: Mapping[str, Any],
    read_line: Callable[[], str],
    out: TextIO,
    text: GameText,
    numbers: MenuNumbers | None = None,
) -> dict[str, Any] | None:
    """Prompt until a valid move; None when the input ends or the player quits. The menu is the
    game's (``TextHooks.move_menu``): a move with many variants is one entry and a second question,
    from which ``b`` goes back to the first. ``numbers`` keeps entries' numbers across calls (the
    play loop's, for a whole game); without it the menu is numbered from 1."""
    menu = text.move_menu(list(view.get("legal_moves") or []), view)
    numbered = (numbers or MenuNumbers()).number(menu)
    by_number = dict(numbered)
    while True:
        out.write("Your moves:\n")
        for number, entry in numbered:
            out.write(f"  {number:>2}) {entry['label']}\n")
        choice = _prompt_number([n for n, _ in numbered], "Your move", read_line, out)
        if choice is None or isinstance(choice, str):
            return None
        entry = by_number[choice]
        if "options" not in entry:
            return dict(entry["move"])
        if entry.get("prompt"):
            out.write(f"{entry['prompt']}?\n")
        for number, option in enumerate(entry["options"], 1):
            out.write(f"  {number:>2}) {option['label']}\n")
        options = list(range(1, len(entry["options"]) + 1))
        keys = {str(o["key"]).lower(): n for n, o in enumerate(entry["options"], 1) if o.get("key")}
        variant = _prompt_number(options, "Which one", read_line, out, back=True, keys=keys)
        if variant == "back":
            continue
        return None if variant is None else dict(entry["options"][int(variant) - 1]["move"])


def play_loop(
    client: ApiClient,
    game_id: str,
    token: str,
    *,
    out: TextIO,
    read_line: Callable[[], str],
    auto: str | None = None,
    seed: int = 0,
    quiet: bool = False,
) -> int:
    """Play one seat to the end of the game. Returns the exit status (0: game over)."""
    from bots import choose_move, only_move

    summary = client.game(game_id)
    game_name: str = summary["game"]  # required in GameSummary (openapi.yaml)
    text = text_for(game_name)
    names = seat_names(summary)
    bot_seats = {s["seat"] for s in summary.get("seats") or [] if s.get("bot")}
    warned = False
    rng = random.Random(seed)
    seen = 0
    numbers = MenuNumbers()
    # Every view comes from the seat's view stream (no polling): the view now, then after each change.
    views = client.follow_views(game_id, token, read_timeout=60.0)
    current = _next_view(views)
    while True:
        view = current["view"] or {}
        if current["status"] != "open" and len(names) < len(summary.get("seats") or []):
            # Seats claimed after we looked (the game was still open): learn their names.
            summary = client.game(game_id)
            names = seat_names(summary)
            bot_seats = {s["seat"] for s in summary.get("seats") or [] if s.get("bot")}
        if not quiet and current["version"] > seen:
            for item in client.all_events(game_id, token, after=seen):
                out.write("  " + text.describe_event(item["event"], names) + "\n")
                seen = max(seen, item["version"])  # may run past the view's version: bots are fast
        seen = max(seen, current["version"])
        me = current["seat"]
        if current["status"] == "finished":
            out.write("\n" + text.render_text(view, names) + "\n")
            return 0
        if me in (view.get("awaiting") or []):
            out.write("\n" + text.render_text(view, names) + "\n")
            forced = only_move(view)
            if auto:
                move = choose_move(game_name, auto, view, rng)
                if not quiet:
                    out.write(f"{auto} bot plays: {text.describe_move(move)}\n")
            elif forced is not None:
                # RL-12: the hand discard asks every seat holding cards; one that may only keep
                # need not be asked (nor any seat with a single legal move).
                move = forced
                out.write(f"Only one move is possible: {text.describe_move(move)} (answered for you)\n")
            else:
                asked = ask_move(view, read_line, out, text, numbers)
                if asked is None:
                    out.write(
                        f"\nLeaving the game. Resume with: condottiere play {game_id} --token {token}\n"
                    )
                    return 1
                move = asked
            try:
                client.move(game_id, token, move, expected_version=current["version"], minimal=True)
            except ApiError as error:
                out.write(f"Move refused: {error}\n")
                if error.status not in (409, 412):  # nothing changed: no view will come, read it
                    current = client.view(game_id, token)
                    continue
        elif not quiet:
            waiting = ", ".join(names.get(s, f"seat {s}") for s in view.get("awaiting") or [])
            out.write(f"... waiting for {waiting}\n")
        following = _next_view(views, patience=BOT_PATIENCE_SECONDS)
        while following is None:
            if bot_seats & set(view.get("awaiting") or []) and not warned:
                out.write(
                    "(No bot move for a while: bot seats are played by the server's RQ worker on "
                    "the 'bots' queue. Is it running?)\n"
                )
                warned = True
            following = _next_view(views, patience=BOT_PATIENCE_SECONDS)
        current = following


@overload
def _next_view(views: Iterator[dict[str, Any] | None], patience: None = None) -> dict[str, Any]: ...


@overload
def _next_view(views: Iterator[dict[str, Any] | None], patience: float) -> dict[str, Any] | None: ...


def _next_view(
    views: Iterator[dict[str, Any] | None], patience: float | None = None
) -> dict[str, Any] | None:
    """The next view from a ``follow_views`` iterator, skipping heartbeats; ``None`` once ``patience``
    seconds pass without one (the caller may warn, then wait again)."""
    deadline = None if patience is None else time.monotonic() + patience
    for item in views:
        if item is not None:
            return item
        if deadline is not None and time.monotonic() > deadline:
            return None
    raise ApiError(410, {"detail": "the view stream ended before the game did"})
