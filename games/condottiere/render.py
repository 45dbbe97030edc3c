"""Condottiere's export hooks: a compact state summary and its rendering as HTML (an SVG map of
the 17 regions with their owners, and the battle's strengths) and as Markdown.

The map is schematic: each city sits at an approximate position on a stylised Italy, and each
border of ``MAP-1`` is drawn as a line between two cities. Colours are the CSS variables
``--seat-<n>`` that the generic page defines, so the legend and the map always agree.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from games.condottiere import views
from games.condottiere.annotate import annotate
from games.condottiere.text import CARD_NAMES  # the same short names as the text board

# Approximate positions on a 420 x 520 canvas (north up): a schematic, not a survey.
CITY_XY: dict[str, tuple[int, int]] = {
    "Torino": (52, 112),
    "Milano": (128, 78),
    "Venezia": (282, 64),
    "Genova": (96, 176),
    "Mantova": (204, 102),
    "Ferrara": (262, 132),
    "Parma": (156, 150),
    "Modena": (206, 170),
    "Bologna": (258, 196),
    "Lucca": (160, 236),
    "Firenze": (222, 262),
    "Siena": (206, 330),
    "Urbino": (296, 250),
    "Spoleto": (282, 330),
    "Ancona": (352, 286),
    "Roma": (258, 404),
    "Napoli": (350, 458),
}

# A stylised outline of the peninsula (north-west Alps to Campania), for orientation only.
_COAST = (
    "M18,70 C60,30 150,34 230,40 C270,36 310,40 318,58 C300,74 292,92 300,110 "
    "C320,150 332,200 360,240 C392,280 404,300 398,330 C392,362 400,400 412,430 "
    "C418,470 392,500 360,506 C330,500 318,480 300,466 C272,444 248,430 226,410 "
    "C206,388 186,360 176,330 C162,292 140,262 118,236 C96,212 74,200 48,196 "
    "C26,180 14,150 16,120 C16,100 14,84 18,70 Z"
)

RENDER_CSS = """
.cd-chapter { display:grid; grid-template-columns: 340px 1fr; gap: 22px; align-items:start; }
@media (max-width: 760px) { .cd-chapter { grid-template-columns: 1fr; } }
.cd-map { width: 100%; height: auto; background:#e9f1f5; border-radius: 10px; border:1px solid #c9d6dc; }
.cd-map .coast { fill:#f3ead4; stroke:#c8b68e; stroke-width:1.5; }
.cd-map .border { stroke:#9b8a6d; stroke-width:1.4; stroke-dasharray: 3 3; opacity:.8; }
.cd-map .city { stroke:#4a3b28; stroke-width:1.2; }
.cd-map .free { fill:#fffdf6; }
.cd-map .battle { fill:none; stroke:#111; stroke-width:2.5; stroke-dasharray: 4 2; }
.cd-map text { font: 10.5px sans-serif; fill:#2b2118; paint-order: stroke; stroke:#f3ead4; stroke-width:3px; }
.cd-map .pope { font: 13px serif; stroke:none; }
.cd-side h3 { margin: 0 0 8px; font: 600 13px sans-serif; color:#7a6a55; text-transform: uppercase;
  letter-spacing:.08em; }
.cd-result { font-size: 16px; margin: 0 0 12px; }
table.cd-lines { border-collapse: collapse; width:100%; font: 13px sans-serif; }
table.cd-lines td { padding: 5px 6px; border-top: 1px solid #eadfc8; vertical-align: middle; }
table.cd-lines td.cd-name { width: 120px; white-space: nowrap; }
table.cd-lines td.cd-barcell { width: 160px; }
table.cd-lines tr.won td { background: #fdf3d7; }
.cd-bar { height: 12px; border-radius: 6px; min-width: 2px; display:inline-block; vertical-align: middle; }
.cd-str { font-weight: 700; width: 34px; text-align:right; }
.cd-card { display:inline-block; font: 11px sans-serif; padding: 1px 5px; margin: 1px 2px 1px 0;
  border-radius: 4px; background:#efe6d2; border:1px solid #d8c9a8; }
.cd-card.special { background:#e7e0f3; border-color:#c5b8de; }
.cd-card.hidden { background:#555; color:#eee; border-color:#333; }
.cd-owned { font: 12px sans-serif; color:#5b4d3b; margin-top: 12px; }
"""


@lru_cache(maxsize=1)
def borders() -> list[tuple[str, str]]:
    """The 34 borders of MAP-1, from the engine's map data."""
    from games.condottiere.board import ADJACENT, REGIONS

    return sorted(
        (REGIONS[i], REGIONS[j])
        for i, mask in enumerate(ADJACENT)
        for j in range(len(REGIONS))
        if j > i and (mask >> j) & 1
    )


def summarize(state: Any, viewer: Any) -> dict[str, Any]:
    """What an export shows after a battle: owners, the Pope, the token, each line and strength."""
    if state is None:
        return {"regions": {}, "players": [], "pope": None, "condottiere": None, "phase": None}
    view = views.view(state, viewer)
    players = []
    for player in view.get("players") or []:
        players.append(
            {
                "seat": player.get("seat"),
                "regions": list(player.get("regions") or []),
                "strength": player.get("strength"),
                "line": [entry.get("card") for entry in player.get("line") or []],
                "hand_size": player.get("hand_size"),
            }
        )
    return {
        "phase": view.get("phase"),
        "regions": dict(view.get("regions") or {}),
        "pope": view.get("pope"),
        "condottiere": view.get("condottiere"),
        "battle": view.get("battle"),
        "players": players,
        "winners": view.get("winners"),
        "match": view.get("match"),
    }


def annotator_for(events: Any, viewer: Any):
    """Sentences for a viewer of a running game: the engine's sentence for the redacted event. The
    engine quotes only public figures (strengths count face-up cards, OPT-HID-4), which
    tests/archive/test_export_security.py checks by comparing exports of games that differ only in
    a face-down card."""
    # The engine's functions themselves (GAME.redact, GAME.annotate delegate to them): this module
    # is a leaf under the package, which attaches it, so it does not import the package back.
    redact = views.redact
    return lambda before, event, after: annotate(before, redact(event, viewer), after)


def _name(chapter: Mapping[str, Any], seat: Any) -> str:
    names = chapter.get("players") or []
    if isinstance(seat, int) and seat < len(names) and names[seat]:
        return str(names[seat])
    return f"Seat {seat}"


def _card(card: str | None) -> str:
    if card is None:
        return '<span class="cd-card hidden">?</span>'
    special = "" if card.startswith("m") else " special"
    return f'<span class="cd-card{special}">{html.escape(CARD_NAMES.get(card, card))}</span>'


def map_svg(summary: Mapping[str, Any], focus: str | None = None) -> str:
    owners = summary.get("regions") or {}
    parts = [
        '<svg class="cd-map" viewBox="0 0 420 520" xmlns="http://www.w3.org/2000/svg" role="img" '
        'aria-label="Map of the 17 regions and their owners">',
        f'<path class="coast" d="{_COAST}"/>',
    ]
    for a, b in borders():
        (x1, y1), (x2, y2) = CITY_XY[a], CITY_XY[b]
        parts.append(f'<line class="border" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    for city, (x, y) in CITY_XY.items():
        owner = owners.get(city)
        fill = f'style="fill:var(--seat-{owner % 6})"' if isinstance(owner, int) else 'class="free"'
        cls = "city" if isinstance(owner, int) else "city free"
        parts.append(
            f'<circle class="{cls}" {fill} cx="{x}" cy="{y}" r="11" data-region="{city}">'
            f"<title>{city}</title></circle>"
        )
        if city == focus:
            parts.append(f'<circle class="battle" cx="{x}" cy="{y}" r="16"/>')
        if city == summary.get("pope"):
            parts.append(f'<text class="pope" x="{x - 5}" y="{y + 4}">✝</text>')
        parts.append(f'<text x="{x + 14}" y="{y + 4}">{city}</text>')
    parts.append("</svg>")
    return "".join(parts)


def board_template() -> str:
    """The map with every region free, for the web client (web/): the same drawing as the export's,
    whose circles (``data-region``) the page colours from each view, so the map is drawn once."""
    return map_svg({})


def _standings_html(summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
    esc = html.escape
    rows = []
    players = sorted(
        summary.get("players") or [], key=lambda p: (-len(p.get("regions") or []), p.get("seat"))
    )
    winners = set(summary.get("winners") or [])
    for player in players:
        seat = player.get("seat")
        regions = sorted(player.get("regions") or [])
        won = ' class="won"' if seat in winners else ""
        chip = f'<span class="chip" style="background:var(--seat-{seat % 6})"></span>'
        rows.append(
            f'<tr{won}><td class="cd-name">{chip}'
            f'{esc(_name(chapter, seat))}</td><td class="cd-str">{len(regions)}</td>'
            f"<td>{esc(', '.join(regions)) or '—'}</td></tr>"
        )
    pope = (
        f'<div class="cd-owned">The Pope stands in {esc(summary["pope"])}.</div>'
        if summary.get("pope")
        else ""
    )
    return (
        '<div class="cd-chapter">'
        + map_svg(summary)
        + '<div class="cd-side"><h3>Regions held</h3>'
        + f'<table class="cd-lines">{"".join(rows)}</table>{pope}</div></div>'
    )


def render_chapter_html(summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
    esc = html.escape
    if chapter.get("index") == -1:
        return _standings_html(summary, chapter)
    strengths = chapter.get("strengths")
    players = summary.get("players") or []
    if strengths is None:
        strengths = [p.get("strength") or 0 for p in players]
    winner = chapter.get("winner")
    top = max([s for s in strengths if isinstance(s, int)] + [1])
    region = chapter.get("region")
    if "winner" in chapter:
        if winner is None:
            outcome = "No winner" + (f": {esc(region)} stays free" if region else "")
        else:
            outcome = f"<b>{esc(_name(chapter, winner))}</b> wins" + (
                f" {esc(region)}" if region else " the final battle"
            )
            if isinstance(winner, int) and winner < len(strengths):
                outcome += f" with strength {strengths[winner]}"
        if chapter.get("cause") and chapter["cause"] != "all_passed":
            outcome += f" ({esc(str(chapter['cause']).replace('_', ' '))})"
    else:
        outcome = ""
    rows = []
    lines_by_seat = {p.get("seat"): p for p in players}
    for seat, strength in enumerate(strengths):
        line = (lines_by_seat.get(seat) or {}).get("line") or []
        played = (
            chapter.get("cards", {}).get(str(seat)) if isinstance(chapter.get("cards"), Mapping) else None
        )
        cards = played if played is not None else line
        width = int(150 * (strength or 0) / top)
        won = ' class="won"' if seat == winner else ""
        bar = f'<span class="cd-bar" style="width:{width}px;background:var(--seat-{seat % 6})"></span>'
        rows.append(
            f'<tr{won}><td class="cd-name">{esc(_name(chapter, seat))}</td>'
            f'<td class="cd-str">{strength}</td>'
            f'<td class="cd-barcell">{bar}</td>'
            f"<td>{''.join(_card(c) for c in cards) or '<i>—</i>'}</td></tr>"
        )
    owned = []
    for player in players:
        count = len(player.get("regions") or [])
        owned.append(f"{esc(_name(chapter, player.get('seat')))}: {count}")
    return (
        '<div class="cd-chapter">'
        + map_svg(summary, focus=region)
        + '<div class="cd-side">'
        + (f'<p class="cd-result">{outcome}</p>' if outcome else "")
        + "<h3>Battle lines and strengths</h3>"
        + f'<table class="cd-lines">{"".join(rows)}</table>'
        + (f'<div class="cd-owned">Regions held: {" · ".join(owned)}</div>' if owned else "")
        + "</div></div>"
    )


def _md_name(chapter: Mapping[str, Any], seat: Any) -> str:
    """A player's name made inert in Markdown (no table break, no HTML)."""
    return _name(chapter, seat).replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")


def render_chapter_markdown(summary: Mapping[str, Any], chapter: Mapping[str, Any]) -> str:
    strengths = chapter.get("strengths") or [p.get("strength") or 0 for p in summary.get("players") or []]
    winner = chapter.get("winner")
    region = chapter.get("region")
    lines = []
    if "winner" in chapter:
        if winner is None:
            lines.append("**No winner.**" + (f" {region} stays free." if region else ""))
        else:
            lines.append(
                f"**{_md_name(chapter, winner)} wins {region or 'the final battle'}** "
                f"with strength {strengths[winner]}."
            )
        lines.append("")
    lines.append("| player | strength | cards played |")
    lines.append("| --- | ---: | --- |")
    cards_by_seat = chapter.get("cards") if isinstance(chapter.get("cards"), Mapping) else {}
    for seat, strength in enumerate(strengths):
        cards = cards_by_seat.get(str(seat)) or []
        shown = ", ".join(CARD_NAMES.get(c, "?") if c else "?" for c in cards) or "—"
        mark = " 🏆" if seat == winner else ""
        lines.append(f"| {_md_name(chapter, seat)}{mark} | {strength} | {shown} |")
    owners = summary.get("regions") or {}
    held: dict[Any, list[str]] = {}
    for city, owner in owners.items():
        if owner is not None:
            held.setdefault(owner, []).append(city)
    if held:
        lines.append("")
        lines.append(
            "Regions: "
            + "; ".join(f"{_md_name(chapter, s)}: {', '.join(sorted(c))}" for s, c in sorted(held.items()))
        )
    if summary.get("pope"):
        lines.append(f"The Pope is in {summary['pope']}.")
    return "\n".join(lines)
