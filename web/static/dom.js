// Small DOM helpers every page and every game's page module share (one copy, so they cannot drift):
// board elements made controls and back, SVG elements, identifiers in words, a game's title.

const SVG = "http://www.w3.org/2000/svg";

// Makes an element (HTML or SVG: a card, a region, a cell) a control: click, Enter or Space runs
// `action(el)`; `label` is what a screen reader says. `pointer: false` leaves clicks to a container
// that routes them (overlapping marks on a graph: the nearest to the pointer takes the click).
export function clickable(el, label, action, { pointer = true } = {}) {
  el.classList.add("pickable");
  el.setAttribute("tabindex", "0");
  el.setAttribute("role", "button");
  el.setAttribute("aria-label", label);
  el.onclick = pointer ? (event) => { event.preventDefault(); action(el); } : null;
  el.onkeydown = (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); action(el); }
  };
}

// The element is no control any more (and says nothing as one).
export function unclickable(el) {
  el.classList.remove("pickable");
  for (const attr of ["tabindex", "role", "aria-label"]) el.removeAttribute(attr);
  el.onclick = null;
  el.onkeydown = null;
}

// svgEl("rect", {x: 1}, "text"): an SVG element. Text is never parsed as markup.
export function svgEl(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

// An identifier ("hand_full", "cards_played") in words; "" for none.
export function words(code) {
  return String(code ?? "").replaceAll("_", " ");
}

// A game's title from the page's list of games ({name, title}), else its name in words.
export function gameTitle(games, name) {
  return ((games || []).find((g) => g.name === name) || {}).title || String(name).replaceAll("_", " ");
}
