// Condottiere on the web pages (interface: web/static/app.js). The map itself is the export's
// drawing (render.py's board_template, served as board.svg); this module colours its regions
// (circle[data-region]) and draws the battle lines, the hand and the move controls.

import { h } from "/web/static/app.js";
import { clickable, svgEl, unclickable } from "/web/static/dom.js";
import { goal, goalSentence, rulesSections } from "./rules.js";

const CARD_NAMES = {
  m1: "1", m2: "2", m3: "3", m4: "4", m5: "5", m6: "6", m10: "10",
  winter: "Winter", spring: "Spring", bishop: "Bishop", courtesan: "Courtesan", drummer: "Drummer",
  heroine: "Heroine", scarecrow: "Scarecrow", surrender: "Surrender",
};
// What each card does (shared/rules/condottiere.md: CARD-3, STR-1..3, WIN/SPR/DRU/BIS/SCA/HER/COU/SUR),
// shown on hover and focus of every card and in the page's card reference.
const CARD_TEXT = {
  mercenary: "A mercenary: adds its strength to your battle line.",
  winter: "Every mercenary in every line counts 1. Discards any Spring in play.",
  spring: "The highest mercenaries in play get +3. Discards any Winter in play.",
  drummer: "Doubles the mercenaries in your own line (several Drummers count once).",
  heroine: "Strength 10, unaffected by everything.",
  courtesan: "Strength 1, unaffected by everything; the most Courtesans win the Condottiere token.",
  bishop: "Discards the highest mercenaries from every line; then you may place the Pope, where no battle can be fought (Classic: the battle ends with no victor).",
  scarecrow: "Take one mercenary from your own line back into your hand.",
  surrender: "The battle ends at once: the strongest line takes the region.",
};
export const cardText = (code) => (code ? CARD_TEXT[code] || (code.startsWith("m") ? CARD_TEXT.mercenary : "") : "");

export const title = "Condottiere";
export const chapterName = "battles";

export const configFields = [
  { key: "players", label: "Players", type: "number", min: 2, max: 6, value: 4 },
  { key: "ruleset", label: "Ruleset", type: "select", options: [["2006", "2006 edition"], ["classic", "Classic"]] },
  { key: "options.capturing", label: "Capturing", type: "checkbox" },
  { key: "options.bigger_kingdoms", label: "Bigger kingdoms", type: "checkbox" },
  { key: "options.draw_after_battle", label: "Draw after each battle (2006)", type: "checkbox" },
  { key: "options.hidden_cards", label: "Hidden cards (2006)", type: "checkbox" },
  { key: "options.points_target", label: "Points match: target", type: "number", min: 1, max: 1000 },
  { key: "seed", label: "Seed (optional)", type: "number", min: 0 },
  { key: "first_condottiere", label: "First Condottiere seat (optional)", type: "number", min: 0, max: 5 },
];
export const seatCountKey = "players";

// A seat's badges after its name: a space first (a phone's narrow column drops the badges' left
// margin, and a badge must never read as part of the name: "random bot 2♞"), none between them.
const badges = (list) => (list.some(Boolean) ? [" ", ...list.filter(Boolean)] : []);

export const cardName = (card) => (card ? CARD_NAMES[card] || card : "?");
// The statistics' counters whose keys are cards (games/condottiere/stats.py), named as the table names them.
const CARD_COUNTERS = new Set(["cards_played", "battles_with_card", "battles_won_with_card"]);
export const counterKeyName = (counter, key) => (CARD_COUNTERS.has(counter) ? cardName(key) : null);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// The map's borders, read from the drawing itself (each border line joins two region circles), so
// the page needs no second copy of the map's data.
function bordersOf(svg) {
  const at = new Map();
  for (const circle of svg.querySelectorAll("circle[data-region]")) at.set(`${circle.getAttribute("cx")},${circle.getAttribute("cy")}`, circle.dataset.region);
  const borders = new Map();
  for (const line of svg.querySelectorAll("line.border")) {
    const a = at.get(`${line.getAttribute("x1")},${line.getAttribute("y1")}`);
    const b = at.get(`${line.getAttribute("x2")},${line.getAttribute("y2")}`);
    if (!a || !b) continue;
    for (const [x, y] of [[a, b], [b, a]]) {
      if (!borders.has(x)) borders.set(x, new Set());
      borders.get(x).add(y);
    }
  }
  return borders;
}

