// Rio de la Plata on the web pages (interface: web/static/app.js). The board is the export's city
// drawing (archive.py's board_template, served as board.svg: every cell a rect[data-cell="x,y"],
// empty layers g.rio-buildings / g.rio-people / g.rio-sections) and the tracks beside it (each
// space a g.rio-space with data attributes); this module fills them from a view and draws the
// players' stocks, the characters, the ship, a trade offer, a battle and the labels of the moves.

import { h } from "/web/static/app.js";
import { clickable, svgEl as s, unclickable } from "/web/static/dom.js";
import { FIRST_YEAR, YEARS, goalSentence, rulesSections } from "./rules.js";
import { battleHint, cellText, describeMove, edgeWords, group, undoLabel, words } from "./words.js";

export { describeMove };

const CELL = 22; // archive.py's CELL: one city cell in SVG units
const LETTERS = {
  hut: "h", house: "H", quarry: "Q", carpenter: "C", market: "M", company: "Co", square: "Sq",
  statue: "St", garden: "G", church: "Ch", barracks: "B", palace: "P", cathedral: "Ca",
};
const STEPS = {
  setup: "setting up", A: "phase A: placing people", resolve: "resolving the completed buildings",
  B: "phase B: actions", B_end: "the ship sails", roll: "phase C: the war check", battle: "phase C: battle",
  round_end: "the year ends", game_end: "final scoring", over: "the game is over",
};

export const title = "Rio de la Plata";
export const chapterName = "years";
export const configFields = [
  { key: "players", label: "Players", type: "number", min: 3, max: 5, value: 4 },
  { key: "seed", label: "Seed (optional)", type: "number", min: 0 },
];
export const seatCountKey = "players";
export const cardName = (item) => words(item);
// The decision explorer's moves (explorer.py): a first-year placement is named by its space kind,
// which alone ("major", "cell") is a key, not a word a player uses.
const PLACE_SPACES = {
  cell: "A city cell", major: "A major building", character: "A character", mine: "The mine",
  forest: "The forest", field: "The field", craftsmen: "The craftsmen", dock: "The dock", order: "The turn-order track",
};
export const explorerMoveName = (situation, move) =>
  (situation === "first_year_placement" ? PLACE_SPACES[move] : undefined) || words(move).replace(/^./, (c) => c.toUpperCase());
const yearOf = (year) => `Year ${year}, ${year - FIRST_YEAR + 1} of ${YEARS}`;

// Where VP came from, in the words a player uses (the view's vp_by keys).
const SOURCES = {
  buildings: "buildings", church: "church", major_buildings: "major buildings", ship: "ship",
  characters: "characters", battle: "battles", penalties: "penalties", money: "money", city: "houses",
};
const sourceName = (key) => SOURCES[key] || words(key);

function vpParts(p) {
  return Object.entries(p.vp_by || {}).filter(([, n]) => n).map(([key, n]) => `${sourceName(key)} ${n}`);
}

// The goal in one line, the year, and each player's VP with where they came from (RIO-ROUND-1,
// RIO-END-1..7), shown at the table all game long.
export function howToWin(view, ctx) {
  if (!view || !view.p) return null;
  const rows = view.p.map((p, seat) => h("tr", { dataset: { seat: String(seat) } },
    h("th", { scope: "row" }, h("span", { class: "chip", style: `background:${seatFill(seat)}`, "aria-hidden": "true" }),
      ctx.you === seat ? h("strong", {}, "You") : ctx.names(seat)),
    h("td", {}, String(p.vp)), h("td", { class: "muted" }, vpParts(p).join(", ") || "none yet")));
  return [h("p", {}, goalSentence(view.year)),
    h("table", { class: "progress", "aria-label": "Victory points and where they came from" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "VP"), h("th", { scope: "col" }, "From"))),
      h("tbody", {}, rows))];
}

export function rules(view) {
  return rulesSections(view && view.year);
}

const seatFill = (seat) => `var(--seat-${seat % 6})`;

function pair(key) {
  const [x, y] = key.split(",").map(Number);
  return [x, y];
}

const START = "Start zone: where the first people may be placed.";

function readReference(figure) {
  const node = figure.querySelector("script.rio-reference");
  try { return node ? JSON.parse(node.textContent) : {}; } catch { return {}; }
}

