"""A stored computer analysis carried by the exports, as Lichess's PGN carries ``[%eval]`` and its
comments: the annotated JSON history gains the analysis (each decision with the event it made),
Markdown and HTML a comment after each analysed move and a table per seat at the end, and an
observation its decision's values as training labels. Pure: documents in, documents and text out.

Only a finished game's export carries one (an analysis exists only once a game is over: its values
read the real deals). The comment's shape::

    [%win 0.34 > 0.20] [%best 0.31] Mistake (-0.11): best was play a 5.

``%win`` is the decider's chance to win before the decision and after the move played, from its
information set at that moment; ``%best`` its chance after the best move found.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

WORDS = {"inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}


def attach(doc: dict[str, Any], analysis: Mapping[str, Any] | None) -> dict[str, Any]:
    """``doc`` (an annotated history) with ``analysis`` (``replays.analysis.document``) under
    ``"analysis"``, each decision numbered by the event its move made (``event``: 1-based, as the
    history's annotations are). Nothing is added without an analysis or before the game is over."""
    if analysis is None or not doc.get("finished"):
        return doc
    decisions = [dict(row, event=row["version"] + 1) for row in analysis["decisions"]]
    doc["analysis"] = {
        "analysis_version": analysis["analysis_version"],
        "thresholds": analysis["thresholds"],
        "seats": analysis["seats"],
        "decisions": decisions,
    }
    return doc


def by_event(doc: Mapping[str, Any]) -> dict[int, Mapping[str, Any]]:
    """The analysed decisions of an annotated history, by the 0-based position of the event made."""
    found = doc.get("analysis") or {}
    return {row["event"] - 1: row for row in found.get("decisions") or []}


def comment(row: Mapping[str, Any]) -> str:
    """One analysed move's comment (see the module docstring)."""
    text = f"[%win {row['before']:.2f} > {row['after']:.2f}] [%best {row['best']:.2f}]"
    judged = row.get("judgement")
    if judged:
        text += f" {WORDS.get(judged, judged)} (-{row['loss']:.2f}): best was {row['best_text']}."
    elif row["played_text"] != row["best_text"]:
        text += f" Also good: {row['best_text']}."
    return text


def labels(analysis: Mapping[str, Any] | None) -> dict[int, dict[str, Any]]:
    """An observation's training labels by decision version: the decider's chance before, after
    the best move and after the move played, the loss, the judgement, the best move, and every
    seat's full-information chance before (empty without an analysis)."""
    if analysis is None:
        return {}
    keep = ("before", "best", "after", "loss", "judgement", "best_move", "chances")
    return {row["version"]: {key: row[key] for key in keep} for row in analysis["decisions"]}


def _seat_rows(doc: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    return list((doc.get("analysis") or {}).get("seats") or [])


def _accuracy(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"


def markdown_section(doc: Mapping[str, Any], name: Any) -> list[str]:
    """The per-seat table closing a Markdown export (``name(seat)``: the seat's label)."""
    seats = _seat_rows(doc)
    if not seats:
        return []
    lines = [
        "## Computer analysis",
        "",
        "| Player | Accuracy | Inaccuracies | Mistakes | Blunders | Chance moved by decisions | By luck |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in seats:
        lines.append(
            f"| {name(row['seat'])} | {_accuracy(row['accuracy'])} | {row['inaccuracy']} | {row['mistake']} "
            f"| {row['blunder']} | {row['decisions_moved']:+.2f} | {row['luck']:+.2f} |"
        )
    lines += ["", "Comments: `[%win before > after] [%best chance after the best move]` for the decider.", ""]
    return lines


def html_comment(row: Mapping[str, Any]) -> str:
    judged = row.get("judgement") or "good"
    return f' <span class="eval {html.escape(judged)}">{html.escape(comment(row))}</span>'


def html_section(doc: Mapping[str, Any], name: Any) -> str:
    """The per-seat table of an HTML export."""
    seats = _seat_rows(doc)
    if not seats:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(name(row['seat']))}</td><td>{_accuracy(row['accuracy'])}</td>"
        f"<td>{row['inaccuracy']}</td><td>{row['mistake']}</td><td>{row['blunder']}</td>"
        f"<td>{row['decisions_moved']:+.2f}</td><td>{row['luck']:+.2f}</td></tr>"
        for row in seats
    )
    return (
        '<section class="chapter" id="analysis"><h2>Computer analysis</h2>'
        '<table class="analysis"><thead><tr><th>Player</th><th>Accuracy</th><th>Inaccuracies</th>'
        "<th>Mistakes</th><th>Blunders</th><th>Chance moved by decisions</th><th>By luck</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


CSS = """
.eval { font-style: italic; color: var(--muted); }
.eval.inaccuracy { color:#b9770e; }
.eval.mistake { color:#ca6f1e; }
.eval.blunder { color:#c0392b; font-weight:bold; }
table.analysis { border-collapse: collapse; font: 14px sans-serif; }
table.analysis th, table.analysis td { border-bottom: 1px solid var(--line); padding: 4px 10px;
  text-align: left; }
"""
