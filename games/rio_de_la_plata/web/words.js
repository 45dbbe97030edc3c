// Rio de la Plata's words for the page: cells, edges, identifiers and every move as a player reads
// it ("Build a house on (3, 4)", "Road between (10, 9) and (10, 10)"), and the groups of moves with
// many variants that become one control and a second question.

import { words } from "/web/static/dom.js";

export { words };

export function cellText(cell) {
  if (Array.isArray(cell)) return `(${cell[0]}, ${cell[1]})`;
  return typeof cell === "string" ? `(${cell.replace(",", ", ")})` : String(cell);
}

// What a section due now is: "Road" or "Wall" (the view's `due`), for the move's words.
function sectionKind(ctx) {
  const view = ctx && ctx.lastView;
  const due = ((view && view.due) || []).find((d) => d.kind === "section" && d.seat === view.seat);
  return due && due.what === "road" ? "Road" : due && due.what === "wall" ? "Wall" : "Section";
}

// A road or wall section's place in words: "between (10,9) and (10,10)".
export const edgeWords = (edge) => {
  const [a, b] = String(edge).split("-");
  return b ? `between ${cellText(a)} and ${cellText(b)}` : String(edge);
};

// -- the moves ------------------------------------------------------------------------------------

export function describeMove(move, ctx) {
  const who = (seat) => (ctx && ctx.names ? ctx.names(seat) : `player ${seat + 1}`);
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
    case "place_section": return `${sectionKind(ctx)} ${edgeWords(move.edge)}`;
    case "choose_resource": return `Take 1 ${move.good}`;
    case "place_attacker": return `Attacker ${edgeWords(move.edge)}`;
    case "fire": return `Fire at ${move.k} attacker${move.k === 1 ? "" : "s"}`;
    case "remove_attacker": return `Remove the attacker ${edgeWords(move.edge)}`;
    case "defend": return `Defender on ${cellText(move.cell)}`;
    case "split": return `Take ${move.size} off the stack ${edgeWords(move.edge)}`;
    case "move": return `Move group ${move.group} to ${cellText(move.to)}`;
    case "withdraw": return `Withdraw ${move.count} from ${cellText(move.cell)}`;
    case "choose_across": return `Send the person at position ${move.person + 1} of the pair across`;
    case "choose_commander": return `Let ${move.commander === undefined ? "?" : who(move.commander)} command the new group`;
    case "consent": return move.accept ? "Agree" : "Refuse";
    case "bonus": return `Start a bonus move with group ${move.group}`;
    case "sacrifice": return `Sacrifice group ${move.group}`;
    case "bonus_step": return `Move group ${move.group} one extra cell to ${cellText(move.to)}`;
    case "pass": return "Pass";
    case "offer_open": return `Write a trade offer to ${who(move.to)}`;
    case "offer_add": return `Add 1 ${words(move.item)} to what you ${move.side === "give" ? "give" : "ask for"}`;
    case "offer_send": return "Send the trade offer";
    case "offer_accept": return "Accept the trade offer";
    case "offer_decline": return "Decline the trade offer";
    case "undo": return "Undo your last placement or build";
    default: return JSON.stringify(move);
  }
}

// The Undo control's words for the decision a seat's view says it may take back (`view.undo`, a
// `placed` or `built` event): "Undo: place a person on cell (3, 4)".
export function undoLabel(taken) {
  const { type, v: _v, seat: _seat, ...fields } = taken;
  const said = describeMove({ ...fields, type: type === "built" ? "build" : "place" });
  return `Undo: ${said[0].toLowerCase()}${said.slice(1)}`;
}

// Moves with many variants are one control and a second question (the same groups as the terminal
// client's menu, games/rio_de_la_plata/text.py).
export function group(move) {
  switch (move.type) {
    case "place":
      if (move.space === "cell") return ["cell", "Place a person on a city cell…", "Which cell?"];
      if (move.space === "major") return [`major:${move.building}`, `Place a person on the ${words(move.building)}…`, "Which space?"];
      if (move.space === "character") return ["character", "Place a person on a character…", "Which character?"];
      return null;
    case "build": return [`build:${move.cell}`, `Build on ${cellText(move.cell)}…`, "Which building?"];
    case "use": return [`use:${move.cell}`, `Use the building on ${cellText(move.cell)}…`, "What do you receive?"];
    case "place_tile": return ["place_tile", "Put the tile on a site…", "Which site?"];
    case "place_section": return ["place_section", "Place a section…", "Where?"];
    case "place_attacker": return ["place_attacker", "Place an attacker…", "Which edge?"];
    case "remove_attacker": return ["remove_attacker", "Remove an attacker…", "Which edge?"];
    case "defend": return ["defend", "Put a defender on a cell…", "Which cell?"];
    case "fire": return ["fire", "Fire the cannons…", "At how many attackers?"];
    case "move": return [`move:${move.group}`, `Move group ${move.group}…`, "Where to?"];
    case "split": return [`split:${move.edge}`, `Split the stack ${edgeWords(move.edge)}…`, "How many?"];
    case "withdraw": return ["withdraw", "Withdraw people…", "From where, and how many?"];
    case "bonus_step": return [`bonus_step:${move.group}`, `Move group ${move.group} one extra cell…`, "Where to?"];
    case "sacrifice": return ["sacrifice", "Sacrifice a group…", "Which group?"];
    case "offer_open": return ["offer_open", "Write a trade offer…", "To whom?"];
    case "offer_add": return ["offer_add", "Add an item to your offer…", "Which item?"];
    default: return null;
  }
}