// The largest group of `regions` joined by borders (MAP-2).
export function largestGroup(regions, borders) {
  const left = new Set(regions);
  let best = 0;
  while (left.size) {
    const [start] = left;
    left.delete(start);
    const stack = [start];
    let size = 0;
    while (stack.length) {
      const region = stack.pop();
      size += 1;
      for (const next of borders.get(region) || []) if (left.delete(next)) stack.push(next);
    }
    best = Math.max(best, size);
  }
  return best;
}

// The goal in one line and each player's way towards it (VIC-1, VIC-2, OPT-BIG-1, CL-2), shown
// at the table all game long.
export function howToWin(view, ctx) {
  if (!view || !view.config) return null;
  const { total, adjacent } = goal(view.config);
  const borders = ctx.parts ? ctx.parts.borders : new Map();
  const head = [h("th", { scope: "col" }, "Player"), total === null ? null : h("th", { scope: "col" }, `Regions (of ${total})`),
    h("th", { scope: "col" }, `Adjacent (of ${adjacent})`)];
  const rows = (view.players || []).map((p) => {
    const owned = p.regions || [];
    return h("tr", { dataset: { seat: String(p.seat) } },
      h("th", { scope: "row" }, h("span", { class: "chip", style: `background:var(--seat-${p.seat % 6})`, "aria-hidden": "true" }),
        ctx.you === p.seat ? h("strong", {}, "You") : ctx.names(p.seat)),
      total === null ? null : h("td", {}, String(owned.length)), h("td", {}, String(largestGroup(owned, borders))));
  });
  return [h("p", {}, goalSentence(view.config)),
    h("table", { class: "progress", "aria-label": "Regions towards the goal" }, h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows))];
}

export function rules(view) {
  return rulesSections(view && view.config);
}

function card(code, extra = {}, tag = "li") {
  if (!code) return h(tag, { class: "cd-card hidden", "aria-label": "face-down card", ...extra }, "?");
  const special = code.startsWith("m") ? "" : " special";
  return h(tag, { class: `cd-card${special}`, dataset: { card: code }, title: `${cardName(code)}: ${cardText(code)}`, ...extra }, cardName(code));
}

function reference() {
  const rows = [["1-10", CARD_TEXT.mercenary], ...["winter", "spring", "drummer", "heroine", "courtesan", "bishop", "scarecrow", "surrender"]
    .map((code) => [CARD_NAMES[code], CARD_TEXT[code]])];
  return h("details", { class: "card-reference" }, h("summary", {}, "What the cards do"),
    h("dl", {}, rows.flatMap(([name, text]) => [h("dt", {}, name), h("dd", {}, text)])));
}

export function mount(el, ctx) {
  const figure = h("figure", { class: "board" });
  figure.innerHTML = ctx.board; // our own server's SVG (render.py), never user text
  const svg = figure.querySelector("svg");
  svg.setAttribute("role", "group"); // its regions may be controls: a group, not one image
  const ring = svgEl("circle", { class: "battle", r: "16" });
  ring.style.display = "none";
  const pope = svgEl("text", { class: "pope" }, "✝");
  pope.style.display = "none";
  svg.append(ring, pope);
  const owners = h("ul", { class: "visually-hidden", "aria-label": "Regions and their owners" });
  figure.append(owners, h("figcaption", { class: "board-caption" }));
  const lines = h("section", { class: "lines", "aria-labelledby": "lines-title" },
    h("h2", { id: "lines-title" }, "Battle lines"), h("p", { class: "last-battle", role: "status", hidden: true }), h("p", { class: "battle-where" }),
    h("table", { class: "cd-lines" }, h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Strength"),
      h("th", { scope: "col" }, "Line"), h("th", { scope: "col" }, "Hand · regions"))),
    h("tbody")));
  const hand = h("section", { class: "hand", "aria-labelledby": "hand-title", hidden: true },
    h("h2", { id: "hand-title" }, "Your hand"), h("p", { class: "hand-hint muted" }), h("div", { class: "cards", "data-hand": "", role: "group", "aria-label": "Cards in your hand" }));
  // On a phone the hand and the battle lines come first (they are what a decision depends on).
  el.replaceChildren(h("div", { class: "side" }, hand, lines), figure, reference());
  ctx.parts = { el, svg, ring, pope, owners, caption: figure.querySelector("figcaption"), lines, hand, borders: bordersOf(svg) };
}

