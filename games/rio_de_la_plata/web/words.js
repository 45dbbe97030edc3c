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
    case "place_attacker": return `Place an attacker ${edgeWords(move.edge)}`;
    case "fire": return `Fire at ${move.k} attacker${move.k === 1 ? "" : "s"}`;
    case "remove_attacker": return `Remove the attacker ${edgeWords(move.edge)}`;
    case "defend": return `Put a defender on cell ${cellText(move.cell)}`;
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

// What a battle decision is, said to the player who makes it (RIO-RL-69, RIO-RL-70): the stage,
// what the moves offered allow, and what "Pass" ends; the cell or edge named when there is one.
// `moves`: the seat's legal moves; `where`: how to click them ("Click it on the board ...").
export function battleHint(view, moves, where) {
  const battle = view.battle;
  const enemy = `the ${battle.enemy}`;
  const of = (type) => moves.filter((m) => m.type === type);
  const one = (list, many) => (list.length === 1 ? describeMove(list[0]).replace(/^./, (c) => c.toLowerCase()) : many);
  const me = (view.p || [])[view.seat] || {};
  switch (battle.stage) {
    case "place": {
      const left = battle.to_place ? ` (${battle.to_place} still to place)` : "";
      return `You lead the attack of ${enemy}: ${one(of("place_attacker"), `place an attacker on one of ${of("place_attacker").length} edges of the city`)}${left}. ${where}`;
    }
    case "cannon": return `Your cannons fire at ${enemy}'s attackers: choose at how many you fire (the dice decide the hits).`;
    case "cannon_remove": return `Your cannons hit: ${one(of("remove_attacker"), "remove an attacker from an edge of the city")}${battle.hits ? ` (${battle.hits} to remove)` : ""}. ${where}`;
    case "defend": {
      const cells = of("defend");
      if (cells.length) {
        const price = battle.free_left ? `you have ${battle.free_left} free defender${battle.free_left === 1 ? "" : "s"} left` : "a defender now is recruited for silver";
        return `Defend the city against ${enemy}: ${one(cells, `put a defender on one of ${cells.length} cells`)} (${price}), or pass when you have put all you want. ${where}`;
      }
      const why = !me.supply ? "you have nobody left in your supply to defend with" : battle.free_left ? "there is no cell where you may put a defender" : "you have too little silver to recruit a defender";
      return `Defend the city against ${enemy}: ${why}, so pass.`;
    }
    case "split": return `You lead the attack of ${enemy}: split the attackers' stacks into groups (choose a stack and how many to take off it). ${where}`;
    case "withdraw":
      return of("withdraw").length
        ? `The fighting against ${enemy} is over: take people of yours back from the city into your supply, or pass to leave them where they are. ${where}`
        : `The fighting against ${enemy} is over and you have no people in the city to take back: pass.`;
    case "move": {
      if (of("consent").length) return "A move would put people of yours into another group (or sacrifice one of your groups): agree or refuse.";
      if (of("choose_across").length) return "Your groups regroup two and two: choose which person of the pair goes across.";
      if (of("choose_commander").length) return "The new group holds people of several players: choose who commands it.";
      if (of("sacrifice").length) return `Your bonus move: choose a group to sacrifice (${one(of("sacrifice"), `${of("sacrifice").length} can be`)}). ${where}`;
      if (of("bonus_step").length) return `Your bonus move: ${one(of("bonus_step"), `move group ${of("bonus_step")[0].group} one extra cell`)}. ${where}`;
      const round = battle.round ? `Battle round ${battle.round}` : "The battle round";
      if (!of("move").length && !of("bonus").length) return `${round} against ${enemy}: none of your groups can move now, so pass to end your part of this battle round.`;
      return `${round} against ${enemy}: move one of your groups (or start a bonus move), or pass to end your part of this battle round. ${where}`;
    }
    default: return `The battle against ${enemy}: choose below.`;
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
