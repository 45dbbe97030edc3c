"""Exports of a game's history (JSON log, annotated JSON, Markdown, one self-contained HTML page,
NDJSON bulk) and validation of an imported log.

The exchange format (export and import) is one JSON object::

    {"format": "game-log", "format_version": 1, "game": "condottiere", "id": "...",
     "config": {...}, "rules_revision": r, "players": ["Ann", "Bob", ...], "events": [...],
     "version": n, "finished": true, "result": {"winners": [...], "reason": "..."}}

``rules_revision`` is the rules revision the log was recorded under (``games.base``: the one its
first event's configuration names, 1 when it names none); the engine replays and verifies the log
under it, and an import that states one must state the log's.

A finished game's export is complete (every hand, every face-down card); an unfinished game's is
redacted for the viewer who asks (``"redacted_for"`` says for whom) and cannot be imported.
Game-specific rendering (maps, strengths) comes from the game's ``render_chapter_*`` hooks; this
module only frames it.

Longer than 500 lines because it is the exchange format's one module: the document written by
:func:`export_log` and the checks :func:`validate_import` makes of one that comes back (format,
version, rules revision, players, the replay) are read and changed together, beside the renderings
of the same history (annotated JSON, Markdown, the HTML page with its inline stylesheet, NDJSON).
"""

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import orjson

from games import game_names, get_game
from games.base import (
    FULL,
    OPTION,
    RULESET,
    Event,
    Game,
    GameError,
    Viewer,
    archive_hooks,
    archive_labels,
    configure_recorded,
    fixed_chance_keys,
    log_revision,
)
from replays import analysis_export
from replays.core import _viewer_label, effective_viewer, summarize
from replays.core import chapters as chapter_index

FORMAT = "game-log"
FORMAT_VERSION = 1
ANNOTATED_FORMAT = "game-history"
MAX_IMPORT_EVENTS = 100_000


# -- the log -----------------------------------------------------------------------------------


