// "Challenge <player>": the dialog that makes a challenge (POST /v1/challenges) with what the API
// takes: the game, its player count, rated or casual, the clock (the lobby's own fields,
// clock-fields.js) and the seats: drawn at random (the two people among the seats no bot takes,
// bots in the last ones), or chosen seat by seat (`seat_order: given`: you, the player, or a
// server bot of any level in each seat).
import { accountApi, account, describe, h, loadGame, pageData, toast } from "/web/static/app.js";
import { clockFieldset, readClock } from "/web/static/clock-fields.js";

const games = pageData.games || [];

// The game's seat count field, when its page module names it (``seatCountKey``), else null.
export async function seatSpec(name) {
  try {
    const { module } = await loadGame(name);
    return (module.configFields || []).find((spec) => spec.key === module.seatCountKey) || null;
  } catch {
    return null;
  }
}

const levelsOf = (name) => (games.find((g) => g.name === name) || { bots: [] }).bots;

// Each seat's holder: "me", "them" or a bot level. Two people first, bots after (the defaults).
function seatPicker(handle, me) {
  const box = h("fieldset", { class: "challenge-seats", hidden: true }, h("legend", {}, "Who plays each seat"));
  const draw = (count, levels) => {
    const kept = [...box.querySelectorAll("select")].map((s) => s.value);
    box.replaceChildren(box.firstChild, ...Array.from({ length: count }, (_, seat) => {
      const id = `challenge-seat-${seat}`;
      const select = h("select", { id, name: `seat:${seat}` },
        h("option", { value: "me" }, `${me} (you)`), h("option", { value: "them" }, handle),
        ...levels.map((level) => h("option", { value: `bot:${level}` }, `${level} bot`)));
      select.value = kept[seat] || (seat === 0 ? "me" : seat === 1 ? "them" : `bot:${levels[0]}`);
      return h("div", { class: "field" }, h("label", { for: id }, `Seat ${seat + 1}`), select);
    }));
  };
  const read = () => [...box.querySelectorAll("select")].map((s) => s.value);
  return { box, draw, read };
}

// The request's seats and bots for the order chosen; an Error when the seats do not hold both people.
function seating(order, holders, handle, me, level) {
  if (order === "random") {
    const bots = Object.fromEntries(holders.slice(2).map((_, i) => [String(2 + i), level]));
    return { invite: [handle], bots };
  }
  const count = (who) => holders.filter((x) => x === who).length;
  if (count("me") !== 1 || count("them") !== 1) throw new Error(`Give one seat to you and one to ${handle}; bots take the others.`);
  const seats = {};
  const bots = {};
  holders.forEach((who, seat) => {
    if (who.startsWith("bot:")) bots[String(seat)] = who.slice(4);
    else seats[String(seat)] = who === "me" ? me : handle;
  });
  return { seat_order: "given", seats, bots };
}

// `sent(challenge)`: called with the challenge made.
export function challengeDialog(handle, sent) {
  const me = account.get().handle;
  const select = h("select", { id: "challenge-game", name: "game" }, ...games.map((g) => h("option", { value: g.name }, g.title)));
  const rated = h("input", { type: "checkbox", id: "challenge-rated", name: "rated", checked: true });
  const players = h("input", { type: "number", id: "challenge-players", name: "players", value: "2", min: "2", inputmode: "numeric" });
  const playersField = h("div", { class: "field", hidden: true }, h("label", { for: "challenge-players" }, "Players (beyond two: bots)"), players);
  const order = h("select", { id: "challenge-order", name: "seat_order" },
    h("option", { value: "random" }, "Drawn at random"), h("option", { value: "given" }, "I choose"));
  const level = h("select", { id: "challenge-level", name: "level" });
  const levelField = h("div", { class: "field", hidden: true }, h("label", { for: "challenge-level" }, "Bots in the other seats"), level);
  const picker = seatPicker(handle, me);
  const clock = clockFieldset("challenge-clock", "Clock");
  // A refusal is said inside the dialog: a toast would sit under the modal's backdrop.
  const problem = h("p", { class: "inline-error", role: "alert", hidden: true });
  let spec = null;
  const count = () => (spec ? Number(players.value) || 2 : 2);
  const redraw = () => {
    const levels = levelsOf(select.value);
    picker.box.hidden = order.value !== "given";
    levelField.hidden = order.value !== "random" || count() <= 2;
    picker.draw(count(), levels);
  };
  const chosen = async () => {
    spec = await seatSpec(select.value);
    playersField.hidden = !spec;
    if (spec) { players.min = String(spec.min || 2); players.max = String(spec.max || 6); players.value = String(Math.max(2, spec.min || 2)); }
    level.replaceChildren(...levelsOf(select.value).map((l) => h("option", { value: l }, `${l} bot`)));
    redraw();
  };
  // The game's fields come from its page module, loaded on demand: a send before they are known
  // would ask for a game without its player count (refused), so it waits for them.
  let ready = chosen();
  select.addEventListener("change", () => { ready = chosen(); });
  for (const input of [players, order]) { input.addEventListener("change", redraw); input.addEventListener("input", redraw); }
  const dialog = h("dialog", { class: "meet-dialog", "aria-labelledby": "challenge-title" });
  const close = () => { dialog.close(); dialog.remove(); };
  const send = async (event) => {
    event.preventDefault();
    try {
      await ready;
      const holders = order.value === "given" ? picker.read() : Array.from({ length: count() });
      const body = { game: select.value, rated: rated.checked, config: {}, ...seating(order.value, holders, handle, me, level.value) };
      if (spec) body.config[spec.key] = count();
      const time = readClock(clock);
      if (time) body.clock = time;
      const { data } = await accountApi("/v1/challenges", { method: "POST", body });
      toast(`Challenge sent to ${handle}.`, { kind: "info" });
      close();
      sent(data);
    } catch (error) {
      problem.textContent = describe(error);
      problem.hidden = false;
    }
  };
  dialog.append(h("form", { onsubmit: send },
    h("h2", { id: "challenge-title" }, `Challenge ${handle}`),
    h("div", { class: "field" }, h("label", { for: "challenge-game" }, "Game"), select),
    playersField,
    h("div", { class: "check" }, rated, h("label", { for: "challenge-rated" }, "Rated")),
    h("div", { class: "field" }, h("label", { for: "challenge-order" }, "Seats"), order),
    levelField,
    picker.box,
    h("details", { class: "challenge-clock" }, h("summary", {}, "Time control (untimed unless set)"), clock),
    problem,
    h("p", { class: "meet-actions dialog-actions" },
      h("button", { type: "submit", class: "primary" }, "Send challenge"),
      h("button", { type: "button", onclick: close }, "Cancel"))));
  document.body.append(dialog);
  dialog.showModal();
}
