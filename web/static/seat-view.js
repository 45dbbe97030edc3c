// "See as ..." on the replay page of a finished game: the game as one seat saw it at each
// version (GET /replay?version=N&as=S: the view it was served live), and, on request, what that seat
// did not know then: every part of the complete view that differs from the seat's (hands, face-down
// cards, the deck's order: the draws to come), listed by where it sits in the view. Game-agnostic: it
// compares the two views the API sends; a game module could mark them on its board later.
import { h, seatName } from "/web/static/app.js";

const MAX_LINES = 40;

export function seatControls(summary, onChange) {
  const select = h("select", { id: "see-as", onchange: onChange },
    h("option", { value: "" }, "Everyone (the whole game)"),
    summary.seats.map((s) => h("option", { value: String(s.seat) }, `As ${seatName(summary, s.seat)} saw it`)));
  const toggle = h("input", { type: "checkbox", id: "not-known", onchange: onChange, disabled: true });
  select.addEventListener("change", () => { toggle.disabled = select.value === ""; });
  const list = h("ul", { class: "not-known", "aria-live": "polite" });
  const element = h("section", { class: "see-as", "aria-label": "See the game as a seat saw it" },
    h("label", { for: "see-as" }, "See "), select, " ",
    h("label", { class: "mark" }, toggle, " Mark what they did not know"), list);
  return {
    element,
    seat: () => (select.value === "" ? null : Number(select.value)),
    marking: () => select.value !== "" && toggle.checked,
    show(lines) {
      list.replaceChildren(...lines.map((line) => h("li", {}, line)));
    },
  };
}

// What a part of the view is, in words: "Bob's hand", "the deck's order", "the seed".
const PLACES = { hand: "hand", deck: "the deck's order (the draws to come)", seed: "the seed (it decides every shuffle and die)",
  rng: "the random generator's state (the draws to come)", line: "battle line", true_strength: "strength with face-down cards",
  deck_order: "the deck's order (the draws to come)", discard: "the discard pile" };

function placeWords(path, summary) {
  const keys = path.split(".");
  const out = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const seat = /^\d+$/.test(key) && ["players", "p"].includes(keys[i - 1]) ? Number(key) : null;
    if (seat !== null) { out.pop(); out.push(`${seatName(summary, seat)}'s`); continue; }
    if (key === "config") continue;
    out.push(PLACES[key] || (/^\d+$/.test(key) ? `#${Number(key) + 1}` : key.replaceAll("_", " ")));
  }
  const text = out.join(" ") || "the view";
  return text[0].toUpperCase() + text.slice(1);
}

// A value as read: cards by their names (the game's `cardName`), lists joined, no JSON.
function valueWords(value, cardName) {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) {
    if (!value.length) return "none";
    const items = value.map((item) => (typeof item === "string" ? cardName(item) : valueWords(item, cardName)));
    const shown = items.slice(0, 12).join(", ");
    return items.length > 12 ? `${shown} and ${items.length - 12} more (${items.length} in all)` : shown;
  }
  if (typeof value === "object") {
    if ("card" in value) return value.card === null ? "a face-down card" : cardName(value.card);
    return Object.entries(value).map(([k, v]) => `${k.replaceAll("_", " ")} ${valueWords(v, cardName)}`).join(", ");
  }
  return typeof value === "string" ? cardName(value) : String(value);
}

// Where the complete view ``full`` shows something the seat's view ``seen`` does not (or shows
// differently), as sentences ("Ann's hand: 4, 10, Winter"). Keys only the seat's view has (its
// legal moves) are what it could do, not what it knew, and are left out; so is a value the seat's
// view shows beside it or at its top (its own hand, a strength it could read), which it knew under
// another name.
export function notKnown(full, seen, { summary, cardName = (c) => String(c) } = {}) {
  const lines = [];
  const json = (value) => JSON.stringify(value);
  const shownNear = (value, near) => [near, seen].some((place) =>
    place && typeof place === "object" && Object.values(place).some((other) => json(other) === json(value)));
  const walk = (a, b, path, near) => {
    if (lines.length >= MAX_LINES || json(a) === json(b)) return;
    const bothObjects = a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b);
    if (bothObjects && (!Array.isArray(a) || a.length === b.length)) {
      for (const key of Object.keys(a)) walk(a[key], b[key], path ? `${path}.${key}` : key, b);
      return;
    }
    if (shownNear(a, near)) return;
    lines.push(`${placeWords(path, summary)}: ${valueWords(a, cardName)}`);
  };
  walk(full, seen, "", null);
  return lines.length ? lines : ["Nothing: this seat saw the whole state."];
}
