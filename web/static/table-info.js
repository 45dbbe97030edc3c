// What the table tells a player besides the board: how to win (always shown), the game's rules for
// players (a panel opened from the table), what just happened (the log's newest sentences, kept
// until the player's next decision) and the log's sentences in the viewer's words.
import { h, withNames } from "/web/static/app.js";

// -- words --------------------------------------------------------------------------------------

const IRREGULAR = { is: "are", has: "have", does: "do", goes: "go", was: "were" };
// The second verbs of the sentence tables' clauses ("and passes", "and discards 3").
const VERBS = /^(passes|discards|draws|keeps|takes|pays|places|receives|plays|reveals|wins|scores|builds|returns|loses)$/;

// "receives" -> "receive", "passes" -> "pass", "is" -> "are"; null when `word` is no verb in the
// third person singular (the sentence tables write every subject's verb that way).
export function conjugate(word) {
  if (IRREGULAR[word]) return IRREGULAR[word];
  if (!/^[a-z]{3,}s$/.test(word) || /ss$/.test(word)) return null;
  if (/(sses|shes|ches|xes|zes)$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}

// The engine's sentences name every seat "Seat N" in the third person; the viewer's own seat is
// "you" with the verb that goes with it ("Seat 2 is dealt 10 cards" -> "You are dealt 10 cards"),
// and "Seat 2's" is "your".
export function secondPerson(text, seat) {
  if (!Number.isInteger(seat)) return text;
  const start = (offset, whole) => offset === 0 || /[.!?]\s*$/.test(whole.slice(0, offset));
  const cap = (word, offset, whole) => (start(offset, whole) ? word[0].toUpperCase() + word.slice(1) : word);
  // A list of seats that holds the viewer ("Seats 0, 1, 2 say ...") names "you" first, the others after.
  let out = text.replace(/\b[Ss]eats (\d+(?:, \d+)*)\b/g, (match, list, offset, whole) => {
    const seats = list.split(", ").map(Number);
    if (!seats.includes(seat)) return match;
    const parts = [cap("you", offset, whole), ...seats.filter((other) => other !== seat).map((other) => `Seat ${other}`)];
    return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : parts[0];
  });
  out = out.replace(new RegExp(`\\b[Ss]eat ${seat}('s)?(?: ([a-z]+))?\\b`, "g"), (_match, own, next, offset, whole) => {
    if (own) return `${cap("your", offset, whole)}${next ? ` ${next}` : ""}`;
    const verb = next && conjugate(next);
    if (verb) return `${cap("you", offset, whole)} ${verb}`;
    return `${cap("you", offset, whole)}${next ? ` ${next}` : ""}`;
  });
  // A sentence whose subject is now "You": its second verb ("... has no cards and passes") and
  // its "he" follow.
  if (/^You\b/.test(out)) {
    out = out.replace(/\band ([a-z]+)\b/g, (match, word) => (conjugate(word) && VERBS.test(word) ? `and ${conjugate(word)}` : match))
      .replace(/\bwhat he gives\b/, "what you give").replace(/\bwhat he asks for\b/, "what you ask for");
  }
  return out;
}

// A log sentence as this page shows it: the viewer as "you", everyone else by name.
export function sentence(text, { summary, seat }) {
  return withNames(secondPerson(text, seat), summary);
}

// -- how to win and the rules ------------------------------------------------------------------

// The goal and each player's way towards it (a game's `howToWin(view, ctx)`), with a button that
// opens the game's rules (`rules(view)`: [[heading, [sentence, ...]], ...]) in a dialog.
export function goalBox(game) {
  const body = h("div", { class: "goal-body" });
  const dialog = h("dialog", { class: "rules-panel", "aria-labelledby": "rules-title" });
  let lastView = null;
  const open = () => {
    const sections = game.rules ? game.rules(lastView) : [];
    const close = h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Close");
    dialog.replaceChildren(h("h2", { id: "rules-title" }, `${game.title}: the rules`),
      ...sections.flatMap(([heading, lines]) => [h("h3", {}, heading), h("ul", {}, lines.map((line) => h("li", {}, line)))]), close);
    dialog.showModal();
    // The rules are read from their start: focusing Close (the last thing in a dialog taller than
    // a phone's screen) would scroll it to the end.
    close.focus({ preventScroll: true });
    dialog.scrollTop = 0;
  };
  const button = h("button", { type: "button", class: "rules-open", "aria-haspopup": "dialog", onclick: open }, "Rules");
  const box = h("section", { class: "goal", "aria-labelledby": "goal-title", hidden: true },
    h("div", { class: "goal-head" }, h("h2", { id: "goal-title" }, "How to win"), game.rules ? button : null), body, dialog);
  return {
    box,
    draw(view, ctx) {
      lastView = view;
      const content = game.howToWin ? game.howToWin(view, ctx) : null;
      box.hidden = !content;
      if (content) body.replaceChildren(...[content].flat());
    },
  };
}

// -- what just happened ------------------------------------------------------------------------

// The log's sentences since the viewer's last decision (a battle's end, what a Bishop did, a bot's
// turn), at most `keep` of them, newest last; they stay until the viewer decides again.
export function recentBox({ keep = 8 } = {}) {
  const list = h("ol", { class: "recent-list" });
  const box = h("section", { class: "recent", "aria-labelledby": "recent-title", hidden: true },
    h("h2", { id: "recent-title" }, "What just happened"), list);
  let since = 0;
  return {
    box,
    // The viewer decided at `version`: what came before is old news.
    decided(version) { since = version; list.replaceChildren(); box.hidden = true; },
    add(version, text) {
      if (version <= since) return;
      list.append(h("li", { value: version }, text));
      while (list.children.length > keep) list.firstChild.remove();
      box.hidden = false;
    },
  };
}
