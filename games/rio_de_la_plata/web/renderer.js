// Rio de la Plata on the web pages (interface: web/static/app.js). The board is the export's city
// drawing (archive.py's board_template, served as board.svg: every cell a rect[data-cell="x,y"],
// empty layers g.rio-buildings / g.rio-people / g.rio-sections) and the tracks beside it (each
// space a g.rio-space with data attributes); this module fills them from a view and draws the
// players' stocks, the characters, the ship, a trade offer, a battle and the labels of the moves.

import { h } from "/web/static/app.js";

const SVG = "http://www.w3.org/2000/svg";
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
export const configFields = [
  { key: "players", label: "Players", type: "number", min: 3, max: 5, value: 4 },
  { key: "seed", label: "Seed (optional)", type: "number", min: 0 },
];
export const seatCountKey = "players";
export const cardName = (item) => words(item);

function words(identifier) {
  return String(identifier ?? "").replaceAll("_", " ");
}

function cellText(cell) {
  if (Array.isArray(cell)) return `(${cell[0]}, ${cell[1]})`;
  return typeof cell === "string" ? `(${cell.replace(",", ", ")})` : String(cell);
}

function s(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

const seatFill = (seat) => `var(--seat-${seat % 6})`;

function pair(key) {
  const [x, y] = key.split(",").map(Number);
  return [x, y];
}

export function mount(el, ctx) {
  const figure = h("figure", { class: "board rio" });
  figure.innerHTML = ctx.board; // our own server's SVG (archive.py), never user text
  const city = figure.querySelector("svg.rio-city");
  const layers = {
    buildings: city.querySelector("g.rio-buildings"),
    people: city.querySelector("g.rio-people"),
    sections: city.querySelector("g.rio-sections"),
    battle: s("g", { class: "rio-battle" }),
  };
  city.append(layers.battle);
  const caption = h("figcaption", { class: "board-caption" });
  const cells = h("ul", { class: "visually-hidden", "aria-label": "Cells with buildings or people" });
  figure.append(cells, caption);
  const year = h("p", { class: "rio-year" });
  const players = h("table", { class: "cd-lines rio-stocks" },
    h("thead", {}, h("tr", {}, ["Player", "VP", "Silver", "Stone", "Wood", "Luxury", "People"].map((t) =>
      h("th", { scope: "col" }, t)))), h("tbody"));
  const details = h("ul", { class: "rio-details" });
  const side = h("section", { class: "lines", "aria-labelledby": "rio-title" },
    h("h2", { id: "rio-title" }, "The colony"), year, players, details);
  el.replaceChildren(figure, h("div", { class: "side" }, side));
  ctx.parts = { figure, city, layers, caption, cells, year, players, details };
}

function drawCity(view, ctx) {
  const { city, layers, cells } = ctx.parts;
  for (const layer of Object.values(layers)) layer.replaceChildren();
  cells.replaceChildren();
  for (const [key, cell] of Object.entries(view.city || {})) {
    const [x, y] = pair(key);
    const described = [];
    if (cell.b) {
      const owned = Number.isInteger(cell.own);
      layers.buildings.append(
        s("rect", { x: x * CELL + 3, y: y * CELL + 3, width: CELL - 4, height: CELL - 4, opacity: 0.85,
          class: "rio-building", "data-cell": key, "data-building": cell.b,
          style: `fill:${owned ? seatFill(cell.own) : "#7f6a4f"}` }),
        s("text", { x: x * CELL + CELL / 2 + 1, y: y * CELL + 15, "text-anchor": "middle" }, LETTERS[cell.b] || "?"));
      described.push(`${words(cell.b)}${owned ? ` of ${ctx.names(cell.own)}` : ""}`);
    }
    let i = 0;
    (cell.ppl || []).forEach((count, seat) => {
      for (let n = 0; n < count; n++, i++) {
        layers.people.append(s("circle", { cx: x * CELL + 5 + 5 * i, cy: y * CELL + CELL - 3, r: 2.5,
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
  for (const group of Object.values((battle && battle.groups) || {})) {
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
    const attackers = group.side === "a";
    layers.battle.append(
      s("circle", { cx, cy, r: 7, class: attackers ? "rio-attackers" : "rio-defenders" }),
      s("text", { x: cx, y: cy + 3, "text-anchor": "middle", class: "rio-group-size" }, String(size)));
  }
  // The cells this seat's legal moves name are outlined (placements, buildings, defenders, moves).
  for (const rect of city.querySelectorAll("rect.rio-legal")) rect.classList.remove("rio-legal");
  for (const move of view.legal_moves || []) {
    const cell = move.cell || move.to;
    if (!Array.isArray(cell)) continue;
    const rect = city.querySelector(`rect[data-cell="${cell[0]},${cell[1]}"]`);
    if (rect) rect.classList.add("rio-legal");
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

function drawSide(view, ctx) {
  const { year, players, details, caption } = ctx.parts;
  const name = (seat) => ctx.names(seat);
  const awaiting = view.awaiting || [];
  year.textContent = `Year ${view.year}: ${STEPS[view.step] || view.step}. Turn order: ${(view.order || []).map(name).join(", ")}.`;
  const chars = view.chars || {};
  players.querySelector("tbody").replaceChildren(...(view.p || []).map((p, seat) => {
    const owned = Object.entries(chars).filter(([, c]) => c.owner === seat).map(([c]) => words(c));
    return h("tr", { class: awaiting.includes(seat) ? "turn" : null, dataset: { seat: String(seat) } },
      h("th", { scope: "row" }, h("span", { class: "chip", style: `background:${seatFill(seat)}` }), name(seat),
        awaiting[0] === seat ? h("span", { class: "badge" }, "to play") : null,
        owned.length ? h("small", { class: "muted" }, ` · ${owned.join(", ")}`) : null),
      ...["vp", "silver", "stone", "wood", "luxury", "supply"].map((k) => h("td", { dataset: { stock: k } }, String(p[k] ?? 0))));
  }));
  const lines = [];
  const free = Object.entries(chars).filter(([c, data]) => data.owner === null && !(c in (view.spots || {})));
  lines.push(`Characters in the bank: ${free.map(([c]) => words(c)).join(", ") || "none"}.`);
  const spots = Object.entries(view.spots || {});
  if (spots.length) lines.push(`People on characters: ${spots.map(([c, seat]) => `${words(c)} (${name(seat)})`).join(", ")}.`);
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
  for (const due of view.due || []) lines.push(`${name(due.seat)} must place a ${due.kind}${due.building ? ` (${words(due.building)})` : ""}.`);
  if (view.provisional_board) lines.push("The board uses provisional values (docs/rio-de-la-plata-protocol.md).");
  if (view.config && view.config.board) lines.push("This game uses its own board document; the city is drawn on the package's geometry.");
  details.replaceChildren(...lines.map((text) => h("li", {}, text)));
  caption.textContent = battle ? `Battle against the ${battle.enemy}` : `Year ${view.year}`;
}

export function render(view, ctx) {
  if (!view) {
    ctx.parts.year.textContent = "The game has not started.";
    return;
  }
  drawCity(view, ctx);
  drawTracks(view, ctx);
  drawSide(view, ctx);
}

export function status(view, ctx) {
  if (!view) return "The game has not started.";
  if (view.result) {
    const winners = view.result.winners || [];
    return winners.length ? `Game over: ${winners.map(ctx.names).join(" and ")} won.` : "Game over: no winner.";
  }
  const awaited = (view.awaiting || []).map(ctx.names).join(", ");
  return awaited ? `Year ${view.year}, ${STEPS[view.step] || view.step}: ${awaited} to decide.` : "Resolving…";
}

// -- the moves ------------------------------------------------------------------------------------

export function describeMove(move) {
  switch (move.type) {
    case "place":
      if (move.space === "cell") return `${move.displace ? "Displace the people on" : "Place a person on"} cell ${cellText(move.cell)}`;
      if (move.space === "major") return `Place a person on the ${words(move.building)}, space ${move.index + 1}${move.pay ? `, paying 1 ${move.pay}` : ""}`;
      if (move.space === "character") return `Place a person on the ${words(move.character)}`;
      return `Place on the ${words(move.space)}`;
    case "launch": return "Order the ship's launch";
    case "end_turn": return "End your turn";
    case "buy": return `Buy 1 ${move.good}`;
    case "collect": return `Collect from the ${move.space}`;
    case "claim": return `Claim the ${words(move.character)}`;
    case "craft": return move.give ? `Craftsmen: 1 ${move.give} for 1 luxury` : "Craftsmen: decline";
    case "load": return `Load 1 ${move.good} on the ship`;
    case "build": return `Build a ${words(move.building)} on ${cellText(move.cell)}${move.pool ? ` (${move.pool})` : ""}`;
    case "use": return `Use the building on ${cellText(move.cell)}: option ${move.choice + 1}`;
    case "place_tile": return `Put the tile on ${cellText(move.cell)}`;
    case "place_section": return `Section on edge ${move.edge}`;
    case "choose_resource": return `Take 1 ${move.good}`;
    case "place_attacker": return `Attacker at edge ${move.edge}`;
    case "fire": return `Fire at ${move.k} attacker(s)`;
    case "remove_attacker": return `Remove the attacker at edge ${move.edge}`;
    case "defend": return `Defender on ${cellText(move.cell)}`;
    case "split": return `Take ${move.size} off the stack at ${move.edge}`;
    case "move": return `Move group ${move.group} to ${cellText(move.to)}`;
    case "withdraw": return `Withdraw ${move.count} from ${cellText(move.cell)}`;
    case "choose_across": return `Send the person at position ${move.person + 1} of the pair across`;
    case "choose_commander": return `Let ${move.commander === undefined ? "?" : `seat ${move.commander}`} command the new group`;
    case "consent": return move.accept ? "Agree" : "Refuse";
    case "bonus": return `Start a bonus move with group ${move.group}`;
    case "sacrifice": return `Sacrifice group ${move.group}`;
    case "bonus_step": return `Move group ${move.group} one extra cell to ${cellText(move.to)}`;
    case "pass": return "Pass";
    case "offer_open": return `Write a trade offer to seat ${move.to}`;
    case "offer_add": return `Add 1 ${words(move.item)} to what you ${move.side === "give" ? "give" : "ask for"}`;
    case "offer_send": return "Send the trade offer";
    case "offer_accept": return "Accept the trade offer";
    case "offer_decline": return "Decline the trade offer";
    default: return JSON.stringify(move);
  }
}

// Moves with many variants are one control and a second question (the same groups as the terminal
// client's menu, games/rio_de_la_plata/text.py).
function group(move) {
  switch (move.type) {
    case "place":
      if (move.space === "cell") return ["cell", "Place a person on a city cell…", "Which cell?"];
      if (move.space === "major") return [`major:${move.building}`, `Place a person on the ${words(move.building)}…`, "Which space?"];
      if (move.space === "character") return ["character", "Place a person on a character…", "Which character?"];
      return null;
    case "build": return [`build:${move.cell}`, `Build on ${cellText(move.cell)}…`, "Which building?"];
    case "use": return [`use:${move.cell}`, `Use the building on ${cellText(move.cell)}…`, "What do you receive?"];
    case "place_tile": return ["place_tile", "Put the tile on a site…", "Which site?"];
    case "place_section": return ["place_section", "Place a section…", "Which edge?"];
    case "place_attacker": return ["place_attacker", "Place an attacker…", "Which edge?"];
    case "remove_attacker": return ["remove_attacker", "Remove an attacker…", "Which edge?"];
    case "defend": return ["defend", "Put a defender on a cell…", "Which cell?"];
    case "fire": return ["fire", "Fire the cannons…", "At how many attackers?"];
    case "move": return [`move:${move.group}`, `Move group ${move.group}…`, "Where to?"];
    case "split": return [`split:${move.edge}`, `Split the stack at ${move.edge}…`, "How many?"];
    case "withdraw": return ["withdraw", "Withdraw people…", "From where, and how many?"];
    case "bonus_step": return [`bonus_step:${move.group}`, `Move group ${move.group} one extra cell…`, "Where to?"];
    case "sacrifice": return ["sacrifice", "Sacrifice a group…", "Which group?"];
    case "offer_open": return ["offer_open", "Write a trade offer…", "To whom?"];
    case "offer_add": return ["offer_add", "Add an item to your offer…", "Which item?"];
    default: return null;
  }
}

export function choices(moves) {
  const out = [];
  const groups = new Map();
  for (const move of moves) {
    const grouped = group(move);
    if (!grouped) { out.push({ label: describeMove(move), move }); continue; }
    const [key, label, prompt] = grouped;
    if (!groups.has(key)) {
      const entry = { label, prompt, options: [] };
      groups.set(key, entry);
      out.push(entry);
    }
    groups.get(key).options.push({ label: describeMove(move), move });
  }
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
