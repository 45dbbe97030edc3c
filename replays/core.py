"""Replay a game's event log: fold to any version, view it as any viewer, cut it into chapters,
annotate it and verify it against a stored snapshot.

Everything here is pure and game-agnostic: it speaks :class:`games.base.Game` and the optional
hooks of :class:`games.base.ArchiveHooks`, never a particular game.

Who sees what: while a game runs, every state and event is shown as its viewer may see it
(``game.view``/``game.redact``); once it is over the whole log is public and every viewer gets the
complete (``FULL``) picture. :func:`effective_viewer` is the single place that decides this.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from games.base import FULL, Event, Game, Viewer, archive_hooks, fold


class VersionOutOfRange(ValueError):
    """A version outside ``0..len(log)``."""

    def __init__(self, version: int, last: int):
        super().__init__(f"version {version} is outside 0..{last}")
        self.version = version
        self.last = last


def effective_viewer(finished: bool, viewer: Viewer) -> Viewer:
    """Finished games are public in full; running games are shown to ``viewer`` only."""
    return FULL if finished else viewer


def fold_to(game: Game[Any], events: Sequence[Event], version: int) -> Any:
    """The state after the first ``version`` events (``0``: before the first event)."""
    if not 0 <= version <= len(events):
        raise VersionOutOfRange(version, len(events))
    return fold(game, events[:version])


def is_finished(game: Game[Any], events: Sequence[Event]) -> bool:
    return bool(events) and game.is_over(fold(game, events))


def replay_at(
    game: Game[Any],
    events: Sequence[Event],
    version: int | None,
    viewer: Viewer,
    finished: bool | None = None,
) -> dict[str, Any]:
    """The state at ``version`` (default: the last) as ``viewer`` may see it.

    ``finished`` tells whether the *whole* game is over (then every version is public); when not
    given it is computed from the log.
    """
    last = len(events)
    version = last if version is None else version
    state = fold_to(game, events, version)
    if finished is None:
        finished = version == last and bool(events) and game.is_over(state)
        if not finished and version < last:
            finished = is_finished(game, events)
    return replay_of(game, state, version, last, viewer, finished)


def replay_of(
    game: Game[Any], state: Any, version: int, last: int, viewer: Viewer, finished: bool
) -> dict[str, Any]:
    """What :func:`replay_at` answers, for a ``state`` at ``version`` already computed (of a log of
    ``last`` events; ``finished``: whether the whole game is over)."""
    seen_by = effective_viewer(finished, viewer)
    return {
        "version": version,
        "last_version": last,
        "finished": finished,
        "viewer": _viewer_label(seen_by),
        # Version 0 is the empty log: there is no game state yet to view.
        "state": game.view(state, seen_by) if version > 0 else None,
    }


def replay_as_seat(game: Game[Any], state: Any, version: int, last: int, seat: int) -> dict[str, Any]:
    """A finished game's ``state`` at ``version`` (of ``last``) as ``seat`` saw it then: the seat's
    own view, with the redaction it had live (``game.view(state, seat)``: its hand and legal moves,
    nobody else's hidden cards), although the whole game is public now."""
    return {
        "version": version,
        "last_version": last,
        "finished": True,
        "viewer": _viewer_label(seat),
        "state": game.view(state, seat) if version > 0 else None,
    }


def _viewer_label(viewer: Viewer) -> str:
    if viewer is None:
        return "spectator"
    if viewer == FULL:
        return "full"
    return f"seat {viewer}"


def chapters(game: Game[Any], events: Sequence[Event]) -> list[dict[str, Any]]:
    """The game's chapter index (its ``chapters`` hook), or one chapter spanning the whole log."""
    archive = archive_hooks(game)
    if archive is not None:
        return [dict(chapter, index=i) for i, chapter in enumerate(archive.chapters(events))]
    return [{"index": 0, "title": game.title, "start": 0, "end": len(events)}] if events else []


def summarize(game: Game[Any], state: Any, viewer: Viewer) -> dict[str, Any]:
    archive = archive_hooks(game)
    if archive is not None:
        return archive.summarize(state, viewer)
    return game.view(state, viewer)


def annotate(game: Game[Any], events: Iterable[Event]) -> list[str]:
    """One sentence per event (the game's ``annotate``), from a single fold of the complete log."""
    sentences = []
    state = None
    evolve = game.evolve
    for event in events:
        after = evolve(state, event)
        sentences.append(game.annotate(state, event, after))
        state = after
    return sentences


def walk(game: Game[Any], events: Sequence[Event], stops: Iterable[int]) -> dict[int, Any]:
    """The states at each version in ``stops``, from one fold (no per-event copies kept)."""
    wanted = sorted(set(stops))
    found: dict[int, Any] = {}
    state = None
    position = 0
    evolve = game.evolve
    for stop in wanted:
        if not 0 <= stop <= len(events):
            raise VersionOutOfRange(stop, len(events))
        while position < stop:
            state = evolve(state, events[position])
            position += 1
        found[stop] = state
    return found


def verify(
    game: Game[Any],
    events: Sequence[Event],
    snapshot: dict[str, Any] | None,
    *,
    check_rules: bool = True,
    max_differences: int = 20,
) -> dict[str, Any]:
    """Check a stored game: the log against the rules (``game.verify_log``) and the fold of the log
    up to the stored snapshot's version against the snapshot ``{"version", "state"}`` (a live game's
    snapshot may be a few versions behind its log: it is not rewritten at every move; a finished
    game's is at its end). Divergences are reported, never fixed.
    """
    report: dict[str, Any] = {"version": len(events), "log_error": None, "snapshot": None}
    if check_rules:
        error = game.verify_log(events)
        report["log_error"] = error.to_dict() if error is not None else None
    if snapshot is not None:
        snap_version = int(snapshot.get("version", -1))
        entry: dict[str, Any] = {"version": snap_version, "matches": False, "differences": []}
        if not 0 <= snap_version <= len(events):
            entry["differences"].append({"path": "version", "log": len(events), "snapshot": snap_version})
        else:
            folded = _json_roundtrip(game.state_to_json(fold(game, events[:snap_version])))
            stored = _json_roundtrip(snapshot.get("state"))
            entry["differences"] = list(_differences(folded, stored, "", max_differences))
            entry["matches"] = not entry["differences"]
        report["snapshot"] = entry
    report["ok"] = report["log_error"] is None and (snapshot is None or report["snapshot"]["matches"])
    return report


def _json_roundtrip(value: Any) -> Any:
    import orjson

    return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


def _differences(log: Any, snap: Any, path: str, limit: int) -> Iterator[dict[str, Any]]:
    """Paths where two JSON documents differ (depth first, at most ``limit``)."""
    found = 0
    stack = [(path, log, snap)]
    while stack and found < limit:
        here, a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), reverse=True):
                stack.append((f"{here}/{key}", a.get(key, _MISSING), b.get(key, _MISSING)))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i in range(len(a) - 1, -1, -1):
                stack.append((f"{here}/{i}", a[i], b[i]))
        elif a != b:
            found += 1
            yield {"path": here or "/", "log": _shown(a), "snapshot": _shown(b)}


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def _shown(value: Any) -> Any:
    return None if value is _MISSING else value