function legend(ref) {
  const row = (term, text) => [h("dt", {}, term), h("dd", {}, text)];
  const minors = Object.entries(ref.minors || {}).flatMap(([name, b]) =>
    row(`${LETTERS[name] || "?"} · ${words(name)}`, `Costs ${b.cost}${b.people ? ` and ${b.people} ${b.people === 1 ? "person" : "people"}` : ""}`
      + `${b.vp ? `; ${b.vp} VP` : ""}. ${b.text}`));
  const majors = Object.entries(ref.majors || {}).flatMap(([name, b]) =>
    row(words(name), `A major building: each space costs ${b.cost.replace(" per space", "")} and gives the VP printed on it`
      + `${b.bonus ? `; the completer gets ${b.bonus} VP more` : ""}. ${b.text}`));
  const chars = Object.entries(ref.characters || {}).flatMap(([name, c]) =>
    row(words(name), `Price ${c.cost} silver, needs ${c.min_vp} VP. ${c.text}`));
  const spaces = Object.entries(ref.spaces || {}).flatMap(([name, text]) => row(words(name), text));
  const penalty = ref.penalty || {};
  return h("details", { class: "rio-legend" }, h("summary", {}, "Legend: the board, the buildings and the characters"),
    h("h3", {}, "On the board"),
    h("dl", {}, row("numbers", "Columns across the top, rows down the side: a cell is (column, row)."),
      row("A-H", "The shaded areas are the city's districts; the grey cells in the middle are the Plaza Mayor."),
      row("blue dashes", START), row("black line", "A wall: attackers cannot cross it."),
      row("brown line", "A road: it connects districts."), row("dots", "People, in their player's colour."),
      row("tracks", "Right of the names: the major buildings' spaces (VP), mine and forest (people a space takes), the enemies' tracks (strength)."),
      row("enemies", ref.enemies || "")),
    h("h3", {}, "Buildings (letter on the board)"), h("dl", {}, minors),
    h("h3", {}, "Major buildings"), h("dl", {}, majors),
    h("h3", {}, "Characters"), h("p", {}, `A person on a character claims it in phase B: pay its price if you have the silver and the VP. `
      + `If you cannot, you pay a penalty of ${penalty.silver || 0} silver and ${penalty.vp || 0} VP.`), h("dl", {}, chars),
    h("h3", {}, "Action spaces"), h("dl", {}, spaces));
}