export function render(view, ctx) {
  const { el, svg, ring, pope, owners, caption, lines, hand } = ctx.parts;
  const name = (seat) => ctx.names(seat);
  // The phase orders the table on a phone: the map first when a region is to be chosen.
  el.dataset.phase = (view && view.phase) || "";
  const regions = (view && view.regions) || {};
  owners.replaceChildren();
  for (const circle of svg.querySelectorAll("circle[data-region]")) {
    const region = circle.dataset.region;
    const owner = regions[region];
    if (Number.isInteger(owner)) {
      circle.style.fill = `var(--seat-${owner % 6})`;
      circle.classList.remove("free");
      circle.dataset.owner = String(owner);
    } else {
      circle.style.fill = "";
      circle.classList.add("free");
      delete circle.dataset.owner;
    }
    owners.append(h("li", {}, `${region}: ${Number.isInteger(owner) ? name(owner) : "free"}`));
  }
  const place = (node, region, dx = 0, dy = 0) => {
    const circle = region && svg.querySelector(`circle[data-region="${CSS.escape(region)}"]`);
    node.style.display = circle ? "" : "none";
    if (!circle) return;
    const x = Number(circle.getAttribute("cx"));
    const y = Number(circle.getAttribute("cy"));
    if (node.tagName === "circle") { node.setAttribute("cx", x); node.setAttribute("cy", y); }
    else { node.setAttribute("x", x + dx); node.setAttribute("y", y + dy); }
  };
  const battle = view && view.battle;
  place(ring, battle && battle.region);
  place(pope, view && view.pope, -5, 4);
  caption.textContent = [
    battle ? (battle.final ? "Final battle" : `Battle for ${battle.region}`) : null,
    view && view.pope ? `The Pope stands in ${view.pope}` : null,
  ].filter(Boolean).join(" · ");

  // Between the choice of the next region and its first card (the hand discards, a round's end)
  // the battle is to come, and the passes of the one that ended no longer mean anything.
  const fighting = !(view && (view.phase === "hand_discard" || view.phase === "keep_cards"));
  lines.querySelector(".battle-where").textContent = battle
    ? (battle.final ? `${fighting ? "The" : "Next: the"} final battle.` : `${fighting ? "Now" : "Next"}: the battle for ${battle.region}.`)
    : "No battle under way.";
  // The last battle's result stays until the next one ends.
  const last = lines.querySelector(".last-battle");
  last.textContent = lastBattle(view, ctx) || "";
  last.hidden = !last.textContent;
  const rows = ((view && view.players) || []).map((p) => {
    const turn = view.turn === p.seat || (view.awaiting || []).includes(p.seat);
    return h("tr", { class: turn ? "turn" : null, dataset: { seat: String(p.seat) } },
      h("th", { scope: "row" }, h("span", { class: "chip", style: `background:var(--seat-${p.seat % 6})` }),
        name(p.seat), badges([turn ? h("span", { class: "badge" }, "to play") : null,
          p.passed && battle && fighting ? h("span", { class: "badge muted" }, "passed") : null,
          view.condottiere === p.seat ? h("span", { class: "badge", title: "holds the Condottiere token" }, "♞") : null])),
      h("td", { class: "cd-str" }, p.true_strength !== undefined && p.true_strength !== p.strength
        ? `${p.strength} (${p.true_strength})` : String(p.strength)),
      h("td", {}, h("ul", { class: "cards", "aria-label": `${name(p.seat)}'s battle line` },
        (p.line || []).map((entry) => card(entry.card)))),
      h("td", { class: "muted" }, `${plural(p.hand_size, "card")} · ${plural((p.regions || []).length, "region")}`,
        (p.regions || []).length ? h("small", { class: "cd-owned" }, ` (${p.regions.join(", ")})`) : null));
  });
  lines.querySelector("tbody").replaceChildren(...rows);

  const own = view && Array.isArray(view.hand) ? view.hand : null;
  hand.hidden = own === null;
  hand.querySelector("[data-hand]").replaceChildren(...(own || []).map((c) => card(c, {}, "span")));
  bindBoard(view, ctx);
}

