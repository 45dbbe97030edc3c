"""axe-core in the browser tests (issue 30, item 9): every page is checked with the vendored,
pinned axe.min.js (tests/web/vendor/axe-core/README.md says why it is vendored), and a page passes
with no serious or critical violation."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "b511cd9dec01c76f4b2ad1723b66b6db37d4c2eb4ed199076e1829d9ee7b75e3"


@cache
def _source() -> str:
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, "the vendored axe.min.js was changed"
    return data.decode("utf-8")


def violations(page) -> list[dict]:
    """The serious and critical axe-core violations of ``page`` as it is now. The script is
    evaluated through the DevTools protocol, which the pages' Content-Security-Policy does not
    govern, so the page under test is the one players get."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(_source())
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, { resultTypes: ["violations"] });
            return result.violations
              .filter((v) => v.impact === "serious" || v.impact === "critical")
              .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                             nodes: v.nodes.slice(0, 5)
                               .map((n) => n.target.join(" ") + " :: " + n.failureSummary) }));
        }"""
    )
    return found


def assert_accessible(page, name: str) -> None:
    found = violations(page)
    assert not found, f"{name}: {found}"


def assert_no_sideways_scroll(page, name: str) -> None:
    """No page scrolls sideways (issue 30, item 6): the document is no wider than the window."""
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{name}: {width} px wide in a {inner} px window"


SMALLEST_TEXT = """() => {
  let smallest = [99, ""];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const unseen = "[hidden], .visually-hidden, details:not([open]) > :not(summary), title, script, style";
    if (!node.textContent.trim() || !el || el.closest(unseen)) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest("svg");
    if (svg && svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      px *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; // drawn at the SVG's scale
    }
    if (px < smallest[0]) smallest = [px, node.textContent.trim().slice(0, 40)];
  }
  return smallest;
}"""


def assert_readable_text(page, name: str, smallest: float = 11.0) -> None:
    """Labels at least 11 px high as drawn (issue 30, item 6), SVG text at its drawing's scale."""
    px, text = page.evaluate(SMALLEST_TEXT)
    assert px >= smallest - 0.05, f"{name}: {text!r} is drawn at {px:.1f} px"
