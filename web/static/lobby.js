// The lobby (/): play against the computer in one click, create a game with every option the API
// accepts, join a seat, find games to watch or replay (open games live: lobby-live.js).
import { account, api, guestName, h, loadGame, pageData, seatName, seats, setApp, showError, when } from "/web/static/app.js";
import { gameTitle } from "/web/static/dom.js";
import { claimAndPlay, joinForm } from "/web/static/join.js";
import { openGameLine } from "/web/static/rating-bits.js";
import { idleness } from "/web/static/idle.js";
import { CLOCK_FIELDS } from "/web/static/clock-fields.js";
import { followOpenGames } from "/web/static/lobby-live.js";

const games = pageData.games;

function field(spec, idPrefix) {
  const id = `${idPrefix}-${spec.key.replace(/\W/g, "-")}`;
  let input;
  if (spec.type === "select") {
    input = h("select", { id, name: spec.key }, spec.options.map(([value, label]) => h("option", { value }, label)));
  } else if (spec.type === "checkbox") {
    input = h("input", { id, name: spec.key, type: "checkbox" });
    return h("div", { class: "check" }, input, h("label", { for: id }, spec.label));
  } else {
    input = h("input", { id, name: spec.key, type: "number", min: spec.min, max: spec.max, value: spec.value, inputmode: "numeric" });
  }
  return h("div", { class: "field" }, h("label", { for: id }, spec.label), input);
}

function setPath(target, path, value) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key] = node[key] || {};
  node[keys[keys.length - 1]] = value;
}

// Signed in, the claim carries the account's token: the seat is bound to the account (its handle is
// the seat's name) and follows it to every device ("My games"); the seat token is issued as ever.
async function createForm() {
  const form = h("form", { class: "create", "aria-labelledby": "create-title" });
  const gameSelect = h("select", { id: "new-game", name: "game" }, games.map((g) => h("option", { value: g.name }, g.title)));
  const specific = h("div", { class: "fields" });
  const botBox = h("fieldset", { class: "bots" }, h("legend", {}, "Bot seats"));
  const clockBox = h("fieldset", { class: "clock" }, h("legend", {}, "Time control"),
    CLOCK_FIELDS.map((spec) => field(spec, "clock")));
  const nameInput = h("input", { id: "new-name", name: "name", autocomplete: "nickname", maxlength: 40,
    placeholder: "Empty: only create", value: localStorage.getItem("pref:name") ? JSON.parse(localStorage.getItem("pref:name")) : "" });
  const submit = h("button", { type: "submit" }, "Create game");
  const quick = h("button", { type: "button", class: "primary", onclick: () => playComputer() }, "Play against the computer");
  const signedIn = account.get();
  const watchOnly = h("input", { id: "new-watch", type: "checkbox" });
  form.append(
    h("h2", { id: "create-title" }, "New game"),
    h("div", { class: "field" }, h("label", { for: "new-game" }, "Game"), gameSelect),
    signedIn
      ? h("div", { class: "check" }, watchOnly, h("label", { for: "new-watch" }, `Only create (else you, ${signedIn.handle}, take the first free seat)`))
      : h("div", { class: "field" }, h("label", { for: "new-name" }, "Your name (takes the first free seat)"), nameInput),
    h("div", { class: "quick" }, quick, h("span", { class: "muted" }, " you and bots, with the usual options")),
    h("details", { class: "more-options" }, h("summary", {}, "All options"), specific, botBox, clockBox),
    submit);

  let current = null;
  async function drawFields() {
    const chosen = games.find((g) => g.name === gameSelect.value);
    const { module } = await loadGame(chosen.name);
    current = { chosen, module };
    specific.replaceChildren(...module.configFields.map((spec) => field(spec, "new")));
    const countInput = specific.querySelector(`[name="${module.seatCountKey}"]`);
    // The choices made so far survive a change of the player count (seats kept keep their choice).
    const chosenBots = {};
    const drawBots = () => {
      for (const select of botBox.querySelectorAll("select")) chosenBots[select.name] = select.value;
      const count = Number(countInput.value) || 0;
      botBox.replaceChildren(h("legend", {}, "Who plays each seat"), ...Array.from({ length: Math.min(count, 12) }, (_, seat) => {
        const id = `bot-${seat}`;
        const select = h("select", { id, name: `bot:${seat}` }, h("option", { value: "" }, "a person"),
          chosen.bots.map((level) => h("option", { value: level }, `${level} bot`)));
        if (chosenBots[`bot:${seat}`] !== undefined) select.value = chosenBots[`bot:${seat}`];
        return h("div", { class: "field" }, h("label", { for: id }, `Player ${seat + 1}`), select);
      }));
    };
    countInput.addEventListener("change", drawBots);
    countInput.addEventListener("input", drawBots);
    drawBots();
  }
  gameSelect.addEventListener("change", drawFields);
  await drawFields();

  // One game per click: the buttons stay disabled until the answer (a double click creates one game).
  let busy = false;
  async function create(body, name, button) {
    if (busy) return;
    busy = true;
    submit.disabled = quick.disabled = true;
    try {
      const { data } = await api("/v1/games", { method: "POST", body });
      showError(null);
      if (signedIn ? !watchOnly.checked || button === quick : name) {
        if (name && !signedIn) localStorage.setItem("pref:name", JSON.stringify(name));
        await claimAndPlay(data.id, name);
      } else location.assign(`/watch/${data.id}`);
    } catch (error) {
      busy = false;
      submit.disabled = quick.disabled = false;
      showError(error, button);
    }
  }

  function playComputer() {
    const { chosen, module } = current;
    const countSpec = module.configFields.find((spec) => spec.key === module.seatCountKey);
    const count = Number((countSpec && countSpec.value) || 3);
    const level = chosen.bots.includes("heuristic") ? "heuristic" : chosen.bots[chosen.bots.length - 1];
    const bots = Object.fromEntries(Array.from({ length: count - 1 }, (_, i) => [String(i + 1), level]));
    create({ game: chosen.name, config: { [module.seatCountKey]: count }, bots }, nameInput.value.trim() || guestName(), quick);
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    const config = {};
    for (const spec of current.module.configFields) {
      const input = form.querySelector(`[name="${spec.key}"]`);
      if (spec.type === "checkbox") { if (input.checked) setPath(config, spec.key, true); }
      else if (input.value !== "") setPath(config, spec.key, spec.type === "number" ? Number(input.value) : input.value);
    }
    const bots = {};
    for (const select of botBox.querySelectorAll("select")) if (select.value) bots[select.name.slice(4)] = select.value;
    const seatsCount = botBox.querySelectorAll("select").length;
    const plays = signedIn ? !watchOnly.checked : nameInput.value.trim();
    if (plays && seatsCount && Object.keys(bots).length >= seatsCount) {
      showError(new Error(signedIn
        ? "Every seat is a bot: leave one to a person to play, or tick \"Only create\" to watch."
        : "Every seat is a bot: leave one to a person to play, or empty your name to watch."), submit);
      return;
    }
    try {
      const clock = {};
      for (const spec of CLOCK_FIELDS) {
        const value = clockBox.querySelector(`[name="${spec.key}"]`).value;
        if (value !== "") clock[spec.key] = Number(value);
      }
      const body = { game: current.chosen.name, config, bots };
      if (Object.keys(clock).length) body.clock = clock;
      await create(body, nameInput.value.trim(), submit);
    } catch (error) {
      showError(error, submit);
    }
  });
  return form;
}


