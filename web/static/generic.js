// The page module of a game that has none of its own (no ``web_module`` hook): the view as the
// server sends it to this reader (already redacted for it), and each legal move as a button with
// the move's own JSON. Plain, but it lets a person follow, play and replay any registered game.
import { h } from "/web/static/app.js";

export const title = "";
export const configFields = [];
export const seatCountKey = "players";
export const cardName = (card) => String(card);

export function mount(el, ctx) {
  const pre = h("pre", { class: "generic-view", "aria-label": "The game as you may see it" });
  el.replaceChildren(h("section", { class: "side", "aria-labelledby": "generic-title" },
    h("h2", { id: "generic-title" }, "The game"),
    h("p", { class: "muted" }, "This game has no board drawing yet: its state is shown as the API sends it."),
    pre));
  ctx.parts = { pre };
}

export function render(view, ctx) {
  ctx.parts.pre.textContent = view ? JSON.stringify(view, null, 2) : "The game has not started.";
}

export function status(view, ctx) {
  if (!view) return "The game has not started.";
  const awaiting = view.awaiting || [];
  if (!awaiting.length) return view.result || view.winners ? "Game over." : "Resolving…";
  return `${awaiting.map(ctx.names).join(", ")} to move.`;
}

export function choices(moves) {
  return moves.map((move) => ({ label: JSON.stringify(move), move }));
}

export function heatmap(el) {
  el.replaceChildren();
}