export function mount(el, ctx) {
  el.classList.add("rio-table");
  const figure = h("figure", { class: "board rio" });
  figure.innerHTML = ctx.board; // our own server's SVG (archive.py), never user text
  const ref = readReference(figure);
  ctx.reference = ref;
  const city = figure.querySelector("svg.rio-city");
  // Cells, spaces and groups may be controls: the drawings are groups, not single images.
  for (const svg of figure.querySelectorAll("svg")) svg.setAttribute("role", "group");
  const layers = {
    buildings: city.querySelector("g.rio-buildings"),
    people: city.querySelector("g.rio-people"),
    sections: city.querySelector("g.rio-sections"),
    battle: s("g", { class: "rio-battle" }),
    targets: s("g", { class: "rio-targets" }),
  };
  city.append(layers.battle, layers.targets);
  for (const rect of city.querySelectorAll("rect[data-cell]")) {
    const district = rect.dataset.district;
    rect.append(s("title", {}, `Cell ${cellText(rect.dataset.cell)}${district ? `, district ${district}` : ", Plaza Mayor"}`));
  }
  for (const space of figure.querySelectorAll("g.rio-space")) {
    const name = space.dataset.major || space.dataset.track;
    const major = space.dataset.major && (ref.majors || {})[space.dataset.major];
    const text = major ? `${words(name)}: costs ${major.cost}; ${space.textContent} VP. ${major.text}`
      : space.dataset.track ? (ref.spaces || {})[space.dataset.track] : `${space.dataset.enemy}: strength ${space.textContent}. ${ref.enemies || ""}`;
    space.append(s("title", {}, text || ""));
  }
  // On a phone the city's cells are about 22 px: "Zoom in" draws them at 40 px or more (the city
  // then scrolls sideways inside its own box, brought to the cells that can be clicked).
  const scroller = h("div", { class: "rio-city-scroll" });
  city.replaceWith(scroller);
  scroller.append(city);
  const zoom = h("button", { type: "button", class: "rio-zoom secondary", "aria-pressed": "false" }, "Zoom in on the city");
  zoom.addEventListener("click", () => {
    const on = !figure.classList.contains("zoomed");
    figure.classList.toggle("zoomed", on);
    zoom.setAttribute("aria-pressed", String(on));
    zoom.textContent = on ? "Show the whole city" : "Zoom in on the city";
    if (on) centreOnTargets(ctx);
  });
  scroller.before(zoom);
  const caption = h("figcaption", { class: "board-caption" });
  const cells = h("ul", { class: "visually-hidden", "aria-label": "Cells with buildings or people" });
  figure.append(cells, caption);
  const year = h("p", { class: "rio-year" });
  const hint = h("p", { class: "rio-hint" });
  const players = h("table", { class: "cd-lines rio-stocks" },
    h("thead", {}, h("tr", {}, ["Player", "VP", "Silver", "Stone", "Wood", h("abbr", { title: "Luxury" }, "Lux."),
      h("abbr", { title: "People in supply" }, "People")].map((t) => h("th", { scope: "col" }, t)))), h("tbody"));
  const chars = h("div", { class: "rio-chars", role: "group", "aria-label": "Characters" });
  const spaces = h("div", { class: "rio-spaces", role: "group", "aria-label": "Action spaces" });
  const details = h("ul", { class: "rio-details" });
  const side = h("section", { class: "lines", "aria-labelledby": "rio-title" },
    h("h2", { id: "rio-title" }, "The colony"), year, hint,
    h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Players' stocks" }, players));
  const more = h("section", { class: "lines", "aria-labelledby": "rio-more-title" },
    h("h2", { id: "rio-more-title" }, "Spaces and characters"), h("h3", {}, "Action spaces"), spaces,
    h("h3", {}, "Characters"), chars, details);
  // On a phone: the stocks, then the city, then the rest (the decision's information first).
  el.replaceChildren(h("div", { class: "side" }, side), figure, h("div", { class: "side more" }, more), legend(ref));
  ctx.parts = { figure, city, scroller, layers, caption, cells, year, hint, players, chars, spaces, details };
}

// A zoomed city scrolls so that the first cell that can be clicked is in view, in the middle.
function centreOnTargets(ctx) {
  const { figure, scroller, layers } = ctx.parts;
  const first = layers.targets.querySelector(".rio-target, .rio-target-edge");
  if (!figure.classList.contains("zoomed") || !first) return;
  const box = first.getBoundingClientRect();
  const frame = scroller.getBoundingClientRect();
  scroller.scrollLeft += box.left + box.width / 2 - (frame.left + frame.width / 2);
}

function drawCity(view, ctx) {
  const { layers, cells } = ctx.parts;
  for (const layer of Object.values(layers)) layer.replaceChildren();
  cells.replaceChildren();
  for (const [key, cell] of Object.entries(view.city || {})) {
    const [x, y] = pair(key);
    const described = [];
    if (cell.b) {
      const owned = Number.isInteger(cell.own);
      const info = (ctx.reference.minors || {})[cell.b];
      const g = s("g", { class: "rio-building", "data-cell": key, "data-building": cell.b });
      g.append(
        s("rect", { x: x * CELL + 2, y: y * CELL + 2, width: CELL - 2, height: CELL - 2, rx: 2,
          style: `fill:${owned ? seatFill(cell.own) : "#6b5a43"}` }),
        s("text", { x: x * CELL + CELL / 2 + 1, y: y * CELL + 10, "text-anchor": "middle", class: "rio-letter" }, LETTERS[cell.b] || "?"),
        s("title", {}, `${words(cell.b)}${owned ? ` of ${ctx.names(cell.own)}` : ""} on ${cellText(key)}${info ? `. ${info.text}` : ""}`));
      layers.buildings.append(g);
      described.push(`${words(cell.b)}${owned ? ` of ${ctx.names(cell.own)}` : ""}`);
    }
    let i = 0;
    (cell.ppl || []).forEach((count, seat) => {
      for (let n = 0; n < count; n++, i++) {
        const row = Math.floor(i / 3);
        layers.people.append(s("circle", { cx: x * CELL + 5 + 6 * (i % 3), cy: y * CELL + (cell.b ? 17 : 12) + 6 * row - (row ? 0 : 0), r: 3.2,
          class: "rio-person", "data-seat": seat, "data-cell": key, style: `fill:${seatFill(seat)}` }));
      }
      if (count) described.push(`${count} of ${ctx.names(seat)}`);
    });
    if (described.length) cells.append(h("li", {}, `${cellText(key)}: ${described.join(", ")}`));
  }
  for (const [kind, edges] of [["wall", view.walls || []], ["road", view.roads || []]]) {
    for (const edge of edges) {
      const [a, b] = edge.split("-").map(pair);
      layers.sections.append(s("line", { class: `rio-${kind}`, x1: a[0] * CELL + 1, y1: a[1] * CELL + 1,
        x2: b[0] * CELL + 1, y2: b[1] * CELL + 1 }));
    }
  }
  // A battle: each group of people on its cell (a ring and its size), attackers at the city's edge.
  const battle = view.battle;
  ctx.groupAt = {};
  for (const [id, group] of Object.entries((battle && battle.groups) || {})) {
    const size = (group.stack || []).length;
    let cx;
    let cy;
    if (group.at) {
      const [x, y] = pair(group.at);
      [cx, cy] = [x * CELL + CELL / 2 + 1, y * CELL + CELL / 2 + 1];
    } else if (group.edge) {
      const [a, b] = group.edge.split("-").map(pair);
      [cx, cy] = [((a[0] + b[0]) / 2) * CELL + 1, ((a[1] + b[1]) / 2) * CELL + 1];
    } else continue;
    ctx.groupAt[id] = [cx, cy];
    const attackers = group.side === "a";
    const ring = s("circle", { cx, cy, r: 7.5, class: attackers ? "rio-attackers" : "rio-defenders", "data-group": id });
    ring.append(s("title", {}, `${attackers ? "Attackers" : "Defenders"}: group ${id} of ${size}`));
    layers.battle.append(ring, s("text", { x: cx, y: cy + 4, "text-anchor": "middle", class: "rio-group-size" }, String(size)));
  }
}

function drawTracks(view, ctx) {
  const { figure } = ctx.parts;
  const n = view.n || (view.p || []).length;
  const existing = new Map();
  for (const space of figure.querySelectorAll("g.rio-space")) {
    const min = Number(space.dataset.min || 0);
    space.classList.toggle("absent", min > n);
    space.classList.remove("taken", "rio-marker");
    space.querySelector("rect").style.fill = "";
    let occupant = null;
    if (space.dataset.major) {
      const major = (view.major || {})[space.dataset.major];
      const grid = major && major.grids[Number(space.dataset.grid)];
      occupant = grid ? grid[Number(space.dataset.space)] : null;
      space.classList.toggle("done", Boolean(major && major.done));
    } else if (space.dataset.track && min <= n) {
      const track = space.dataset.track;
      const index = existing.get(track) || 0;
      existing.set(track, index + 1);
      space.dataset.index = String(index);
      occupant = ((view.track || {})[track] || [])[index];
    } else if (space.dataset.enemy) {
      space.classList.toggle("rio-marker", (view.enemy || {})[space.dataset.enemy] === Number(space.dataset.index));
    }
    if (Number.isInteger(occupant)) {
      space.classList.add("taken");
      space.querySelector("rect").style.fill = seatFill(occupant);
      space.dataset.occupant = String(occupant);
    } else {
      delete space.dataset.occupant;
    }
  }
}

const SPACES = [
  ["field", "Fields", "field"], ["craftsmen", "Craftsmen", "craft"], ["dock", "Dock (ship)", "dock"], ["order", "Turn order", "otrack"],
];

function drawSide(view, ctx) {
  const { year, players, details, caption, chars, spaces } = ctx.parts;
  const name = (seat) => ctx.names(seat);
  const awaiting = view.awaiting || [];
  year.textContent = `${yearOf(view.year)}: ${STEPS[view.step] || view.step}. Turn order: ${(view.order || []).map(name).join(", ")}.`;
  const charState = view.chars || {};
  players.querySelector("tbody").replaceChildren(...(view.p || []).map((p, seat) => {
    const owned = Object.entries(charState).filter(([, c]) => c.owner === seat).map(([c]) => words(c));
    return h("tr", { class: awaiting.includes(seat) ? "turn" : null, dataset: { seat: String(seat) } },
      h("th", { scope: "row" }, h("span", { class: "chip", style: `background:${seatFill(seat)}` }), name(seat),
        awaiting[0] === seat ? h("span", { class: "visually-hidden" }, " (to play)") : null,
        owned.length ? h("small", { class: "muted" }, ` · ${owned.join(", ")}`) : null),
      ...["vp", "silver", "stone", "wood", "luxury", "supply"].map((k) => h("td", { dataset: { stock: k } }, String(p[k] ?? 0))));
  }));
  const refChars = ctx.reference.characters || {};
  chars.replaceChildren(...Object.entries(charState).map(([c, data]) => {
    const info = refChars[c] || {};
    const on = (view.spots || {})[c];
    const who = Number.isInteger(data.owner) ? `owned by ${name(data.owner)}` : Number.isInteger(on) ? `${name(on)}'s person is on it` : "in the bank";
    return h("div", { class: "rio-char", dataset: { character: c }, title: `${words(c)}: price ${info.cost} silver, needs ${info.min_vp} VP. ${info.text || ""}` },
      Number.isInteger(data.owner) ? h("span", { class: "chip", style: `background:${seatFill(data.owner)}` })
        : Number.isInteger(on) ? h("span", { class: "chip ring", style: `border-color:${seatFill(on)}` }) : null,
      h("strong", {}, words(c)), h("span", { class: "rio-price" }, ` ${info.cost ?? "?"} silver · ${info.min_vp ?? "?"} VP`),
      h("span", { class: "rio-who" }, who));
  }));
  const refSpaces = ctx.reference.spaces || {};
  spaces.replaceChildren(...SPACES.map(([key, label, stateKey]) => {
    const people = (view[stateKey] || []).map((count, seat) => (count ? `${name(seat)} ${count}` : null)).filter(Boolean);
    return h("div", { class: "rio-action", dataset: { space: key }, title: refSpaces[key] || "" },
      h("strong", {}, label), h("span", { class: "rio-who" }, people.join(", ") || "empty"));
  }));
  const lines = [];
  const ship = view.ship || {};
  lines.push(`Ship: ${ship.at_sea ? "at sea" : ship.in_play ? "in port" : "not in play"}.`);
  const enemies = Object.entries(view.enemy || {}).map(([enemy, i]) => `${enemy} on space ${i + 1}`);
  if (enemies.length) lines.push(`Enemy tracks: ${enemies.join(", ")}.`);
  const offer = view.offer;
  if (offer) {
    const terms = (items) => Object.entries(items || {}).map(([item, count]) => `${count} ${words(item)}`).join(", ") || "nothing";
    lines.push(`Trade offer ${offer.sent ? "sent" : "being written"}: ${name(offer.from)} gives ${terms(offer.give)} to ${name(offer.to)} for ${terms(offer.get)}.`);
  }
  const battle = view.battle;
  if (battle) lines.push(`Battle against the ${battle.enemy}: ${name(battle.attacker)} leads the attack (${battle.stage}).`);
  for (const due of view.due || []) lines.push(`${name(due.seat)} must place a ${due.kind === "section" && due.what ? `${due.what} section` : due.kind}${due.building ? ` (${words(due.building)})` : ""}.`);
  details.replaceChildren(...lines.map((text) => h("li", {}, text)));
  caption.textContent = battle ? `Battle against the ${battle.enemy}` : `Year ${view.year}`;
}

// What a click on the board does: every legal move that names a thing (a cell, an edge, a space of
// a track, a character, an action space, a group) is bound to that thing; several moves on one
// thing become a question (ctx.choose asks it in the moves area).
function targetsOf(moves) {
  const targets = new Map();
  const add = (key, move) => { if (!targets.has(key)) targets.set(key, []); targets.get(key).push(move); };
  for (const move of moves) {
    const cell = move.cell || move.to;
    if (Array.isArray(cell) && move.type !== "offer_open") add(`cell:${cell[0]},${cell[1]}`, move);
    else if (move.edge) add(`edge:${move.edge}`, move);
    else if (move.type === "place" && move.space === "major") add(`major:${move.building}:${move.grid}:${move.index}`, move);
    else if (move.type === "place" && move.space === "character") add(`char:${move.character}`, move);
    else if (move.type === "claim") add(`char:${move.character}`, move);
    else if ((move.type === "place" || move.type === "collect") && ["mine", "forest"].includes(move.space)) add(`track:${move.space}`, move);
    else if ((move.type === "place" || move.type === "collect") && move.space) add(`space:${move.space}`, move);
    else if (move.type === "craft") add("space:craftsmen", move);
    else if (move.type === "load" || move.type === "launch") add("space:dock", move);
    else if (["bonus", "sacrifice"].includes(move.type)) add(`group:${move.group}`, move);
  }
  return targets;
}

function warningFor(move, view) {
  const ref = view && view._reference;
  if (!move) return null;
  if (!ref || !Number.isInteger(view.seat)) return null;
  const p = (view.p || [])[view.seat] || {};
  const pen = ref.penalty || {};
  const fails = (name) => {
    const info = (ref.characters || {})[name];
    const data = (view.chars || {})[name] || {};
    return info && (p.silver < info.cost || p.vp < info.min_vp || Number.isInteger(data.owner));
  };
  const penalty = `a penalty of ${pen.silver} silver and ${pen.vp} VP`;
  if (move.type === "claim" && fails(move.character)) {
    const info = ref.characters[move.character];
    return `You have ${p.silver} silver and ${p.vp} VP; the ${words(move.character)} needs ${info.cost} silver and ${info.min_vp} VP. Claiming it now costs you ${penalty} instead.`;
  }
  if (move.type === "end_turn") {
    const mine = Object.entries(view.spots || {}).filter(([name, who]) => who === view.seat && fails(name)).map(([name]) => words(name));
    if (mine.length) return `Ending your turn claims the ${mine.join(" and the ")}, which you cannot pay for: it costs you ${penalty} each.`;
    // Ending a turn cannot be taken back (RIO-UNDO-1): people not placed stay in the supply this year.
    const left = view.step === "A" ? placementsLeft(view) : 0;
    if (left && (view.legal_moves || []).some((m) => m.type === "place")) {
      return `You may still place ${left} ${left === 1 ? "person" : "people"} this year. Ending your turn now cannot be taken back.`;
    }
  }
  if (move.type === "launch") {
    return "Ordering the launch costs the launch fee now and cannot be taken back (the fee comes back only if nobody loads a good).";
  }
  return null;
}

function bindBoard(view, ctx) {
  const { city, figure, layers, chars, spaces, hint } = ctx.parts;
  const moves = (ctx.interactive && view.legal_moves) || [];
  view._reference = ctx.reference;
  const targets = targetsOf(moves);
  // A building (its price is worth a look even though it can be undone) and a placement that brings
  // nothing are asked about first, with what they cost or bring beside them, even as the only thing to do there.
  const option = (move) => {
    const note = noteFor(move, view);
    return { label: describeMove(move, ctx), move, warning: warningFor(move, view), note, confirm: move.type === "build" || /^brings nothing/.test(note || "") };
  };
  const ask = (label, list, el) => ctx.choose({ label, prompt: `${label}: what do you do?`, options: list.map(option) }, el);
  // A group that can be picked, standing on a cell or an edge that can be picked too: its ring,
  // drawn over the middle of that cell, would take every click meant for the cell, so the cell
  // offers the group's moves as well and the ring is only a mark under it.
  const sharedPlace = {};
  for (const [id, group] of Object.entries((view.battle && view.battle.groups) || {})) {
    const place = group.at ? `cell:${pair(group.at).join(",")}` : group.edge ? `edge:${group.edge}` : null;
    if (place && targets.has(`group:${id}`) && targets.has(place)) sharedPlace[id] = place;
  }
  for (const [id, place] of Object.entries(sharedPlace)) targets.get(place).push(...targets.get(`group:${id}`));
  // cells and edges: an overlay on top of the buildings and people, so a click always lands
  for (const [key, list] of targets) {
    if (key.startsWith("cell:")) {
      const cell = key.slice(5);
      const [x, y] = pair(cell);
      const rect = s("rect", { x: x * CELL + 1, y: y * CELL + 1, width: CELL, height: CELL, class: "rio-target", "data-target": cell });
      clickable(rect, `Cell ${cellText(cell)}: ${list.map((m) => describeMove(m, ctx)).join("; ")}`, (el) => ask(`Cell ${cellText(cell)}`, list, el));
      layers.targets.append(rect);
    } else if (key.startsWith("edge:")) {
      const edge = key.slice(5);
      const [a, b] = edge.split("-").map(pair);
      // A band around the section (a bare line has no area to point at)
      const [x1, y1, x2, y2] = [a[0] * CELL + 1, a[1] * CELL + 1, b[0] * CELL + 1, b[1] * CELL + 1];
      const line = s("rect", { x: Math.min(x1, x2) - 3, y: Math.min(y1, y2) - 3, width: Math.abs(x2 - x1) + 6,
        height: Math.abs(y2 - y1) + 6, rx: 3, class: "rio-target-edge", "data-edge": edge });
      clickable(line, `The edge ${edgeWords(edge)}: ${list.map((m) => describeMove(m, ctx)).join("; ")}`, (el) => ask(`The edge ${edgeWords(edge)}`, list, el));
      layers.targets.append(line);
    } else if (key.startsWith("group:") && ctx.groupAt && ctx.groupAt[key.slice(6)]) {
      const [cx, cy] = ctx.groupAt[key.slice(6)];
      const id = key.slice(6);
      if (sharedPlace[id]) {
        layers.targets.prepend(s("circle", { cx, cy, r: 9, class: "rio-target-mark", "data-group": id,
          // drawn here, not in the board's CSS (archive.py), which the exported board carries too
          fill: "none", stroke: "#7b2d26", "stroke-width": 2, "pointer-events": "none" }));
        continue;
      }
      const ring = s("circle", { cx, cy, r: 9, class: "rio-target", "data-group": id });
      clickable(ring, `Group ${id}`, (el) => ask(`Group ${id}`, list, el));
      layers.targets.append(ring);
    }
  }
  for (const space of figure.querySelectorAll("g.rio-space")) {
    let list = null;
    if (space.dataset.major) list = targets.get(`major:${space.dataset.major}:${space.dataset.grid}:${space.dataset.space}`);
    else if (space.dataset.track && !space.classList.contains("absent")) list = targets.get(`track:${space.dataset.track}`);
    if (list) {
      const label = space.dataset.major ? `${words(space.dataset.major)}, space ${Number(space.dataset.space) + 1}` : words(space.dataset.track);
      clickable(space, `${label}: ${list.map((m) => describeMove(m, ctx)).join("; ")}`, (el) => ask(label, list, el));
    } else unclickable(space);
  }
  for (const li of chars.querySelectorAll("[data-character]")) {
    const list = targets.get(`char:${li.dataset.character}`);
    if (list) clickable(li, `${words(li.dataset.character)}: ${list.map((m) => describeMove(m, ctx)).join("; ")}`, (el) => ask(words(li.dataset.character), list, el));
    else unclickable(li);
  }
  for (const li of spaces.querySelectorAll("[data-space]")) {
    const list = targets.get(`space:${li.dataset.space}`);
    if (list) clickable(li, `${li.querySelector("strong").textContent}: ${list.map((m) => describeMove(m, ctx)).join("; ")}`, (el) => ask(li.querySelector("strong").textContent, list, el));
    else unclickable(li);
  }
  hint.textContent = targets.size ? "Highlighted cells, spaces and characters can be clicked." : "";
  if (view.step === "A" && Number.isInteger(view.seat) && (view.awaiting || []).includes(view.seat)) {
    hint.textContent += ` ${placementsLeft(view)} of ${PER_TURN} placements left.`;
  }
  city.classList.toggle("interactive", targets.size > 0);
  // A new decision brings the zoomed city to its cells; a redraw meanwhile leaves the scroll alone.
  if (targets.size && !ctx.hadTargets) centreOnTargets(ctx);
  ctx.hadTargets = targets.size > 0;
}

export function render(view, ctx) {
  if (!view) {
    ctx.parts.year.textContent = "The game has not started.";
    return;
  }
  ctx.lastView = view;
  view._reference = ctx.reference;
  drawCity(view, ctx);
  drawTracks(view, ctx);
  drawSide(view, ctx);
  bindBoard(view, ctx);
}

// The seat's own stock, in one line beside its moves (the page puts it there): what a decision
// costs is paid from it, and on a phone the stocks' table is a screen away from the moves.
export function decisionInfo(view, ctx) {
  if (!view || !Number.isInteger(view.seat) || !(view.p || [])[view.seat]) return null;
  const p = view.p[view.seat];
  const items = [["vp", "VP"], ["silver", "silver"], ["stone", "stone"], ["wood", "wood"], ["luxury", "luxury"],
    ["supply", p.supply === 1 ? "person in supply" : "people in supply"]];
  const stock = h("p", { class: "rio-mine", dataset: { seat: String(view.seat) } },
    h("span", { class: "chip", style: `background:${seatFill(view.seat)}`, "aria-hidden": "true" }), h("strong", {}, "You have "),
    ...items.flatMap(([key, label], i) => [i ? " · " : "", h("span", { dataset: { stock: key } }, String(p[key] ?? 0)), ` ${label}`]));
  const offer = offerLine(view, ctx);
  return offer ? h("div", {}, stock, offer) : stock;
}

// A trade offer the seat writes or must answer, beside the moves that change or answer it
// (RIO-TRADE-1, RIO-RL-27): its terms from the seat's side, never only in the log.
function offerLine(view, ctx) {
  const offer = view.offer;
  if (!offer || (offer.from !== view.seat && offer.to !== view.seat)) return null;
  const name = (seat) => (ctx && ctx.names ? ctx.names(seat) : `player ${seat + 1}`);
  const terms = (items) => Object.entries(items || {}).map(([item, count]) => `${count} ${words(item)}`).join(", ") || "nothing";
  const text = offer.from === view.seat
    ? `Your trade offer to ${name(offer.to)}${offer.sent ? " (sent, awaiting the answer)" : " (draft, not sent yet)"}: you give ${terms(offer.give)} for ${terms(offer.get)}.`
    : `${name(offer.from)} offers you a trade: you get ${terms(offer.give)} and give ${terms(offer.get)}.`;
  return h("p", { class: "rio-offer", role: "status" }, text);
}

const PER_TURN = 5; // RIO-PLACE-1: up to 5 people placed in a placement turn

// How many people the seat may still place this turn (RIO-PLACE-1: up to 5, from the supply).
export function placementsLeft(view) {
  if (!view || !Number.isInteger(view.seat)) return null;
  const p = (view.p || [])[view.seat] || {};
  return Math.max(0, Math.min(PER_TURN - (p.placed || 0), p.supply ?? 0));
}

// Phase B's actions on the characters and the action spaces (RIO-ACT-2), drawn far from the moves.
const AWAY = new Set(["claim", "craft", "load", "launch", "collect"]);

// Decisions that choose a place for one thing, said as one task when they have many places.
const PLACES = {
  place_section: "place a section", place_tile: "put the tile on a site", place_attacker: "place an attacker",
  remove_attacker: "remove an attacker", defend: "put a defender on a cell",
};

export function turnHint(view) {
  if (!view) return "Your turn.";
  if (view.step === "A") {
    const left = placementsLeft(view);
    const placing = (view.legal_moves || []).some((m) => m.type === "place");
    if (!placing) return left ? "Your turn: nothing is left where you could place a person; end your turn." : "Your turn: you have placed all your people for this year; end your turn.";
    return `Your turn: ${left} of ${PER_TURN} placements left. Click a highlighted cell, track space or character to place a person.`;
  }
  // Name what there is to do: a highlighted thing may be a screen away (a character, on a phone).
  const moves = [...targetsOf(view.legal_moves || []).values()].flat();
  const todo = moves.map((m) => describeMove(m, { names: (seat) => `player ${seat + 1}`, lastView: view }));
  const away = moves.every((m) => AWAY.has(m.type)); // offered as buttons under the prompt
  const where = away
    ? (todo.length === 1 ? "Click it below (it is highlighted on the board too)." : "Click one below (they are highlighted on the board too).")
    : todo.length === 1 ? "Click it on the board (highlighted) or in the list below." : "Click one on the board (highlighted) or in the list below.";
  // A battle's decisions say what is decided, whatever is clickable (a defender's only move may be "Pass").
  if (view.step === "battle" && view.battle) return `Your turn: ${battleHint(view, view.legal_moves || [], todo.length ? where : "").replace(/^./, (c) => c.toLowerCase())}`.trim();
  if (!todo.length) return "Your turn: choose below.";
  // Many places for one kind of thing (a road section may go on any of 290 edges) are one task
  // said once, not a list of its first places.
  const kinds = new Set(moves.map((m) => m.type));
  const [type] = kinds;
  if (todo.length > 3 && kinds.size === 1 && PLACES[type]) {
    const kind = todo[0].split(" ")[0].toLowerCase(); // "Road", "Wall" or "Section" (words.js)
    const task = type === "place_section" ? (kind === "section" ? "place a section" : `place a ${kind} section`) : PLACES[type];
    return `Your turn: ${task} (${todo.length} places). ${where}`;
  }
  const shown = todo.slice(0, 3).join("; ") + (todo.length > 3 ? `; and ${todo.length - 3} more` : "");
  return `Your turn: ${shown}. ${where}`;
}

// What a move brings or costs, said beside it before it is made (the building's price and VP,
// a space's yield), from the board's reference.
function noteFor(move, view) {
  const ref = (view && view._reference) || {};
  if (move.type === "build") {
    const b = (ref.minors || {})[move.building];
    if (!b) return null;
    return `costs ${b.cost || "nothing"}${b.people ? `, ${b.people} ${b.people === 1 ? "person" : "people"}` : ""}${b.vp ? `; ${b.vp} VP` : "; no VP now"}`;
  }
  if (move.type === "place" && move.space === "major") {
    const m = (ref.majors || {})[move.building];
    return m ? `costs ${m.cost}; its VP when the building is complete` : null;
  }
  if (move.type === "place" && move.space === "character") {
    const c = (ref.characters || {})[move.character];
    return c ? `claim it for ${c.cost} silver with ${c.min_vp} VP, else a penalty` : null;
  }
  if (move.type === "place" && move.space === "field") {
    const every = Number((/every (\d+) people/.exec((ref.spaces || {}).field || "") || [])[1] || 0);
    const mine = ((view && view.field) || [])[view && view.seat] || 0;
    const more = every - ((mine + 1) % every);
    if (every > 1 && (mine + 1) % every !== 0) return `brings nothing unless ${more} more of yours ${more === 1 ? "goes" : "go"} there too (every ${every} people bring 1 silver)`;
    return every ? `with it, your people there bring ${Math.floor((mine + 1) / every)} silver` : null;
  }
  if (move.type === "place" && ["mine", "forest"].includes(move.space)) return `brings 1 ${move.space === "mine" ? "stone" : "wood"} in phase B`;
  return null;
}

// Rio's end: the final VP, by source.
export function endPanel(view, ctx) {
  if (!view || !view.p) return null;
  const winners = (view.result && view.result.winners) || [];
  const sources = [...new Set(view.p.flatMap((p) => Object.keys(p.vp_by || {})))];
  return h("table", { class: "cd-lines end-table" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"),
    h("th", { scope: "col" }, "VP"), ...sources.map((k) => h("th", { scope: "col" }, words(k))), h("th", { scope: "col" }, "Result"))),
  h("tbody", {}, view.p.map((p, seat) => h("tr", {}, h("th", { scope: "row" }, h("span", { class: "chip", style: `background:${seatFill(seat)}` }), ctx.names(seat)),
    h("td", {}, String(p.vp)), ...sources.map((k) => h("td", {}, String((p.vp_by || {})[k] ?? 0))), h("td", {}, winners.includes(seat) ? "won" : "")))));
}