const CAUSES = { surrender: " after a Surrender", bishop: " after the Bishop" };

// The battle that just ended, until the next one starts (END-1, END-2): where, who won and with
// what strength against whom.
function lastBattle(view, ctx) {
  const last = view && view.last_battle;
  if (!last || !last.strengths) return null;
  const you = (seat) => ctx.you === seat;
  const strengths = last.strengths.map((x, seat) => [seat, x]).filter(([seat]) => seat !== last.winner)
    .map(([seat, x]) => `${you(seat) ? "you" : ctx.names(seat)} ${x}`).join(", ");
  const where = last.region ? `Last battle, for ${last.region},` : "The final battle";
  const cause = CAUSES[last.cause] || "";
  if (!Number.isInteger(last.winner)) return `${where} ended${cause} in a tie: nobody won it (${strengths}).`;
  const winner = you(last.winner) ? "You" : ctx.names(last.winner);
  const what = last.region ? `${last.region}` : "the final battle";
  return `${where} ended${cause}: ${winner} won ${what} with ${last.strengths[last.winner]}${strengths ? ` against ${strengths}` : ""}.`;
}

// RL-12: a hand discard whose only answer is to keep the hand is answered by the page itself.
export function autoAnswer(moves) {
  if (moves.length === 1 && moves[0].type === "discard_hand" && moves[0].discard === false) return moves[0];
  return null;
}

// The things a player may click on: a card of the hand plays it (the Bishop and the Scarecrow then
// ask their question), a region of the map chooses the next battle's place.
function bindBoard(view, ctx) {
  const { svg, hand } = ctx.parts;
  const moves = (ctx.interactive && view && view.legal_moves) || [];
  const byCard = new Map();
  for (const choice of choices(moves)) {
    const move = choice.move || (choice.options && choice.options[0].move);
    if (move && move.type === "play") byCard.set(move.card, choice);
  }
  const regions = new Map(moves.filter((m) => m.type === "place_token").map((m) => [m.region, m]));
  let playable = 0;
  for (const li of hand.querySelectorAll("[data-card]")) {
    const choice = byCard.get(li.dataset.card);
    if (choice) {
      playable += 1;
      clickable(li, `${choice.label.replace(/…$/, "")}: ${cardText(li.dataset.card)}`, (el) => ctx.choose(choice, el));
    } else unclickable(li);
  }
  for (const circle of svg.querySelectorAll("circle[data-region]")) {
    const move = regions.get(circle.dataset.region);
    if (move) clickable(circle, `Battle in ${move.region}`, (el) => ctx.choose({ label: `Battle in ${move.region}`, move }, el));
    else unclickable(circle);
  }
  const keeping = bindKeep(moves, ctx);
  hand.querySelector(".hand-hint").textContent = keeping ? "Tap up to 2 cards to keep them (a third tap replaces the first chosen)."
    : playable ? "Click a card to play it." : regions.size ? "Click a region on the map for the next battle." : "";
  if (ctx.question) onQuestion(ctx.question.choice, ctx, ctx.question.answer); // still open
}