// A finished game's winners, said after its players.
function winnersOf(game) {
  const winners = (game.status === "finished" && game.result && game.result.winners) || null;
  if (!winners) return null;
  const names = winners.map((seat) => seatName(game, seat));
  const listed = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
  const text = names.length ? `${listed} won` : "no winner";
  return h("strong", { class: "winner" }, ` · ${text}`);
}

function gameRow(game, action) {
  const names = game.seats.map((s) => (s.name ? seatName(game, s.seat) : "free seat")).join(", ");
  const idle = game.idle;
  return h("li", { class: "game", dataset: { game: game.id } },
    h("span", { class: "what" }, `${game.title || gameTitle(games, game.game)} · ${game.seat_count} players`),
    h("span", { class: "who" }, names, winnersOf(game)),
    h("span", { class: "when muted" }, idle
      ? `Idle since ${when(new Date(idle.since).toISOString())}: ${idle.reason}`
      : when(game.finished || game.updated || game.started || game.created)),
    game.status === "open" ? openGameLine(game, (account.get() || {}).handle) : null,
    action);
}

async function fetchList(status) {
  const { data } = await api(`/v1/games?status=${status}&limit=20`);
  return data.games;
}

function listSection(key, title, rows, makeAction) {
  return h("section", { class: "list", "aria-labelledby": `list-${key}`, dataset: { list: key } }, h("h2", { id: `list-${key}` }, title),
    rows.length ? h("ul", { class: "games" }, rows.map((g) => gameRow(g, makeAction(g)))) : h("p", { class: "muted" }, "None."));
}

// A game this browser holds a seat of is played, not watched (joined here, or resumed).
const watch = (g) => (seats.get(g.id)
  ? h("a", { href: `/play/${g.id}`, class: "button primary" }, "Play")
  : h("a", { href: `/watch/${g.id}`, class: "button" }, "Watch"));

// Running and finished games are on no stream: read on load, when an open game goes (it may have
// started) and every RUNNING_MS (games finish, and idleness comes with time).
const RUNNING_MS = 30000;

async function runningLists() {
  const [active, finished] = await Promise.all(["active", "finished"].map(fetchList));
  // Idle: left by its players, by the game's own clock (web/static/idle.js says the rule).
  const now = Date.now();
  for (const g of active) g.idle = idleness(g, now);
  const idle = (g) => g.idle !== null;
  return [
    listSection("active", "Running games: watch", active.filter((g) => !idle(g)), watch),
    listSection("finished", "Recently finished", finished.slice(0, 10), (g) => h("a", { href: `/replay/${g.id}`, class: "button" }, "Replay")),
    listSection("idle", "Idle: nobody is moving them", active.filter(idle), watch),
  ];
}

// A section whose content is redrawn unless the person is typing in it (a name in a Join form):
// then once they leave it.
function redrawable(initial) {
  const slot = h("div", { class: "list-slot" }, initial);
  let pending = null;
  slot.addEventListener("focusout", () => setTimeout(() => {
    if (pending && !slot.contains(document.activeElement)) { slot.replaceChildren(...pending); pending = null; }
  }));
  return {
    slot,
    draw(children) {
      if (slot.contains(document.activeElement)) pending = children;
      else { pending = null; slot.replaceChildren(...children); }
    },
  };
}

async function main() {
  const openSlot = redrawable(h("p", { class: "muted" }, "Loading the open games…"));
  const [form, running] = await Promise.all([createForm(), runningLists()]);
  const runningSlot = redrawable(running);
  setApp(h("div", { class: "lobby" }, form, h("div", { class: "lists" }, openSlot.slot, runningSlot.slot)));
  const refreshRunning = async () => {
    if (document.hidden) return;
    try { runningSlot.draw(await runningLists()); } catch { /* the next round tries again */ }
  };
  followOpenGames({
    onChange: (open) => openSlot.draw([listSection("open", "Open games: join a seat", open, joinForm)]),
    onStarted: refreshRunning,
  });
  setInterval(refreshRunning, RUNNING_MS);
}

main().catch(showError);