export function status(view, ctx) {
  if (!view) return "The game has not started.";
  if (view.result) {
    const winners = view.result.winners || [];
    return winners.length ? `Game over: ${winners.map(ctx.names).join(" and ")} won.` : "Game over: no winner.";
  }
  const awaited = (view.awaiting || []).map(ctx.names).join(", ");
  return awaited ? `${yearOf(view.year)}, ${STEPS[view.step] || view.step}: ${awaited} to decide.` : "Resolving…";
}

// The moves as a list (the board is the first way to make them; `onBoard` says which ones can be
// clicked there, so the page can fold them into "the moves as a list").
export function choices(moves, ctx) {
  const out = [];
  const groups = new Map();
  const view = ctx && ctx.lastView;
  const targets = targetsOf(moves);
  // Phase B's actions on characters and spaces are drawn a screen or more below the moves on a
  // phone: they are buttons beside the prompt too, not only folded into the list.
  // (Several collections are one button already, "Collect from the mine, the forest": each alone stays folded.)
  const several = moves.filter((m) => m.type === "collect").length > 1;
  const onBoard = new Set([...targets.values()].flat().filter((move) => !AWAY.has(move.type) || (several && move.type === "collect")));
  const option = (move) => ({ label: describeMove(move, ctx), move, warning: warningFor(move, view), note: noteFor(move, view), onBoard: onBoard.has(move) });
  for (const move of moves) {
    const grouped = group(move);
    if (!grouped) { out.push(option(move)); continue; }
    const [key, label, prompt] = grouped;
    if (!groups.has(key)) {
      const entry = { label, prompt, options: [], onBoard: true };
      groups.set(key, entry);
      out.push(entry);
    }
    const entry = groups.get(key);
    entry.options.push(option(move));
    entry.onBoard = entry.onBoard && onBoard.has(move);
  }
  // Collecting from the mine, the forest and the fields are independent moves of one action turn
  // (RIO-ACT-2: the player resolves them in any order): one control makes them all.
  const collect = moves.filter((m) => m.type === "collect");
  if (collect.length > 1) {
    out.unshift({ label: `Collect from the ${collect.map((m) => words(m.space)).join(", the ")}`, moves: collect, onBoard: false });
  }
  // RIO-UNDO-2: the seat's view names the decision it may take back (never a legal move).
  if (view && view.undo && moves.length) out.unshift({ label: undoLabel(view.undo), move: { type: "undo" }, onBoard: false, undo: true });
  return out.map((entry) => (entry.options && entry.options.length === 1 ? entry.options[0] : entry));
}

export function heatmap(el, counts, board) {
  el.innerHTML = board;
  const top = Math.max(1, ...Object.values(counts || {}));
  for (const rect of el.querySelectorAll("rect[data-cell]")) {
    const n = (counts || {})[rect.dataset.cell] || 0;
    if (n) rect.style.fill = `rgba(192, 57, 43, ${0.08 + (0.92 * n) / top})`;
  }
}