// RND-2: the one player still holding cards at a round's end keeps up to 2. The legal moves are
// every such subset (56 for a hand of 10), too many buttons for one screen: the cards are tapped in
// the hand instead (a third tap replaces the first chosen), and the moves are "Keep nothing" and
// "Keep" the chosen ones. The choice lives in ctx.parts.keep, as positions in the hand (a hand may
// hold two cards of one code), and is forgotten when the hand changes.
function keepChoice(ctx, hand) {
  const parts = ctx.parts || {};
  const key = JSON.stringify(hand || []);
  if (!parts.keep || parts.keep.key !== key) parts.keep = { key, chosen: [] };
  return parts.keep;
}

function bindKeep(moves, ctx) {
  if (!moves.length || !moves.every((m) => m.type === "keep_cards")) {
    if (ctx.parts) ctx.parts.keep = null;
    return false;
  }
  const cards = [...ctx.parts.hand.querySelectorAll("[data-card]")];
  const keep = keepChoice(ctx, cards.map((el) => el.dataset.card));
  const show = () => {
    for (const [i, el] of cards.entries()) el.setAttribute("aria-pressed", String(keep.chosen.includes(i)));
  };
  for (const [i, el] of cards.entries()) {
    clickable(el, `Keep ${cardName(el.dataset.card)}: ${cardText(el.dataset.card)}`, () => {
      // A chosen card tapped again is put back; a third card replaces the first chosen.
      if (keep.chosen.includes(i)) keep.chosen = keep.chosen.filter((j) => j !== i);
      else keep.chosen = [...keep.chosen, i].slice(-2);
      show();
      if (ctx.redrawMoves) ctx.redrawMoves();
    });
  }
  show();
  return true;
}

// The two moves of RND-2's choice: keeping nothing, and keeping the chosen cards (the legal move
// whose cards are the same multiset; none while nothing is chosen).
function keepChoices(moves, ctx) {
  const none = moves.find((m) => m.cards.length === 0);
  const hand = ctx && ctx.parts && ctx.parts.keep ? JSON.parse(ctx.parts.keep.key) : [];
  const chosen = ctx && ctx.parts && ctx.parts.keep ? ctx.parts.keep.chosen.map((i) => hand[i]) : [];
  const same = (cards) => [...cards].sort().join() === [...chosen].sort().join();
  const move = chosen.length ? moves.find((m) => m.cards.length === chosen.length && same(m.cards)) : null;
  return [
    ...(none ? [{ label: playLabel(none), move: none }] : []),
    move ? { label: playLabel(move), move } : { label: "Keep the cards you tap", disabled: true },
  ];
}