def export_log(
    game: Game[Any],
    events: Sequence[Event],
    *,
    players: Sequence[str | None],
    finished: bool,
    viewer: Viewer = None,
    game_id: str | None = None,
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The exchange document of a game, as ``viewer`` may see it (everything once finished)."""
    seen_by = effective_viewer(finished, viewer)
    shown = list(events) if seen_by == FULL else [game.redact(e, seen_by) for e in events]
    config = (shown[0].get("config") if shown else None) or {}
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game.name,
        "id": game_id,
        "config": config,
        "rules_revision": log_revision(config),
        "players": list(players),
        "events": shown,
        "version": len(events),
        "finished": finished,
        "result": dict(result) if (finished and result is not None) else None,
    }
    if seen_by != FULL:
        doc["redacted_for"] = _viewer_label(seen_by)
    return doc


def annotated_history(
    game: Game[Any],
    events: Sequence[Event],
    *,
    players: Sequence[str | None],
    finished: bool,
    viewer: Viewer = None,
    game_id: str | None = None,
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The export document plus one sentence per event and a state summary after each chapter."""
    doc = export_log(
        game, events, players=players, finished=finished, viewer=viewer, game_id=game_id, result=result
    )
    seen_by = effective_viewer(finished, viewer)
    # Chapters are cut from the log as the viewer sees it, so they cannot carry a hidden card.
    index = chapter_index(game, doc["events"])
    ends = {chapter["end"] for chapter in index}
    sentences: list[str] = []
    summaries: dict[int, dict[str, Any]] = {}
    state = None
    evolve = game.evolve
    sentence = _annotator(game, events, seen_by)
    for position, event in enumerate(events):
        after = evolve(state, event)
        sentences.append(sentence(state, event, after))
        state = after
        if position + 1 in ends:
            summaries[position + 1] = summarize(game, state, seen_by)
    if 0 in ends:
        summaries[0] = summarize(game, None, seen_by)
    doc["format"] = ANNOTATED_FORMAT
    doc["title"] = game.title
    doc["annotations"] = sentences
    doc["chapters"] = [dict(chapter, summary=summaries.get(chapter["end"])) for chapter in index]
    doc["final"] = summarize(game, state, seen_by) if events else None
    return doc


def annotations(
    game: Game[Any], events: Sequence[Event], viewer: Viewer, after: int, limit: int
) -> list[dict[str, Any]]:
    """``[{"version", "text"}]`` for the events with versions ``after + 1 .. after + limit``, as
    ``viewer`` may read them (one fold up to the last of them)."""
    sentence = _annotator(game, events, viewer)
    stop = min(len(events), after + limit)
    evolve = game.evolve
    state = None
    page: list[dict[str, Any]] = []
    for position in range(stop):
        event = events[position]
        following = evolve(state, event)
        if position >= after:
            page.append({"version": position + 1, "text": sentence(state, event, following)})
        state = following
    return page


def _annotator(game: Game[Any], events: Sequence[Event], viewer: Viewer) -> Callable[[Any, Event, Any], str]:
    """``(before, event, after) -> sentence`` as ``viewer`` may read it.

    ``game.annotate`` sees complete states, and its sentences may quote what they show (a strength
    counting a face-down card). For anyone but FULL, the game's ``annotator_for`` hook decides
    what is safe; without one, the redacted event is annotated without any state, so no sentence
    can carry a hidden card."""
    if viewer == FULL:
        return game.annotate
    archive = archive_hooks(game)
    if archive is not None:
        annotator: Callable[[Any, Event, Any], str] = archive.annotator_for(events, viewer)
        return annotator
    redact, annotate = game.redact, game.annotate
    return lambda before, event, after: annotate(None, redact(event, viewer), None)


# -- Markdown --------------------------------------------------------------------------------


def _player_name(doc: Mapping[str, Any], seat: int) -> str:
    names = doc.get("players") or []
    name = names[seat] if seat < len(names) else None
    return f"{name} (seat {seat})" if name else f"Seat {seat}"


def _result_line(doc: Mapping[str, Any]) -> str:
    result = doc.get("result")
    if not doc.get("finished") or not result:
        return "In progress"
    winners = result.get("winners") or []
    who = ", ".join(_player_name(doc, s) for s in winners) or "nobody"
    return f"Won by {who} ({result.get('reason', 'unknown')})"


def to_markdown(game: Game[Any], doc: Mapping[str, Any]) -> str:
    archive = archive_hooks(game)
    render = archive.render_chapter_markdown if archive is not None else None
    title = doc.get("title") or game.title
    lines = [f"# {title} — game {doc['id']}" if doc.get("id") else f"# {title}", ""]
    players = ", ".join(_player_name(doc, s) for s in range(len(doc.get("players") or [])))
    lines.append(f"- **Players:** {_md_escape(players)}")
    lines.append(f"- **Result:** {_md_escape(_result_line(doc))}")
    lines.append(f"- **Events:** {doc.get('version')}")
    if doc.get("redacted_for"):
        lines.append(
            f"- **Shown as:** {doc['redacted_for']} (the game is still running; hidden cards stay hidden)"
        )
    config = doc.get("config") or {}
    shown = config if archive is None else archive.export_config(config)
    lines.append(f"- **Configuration:** `{orjson.dumps(shown).decode()}`")
    lines.append(f"- **Rules revision:** {log_revision(config)}")
    lines.append("")
    annotations = doc.get("annotations") or []
    evals = analysis_export.by_event(doc)

    def line(position: int) -> str:
        row = evals.get(position)
        note = f" — *{_md_escape(analysis_export.comment(row))}*" if row is not None else ""
        return f"{position + 1}. {_md_escape(annotations[position])}{note}"

    previous_end = 0
    for chapter in doc.get("chapters") or []:
        lines.append(f"## {chapter['title']}")
        lines.append("")
        if chapter.get("summary") is not None and render is not None:
            lines.append(render(chapter["summary"], dict(chapter, players=doc.get("players") or [])).rstrip())
            lines.append("")
        lines.append("<details><summary>Events</summary>")
        lines.append("")
        for position in range(previous_end, chapter["end"]):
            lines.append(line(position))
        lines.append("")
        lines.append("</details>")
        lines.append("")
        previous_end = chapter["end"]
    if previous_end < len(annotations):
        lines.append("## " + ("After the last battle" if doc.get("chapters") else "Events"))
        lines.append("")
        for position in range(previous_end, len(annotations)):
            lines.append(line(position))
        lines.append("")
    lines += analysis_export.markdown_section(doc, lambda seat: _md_escape(_player_name(doc, seat)))
    return "\n".join(lines)


def _md_escape(text: str) -> str:
    """Text made inert in Markdown renderers that pass HTML through."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")


# -- HTML ------------------------------------------------------------------------------------

SEAT_COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#d68910", "#7d3c98", "#148f77"]

_CSS = """
:root { --ink:#2b2118; --paper:#f7f1e3; --card:#fffaf0; --line:#d9ccb0; --muted:#7a6a55;
  %(seats)s }
* { box-sizing: border-box; }
body { margin:0; background:var(--paper); color:var(--ink);
  font: 15px/1.5 Georgia, 'Times New Roman', serif; }
header { padding: 28px 40px 20px; background: linear-gradient(135deg,#5b3a1a,#8b5a2b); color:#fdf6e3; }
header h1 { margin:0 0 6px; font-size: 30px; letter-spacing: .5px; }
header .sub { opacity:.9; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 60px; }
.players { display:flex; flex-wrap:wrap; gap:10px; margin: 14px 0 0; padding:0; list-style:none; }
.players li { background: rgba(255,255,255,.12); border-radius: 999px; padding: 4px 12px 4px 6px; }
.chip { display:inline-block; width:14px; height:14px; border-radius:50%%; vertical-align:-2px;
  margin-right:6px; border: 1px solid rgba(0,0,0,.25); }
.winner { font-weight: bold; }
.banner { margin: 0 0 20px; padding: 14px 18px; border-radius: 10px; background: var(--card);
  border: 1px solid var(--line); font-size: 17px; }
.banner.running { border-color:#b9770e; background:#fef5e7; }
nav.timeline { display:flex; flex-wrap:wrap; gap:6px; margin: 6px 0 26px; }
nav.timeline a { text-decoration:none; color:#fff; font: 12px/1 sans-serif; padding: 6px 8px;
  border-radius: 6px; background:#9c8f7a; }
section.chapter { background: var(--card); border: 1px solid var(--line); border-radius: 12px;
  padding: 18px 22px; margin: 0 0 22px; box-shadow: 0 1px 3px rgba(60,40,10,.08); }
section.chapter h2 { margin: 0 0 12px; font-size: 21px; }
details { margin-top: 12px; }
details summary { cursor: pointer; color: var(--muted); font: 13px sans-serif; }
ol.events { font: 13px/1.45 sans-serif; color:#3d3428; margin: 8px 0 0; padding-left: 46px; }
ol.events li { margin: 1px 0; }
footer { color: var(--muted); font: 12px sans-serif; text-align:center; padding: 20px; }
%(game_css)s
"""


def to_html(game: Game[Any], doc: Mapping[str, Any]) -> str:
    """One self-contained page: inline CSS and SVG, no script, no external resource."""
    archive = archive_hooks(game)
    render = archive.render_chapter_html if archive is not None else None
    esc = html.escape
    seats = len(doc.get("players") or [])
    seat_vars = " ".join(f"--seat-{i}:{c};" for i, c in enumerate(SEAT_COLOURS))
    game_css = (archive.render_css if archive is not None else "") or ""
    css = _CSS % {"seats": seat_vars, "game_css": game_css}
    evals = analysis_export.by_event(doc)
    if evals:
        css += analysis_export.CSS
    result = doc.get("result") or {}
    winners = set(result.get("winners") or []) if doc.get("finished") else set()
    title = doc.get("title") or game.title
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)} — {esc(str(doc.get('id') or 'match'))}</title>",
        f"<style>{css}</style></head><body>",
        "<header>",
        f"<h1>{esc(title)}</h1>",
        f'<div class="sub">Game {esc(str(doc.get("id") or ""))} · {doc.get("version")} events · '
        f"{esc(_config_line(game, doc.get('config') or {}))}</div>",
        '<ul class="players">',
    ]
    for seat in range(seats):
        cls = ' class="winner"' if seat in winners else ""
        crown = " ♛" if seat in winners else ""
        parts.append(
            f'<li{cls}><span class="chip" style="background:var(--seat-{seat % 6})"></span>'
            f"{esc(_player_name(doc, seat))}{crown}</li>"
        )
    parts.append("</ul></header><main>")
    running = "" if doc.get("finished") else " running"
    banner = esc(_result_line(doc))
    if doc.get("redacted_for"):
        banner += f" — shown as {esc(doc['redacted_for'])}: hidden cards stay hidden until the game ends"
    parts.append(f'<div class="banner{running}">{banner}</div>')
    if doc.get("final") is not None and render is not None and doc.get("events"):
        parts.append('<section class="chapter" id="final"><h2>Final position</h2>')
        parts.append(
            render(
                doc["final"], {"title": "Final position", "index": -1, "players": doc.get("players") or []}
            )
        )
        parts.append("</section>")
    chapters = doc.get("chapters") or []
    if chapters:
        parts.append('<nav class="timeline">')
        for chapter in chapters:
            winner = chapter.get("winner")
            colour = f"var(--seat-{winner % 6})" if isinstance(winner, int) else "#9c8f7a"
            label = chapter.get("region") or "Final"
            number = chapter.get("battle", chapter["index"] + 1)
            parts.append(
                f'<a href="#chapter-{chapter["index"]}" style="background:{colour}" '
                f'title="{esc(chapter["title"])}">{number}. {esc(str(label))}</a>'
            )
        parts.append("</nav>")
    annotations = doc.get("annotations") or []
    previous_end = 0
    for chapter in chapters:
        parts.append(f'<section class="chapter" id="chapter-{chapter["index"]}">')
        parts.append(f"<h2>{esc(chapter['title'])}</h2>")
        if chapter.get("summary") is not None and render is not None:
            parts.append(render(chapter["summary"], dict(chapter, players=doc.get("players") or [])))
        parts.append(_events_html(annotations, previous_end, chapter["end"], evals=evals))
        parts.append("</section>")
        previous_end = chapter["end"]
    if previous_end < len(annotations):
        heading = "After the last battle" if chapters else "Events"
        parts.append(f'<section class="chapter"><h2>{heading}</h2>')
        if not chapters and doc.get("final") is not None and render is not None:
            parts.append(
                render(doc["final"], {"title": heading, "index": 0, "players": doc.get("players") or []})
            )
        parts.append(_events_html(annotations, previous_end, len(annotations), open_=True, evals=evals))
        parts.append("</section>")
    section = analysis_export.html_section(doc, lambda seat: _player_name(doc, seat))
    if section:  # without an analysis the page is byte for byte what it was before analyses
        parts.append(section)
    parts.append(
        f"<footer>Exported in format {esc(str(doc.get('format')))} v{doc.get('format_version')}.</footer>"
    )
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _events_html(
    annotations: Sequence[str],
    start: int,
    end: int,
    open_: bool = False,
    evals: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    if end <= start:
        return ""
    found = evals or {}
    items = "".join(
        f"<li>{html.escape(annotations[i])}"
        f"{analysis_export.html_comment(found[i]) if i in found else ''}</li>"
        for i in range(start, end)
    )
    opened = " open" if open_ else ""
    return (
        f"<details{opened}><summary>Events {start + 1}–{end} ({end - start})</summary>"
        f'<ol class="events" start="{start + 1}">{items}</ol></details>'
    )


def _config_line(game: Game[Any], config: Mapping[str, Any]) -> str:
    labels = archive_labels(game, config)
    parts = []
    if labels.get(RULESET):
        parts.append(f"ruleset {labels[RULESET][0]}")
    if "players" in config:
        parts.append(f"{config['players']} players")
    enabled = labels.get(OPTION) or []
    parts.append("options: " + (", ".join(enabled) if enabled else "none"))
    parts.append(f"rules revision {log_revision(config)}")
    return " · ".join(parts)


# -- NDJSON ------------------------------------------------------------------------------------


def ndjson_lines(documents: Iterable[Mapping[str, Any]]) -> Iterable[bytes]:
    for document in documents:
        yield orjson.dumps(document) + b"\n"


# -- import ------------------------------------------------------------------------------------


class ImportRefused(Exception):
    """An import the archive refuses; ``index``/``rule`` locate the first offending event."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        index: int | None = None,
        rule: str | None = None,
        event: Event | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.index = index
        self.rule = rule
        self.event = event

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.index is not None:
            data["index"] = self.index
        if self.rule is not None:
            data["rule"] = self.rule
        if self.event is not None:
            data["event"] = self.event
        return data


def check_import_shape(doc: Any) -> Game[Any]:
    """The cheap part of :func:`validate_import`, without replaying anything: the format, the game
    and that the events are a list of typed objects (a pass over the list, no rule). Returns the
    game's engine; raises :class:`ImportRefused` with the first problem."""
    if not isinstance(doc, Mapping):
        raise ImportRefused("INVALID_EXPORT", "the body must be a JSON object")
    if doc.get("format") not in (FORMAT, ANNOTATED_FORMAT):
        raise ImportRefused("UNSUPPORTED_FORMAT", f"format must be {FORMAT!r}")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ImportRefused("UNSUPPORTED_FORMAT_VERSION", f"format_version must be {FORMAT_VERSION}")
    if doc.get("redacted_for"):
        raise ImportRefused("REDACTED_LOG", "a redacted log cannot be imported: it misses hidden cards")
    name = doc.get("game")
    if not isinstance(name, str) or name not in game_names():
        raise ImportRefused("UNKNOWN_GAME", f"game must be one of {', '.join(game_names())}")
    game = get_game(name)
    events = doc.get("events")
    if not isinstance(events, list) or not events:
        raise ImportRefused("INVALID_EXPORT", "events must be a non-empty list")
    if len(events) > MAX_IMPORT_EVENTS:
        raise ImportRefused("LOG_TOO_LONG", f"at most {MAX_IMPORT_EVENTS} events")
    for index, event in enumerate(events):
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise ImportRefused("INVALID_EVENT", "every event must be an object with a type", index=index)
    return game


def validate_import(doc: Any) -> dict[str, Any]:
    """Check an exchange document completely and return ``{"game", "config", "players", "events",
    "result"}``; raise :class:`ImportRefused` with the first problem. The log is replayed through
    the rules (``game.verify_log``), must reach the end of the game, and its result must match the
    one declared (when declared)."""
    game = check_import_shape(doc)
    events = doc["events"]
    try:
        # The revision the log names (1 when it names none) is kept: the log is replayed under it.
        config = configure_recorded(game, events[0].get("config") or {})
    except GameError as error:
        raise ImportRefused(error.code, error.message, index=0, rule=error.rule) from None
    except Exception:
        raise ImportRefused(
            "INVALID_EVENT", "the first event must record a valid configuration", index=0
        ) from None
    declared_config = doc.get("config")
    if declared_config not in (None, {}):
        try:
            same = (
                isinstance(declared_config, Mapping)
                and configure_recorded(game, _with_recorded_chance(game, declared_config, config)) == config
            )
        except Exception:
            same = False
        if not same:
            raise ImportRefused(
                "CONFIG_MISMATCH", "config differs from the configuration recorded in the log"
            )
    declared_revision = doc.get("rules_revision")
    if declared_revision is not None and declared_revision != log_revision(config):
        raise ImportRefused(
            "REVISION_MISMATCH",
            f"rules_revision {declared_revision!r} is not the revision the log was recorded under"
            f" ({log_revision(config)})",
        )
    seats = game.seat_count(config)
    players = doc.get("players")
    if players is None:
        players = [None] * seats
    if (
        not isinstance(players, list)
        or len(players) != seats
        or not all(p is None or (isinstance(p, str) and 0 < len(p) <= 64) for p in players)
    ):
        raise ImportRefused("INVALID_PLAYERS", f"players must be a list of {seats} names (or nulls)")
    try:
        log_error = game.verify_log(events)
    except Exception:  # a log malformed in a way the engine did not foresee is still refused
        raise ImportRefused("INVALID_LOG", "the log could not be replayed") from None
    if log_error is not None:
        raise ImportRefused(
            log_error.code,
            log_error.message,
            index=log_error.index,
            rule=log_error.rule,
            event=log_error.event,
        )
    state = None
    for event in events:
        state = game.evolve(state, event)
    if not game.is_over(state):
        raise ImportRefused("LOG_INCOMPLETE", "the log does not reach the end of the game", index=len(events))
    result = game.result(state) or {}  # a game that is over has a result
    declared = doc.get("result")
    if declared is not None and (
        not isinstance(declared, Mapping)
        or sorted(declared.get("winners") or []) != sorted(result.get("winners") or [])
        or ("reason" in declared and declared["reason"] != result.get("reason"))
    ):
        raise ImportRefused("RESULT_MISMATCH", "the declared result is not the one the log reaches")
    return {
        "game": game,
        "config": config,
        "players": players,
        "events": events,
        "result": result,
        "state": state,
    }


def _with_recorded_chance(
    game: Game[Any], declared: Mapping[str, Any], recorded: Mapping[str, Any]
) -> Mapping[str, Any]:
    """The exchange document's config may omit what fixes the chance outcomes (a deck order) that
    the first event records (``games.base.fixed_chance_keys``)."""
    merged = dict(declared)
    for key in fixed_chance_keys(game):
        if merged.get(key) is None and recorded.get(key) is not None:
            merged[key] = recorded[key]
    return merged