// The end of the game: who won, and each player's regions.
export function endPanel(view, ctx) {
  if (!view) return null;
  const regions = view.regions || {};
  const winners = view.winners || (view.result && view.result.winners) || [];
  return h("table", { class: "cd-lines end-table" }, h("thead", {}, h("tr", {},
    h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Regions"), h("th", { scope: "col" }, "Result"))),
  h("tbody", {}, (view.players || []).map((p) => {
    const owned = Object.entries(regions).filter(([, owner]) => owner === p.seat).map(([region]) => region);
    return h("tr", {}, h("th", { scope: "row" }, h("span", { class: "chip", style: `background:var(--seat-${p.seat % 6})` }), ctx.names(p.seat)),
      h("td", {}, `${owned.length}: ${owned.join(", ") || "none"}`), h("td", {}, winners.includes(p.seat) ? "won" : ""));
  })));
}

export function turnHint(view) {
  if (!view) return "Your turn.";
  if (view.phase === "place_token") return "Your turn: click a region on the map (or a button) for the next battle.";
  if (view.phase === "battle") return "Your turn: click a card in your hand to play it, or pass.";
  if (view.phase === "keep_cards") return "The round ends and only you still hold cards: tap up to 2 of them to keep; the rest are discarded.";
  if (view.phase === "hand_discard") return "Your hand has no mercenary: you may discard it all and be dealt anew later, or keep it.";
  return "Your turn.";
}

const PHASES = {
  place_token: "choose where the next battle is fought",
  battle: "play a card or pass",
  hand_discard: "decide whether to discard their hand",
  keep_cards: "choose up to 2 cards to keep",
};

export function status(view, ctx) {
  if (!view) return "The game has not started.";
  if (view.phase === "over") {
    const winners = view.winners || (view.result && view.result.winners) || [];
    return winners.length ? `Game over: ${winners.map(ctx.names).join(" and ")} won.` : "Game over: no winner.";
  }
  const awaited = (view.awaiting || []).map(ctx.names).join(", ");
  return awaited ? `${awaited} to ${PHASES[view.phase] || "decide"}.` : "Resolving…";
}

function playLabel(move) {
  if (move.type === "play") return `Play ${cardName(move.card)}`;
  if (move.type === "pass") return move.reveal === true ? "Pass and reveal" : move.reveal === false ? "Pass (keep face down)" : "Pass";
  if (move.type === "place_token") return `Battle in ${move.region}`;
  if (move.type === "decline_token") return "Decline the token";
  if (move.type === "discard_hand") return move.discard ? "Discard my hand and draw anew" : "Keep my hand";
  if (move.type === "keep_cards") return move.cards.length ? `Keep ${move.cards.map(cardName).join(" and ")}` : "Keep nothing";
  return JSON.stringify(move);
}

// The Bishop asks where the Pope goes, the Scarecrow what to take back: one control per card,
// and a second question with the variants.
// `onBoard`: also made by clicking the card in the hand or the region on the map.
export function choices(moves, ctx) {
  if (moves.length > 1 && moves.every((m) => m.type === "keep_cards")) return keepChoices(moves, ctx);
  const out = [];
  const byCard = new Map();
  for (const move of moves) {
    const variant = move.type === "play" && ("pope" in move || "take_back" in move);
    if (!variant) { out.push({ label: playLabel(move), move, onBoard: move.type === "play" || move.type === "place_token" }); continue; }
    if (!byCard.has(move.card)) {
      const entry = {
        onBoard: true,
        label: `Play ${cardName(move.card)}…`,
        prompt: move.card === "bishop" ? "Where does the Pope go? Choose a region here or on the map." : "Which mercenary do you take back?",
        options: [],
      };
      byCard.set(move.card, entry);
      out.push(entry);
    }
    const entry = byCard.get(move.card);
    const label = move.card === "bishop"
      ? (move.pope ? move.pope : "Keep him off the board")
      : (move.take_back ? `Take back a ${cardName(move.take_back)}` : "Take nothing back");
    entry.options.push({ label, move, region: move.card === "bishop" ? move.pope : undefined });
  }
  return out;
}

// While a question with regions for answers is open (the Bishop's Pope), those regions of the map
// answer it when clicked; the next render binds the map as before.
export function onQuestion(choice, ctx, answer) {
  const byRegion = new Map((choice.options || []).filter((o) => o.region).map((o) => [o.region, o]));
  if (!byRegion.size) return;
  for (const circle of ctx.parts.svg.querySelectorAll("circle[data-region]")) {
    const option = byRegion.get(circle.dataset.region);
    if (option) clickable(circle, `The Pope goes to ${option.region}`, (el) => answer(option, el));
    else unclickable(circle);
  }
}

export function heatmap(el, counts, board) {
  el.innerHTML = board;
  const top = Math.max(1, ...Object.values(counts));
  for (const circle of el.querySelectorAll("circle[data-region]")) {
    const n = counts[circle.dataset.region] || 0;
    circle.classList.remove("free");
    circle.style.fill = `rgba(192, 57, 43, ${0.08 + (0.92 * n) / top})`;
    circle.querySelector("title").textContent = `${circle.dataset.region}: ${n}`;
  }
}
