// The lobby (/): create a game with every option the API accepts, join a seat, find games to watch
// or replay.
import { api, h, loadGame, pageData, seats, setApp, showError, when } from "/web/static/app.js";

const games = pageData.games;

// The API's time control (any game): no move time means an untimed game.
const CLOCK_FIELDS = [
  { key: "move_seconds", label: "Seconds per decision (empty: untimed)", type: "number", min: 1 },
  { key: "bank_seconds", label: "Reserve per seat, seconds", type: "number", min: 0 },
  { key: "increment_seconds", label: "Added to the reserve per move, seconds", type: "number", min: 0 },
  { key: "timeouts_to_bot", label: "Timeouts before a bot takes the seat", type: "number", min: 1, max: 1000 },
];

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

async function claimAndPlay(gameId, name, seat) {
  const body = { name };
  if (seat !== undefined) body.seat = seat;
  const { data } = await api(`/v1/games/${gameId}/seats`, { method: "POST", body });
  seats.set(gameId, data);
  location.assign(`/play/${gameId}`);
}

async function createForm() {
  const form = h("form", { class: "create", "aria-labelledby": "create-title" });
  const gameSelect = h("select", { id: "new-game", name: "game" }, games.map((g) => h("option", { value: g.name }, g.title)));
  const specific = h("div", { class: "fields" });
  const botBox = h("fieldset", { class: "bots" }, h("legend", {}, "Bot seats"));
  const clockBox = h("fieldset", { class: "clock" }, h("legend", {}, "Time control"),
    CLOCK_FIELDS.map((spec) => field(spec, "clock")));
  const nameInput = h("input", { id: "new-name", name: "name", autocomplete: "nickname", maxlength: 40, placeholder: "Leave empty to only create" });
  form.append(
    h("h2", { id: "create-title" }, "New game"),
    h("div", { class: "field" }, h("label", { for: "new-game" }, "Game"), gameSelect),
    specific, botBox, clockBox,
    h("div", { class: "field" }, h("label", { for: "new-name" }, "Your name (takes the first free seat)"), nameInput),
    h("button", { type: "submit" }, "Create game"));

  let current = null;
  async function drawFields() {
    const chosen = games.find((g) => g.name === gameSelect.value);
    const { module } = await loadGame(chosen.name);
    current = { chosen, module };
    specific.replaceChildren(...module.configFields.map((spec) => field(spec, "new")));
    const countInput = specific.querySelector(`[name="${module.seatCountKey}"]`);
    const drawBots = () => {
      const count = Number(countInput.value) || 0;
      botBox.replaceChildren(h("legend", {}, "Bot seats"), ...Array.from({ length: Math.min(count, 12) }, (_, seat) => {
        const id = `bot-${seat}`;
        return h("div", { class: "field" }, h("label", { for: id }, `Seat ${seat}`),
          h("select", { id, name: `bot:${seat}` }, h("option", { value: "" }, "a person"),
            chosen.bots.map((level) => h("option", { value: level }, `${level} bot`))));
      }));
    };
    countInput.addEventListener("change", drawBots);
    drawBots();
  }
  gameSelect.addEventListener("change", drawFields);
  await drawFields();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const config = {};
    for (const spec of current.module.configFields) {
      const input = form.querySelector(`[name="${spec.key}"]`);
      if (spec.type === "checkbox") { if (input.checked) setPath(config, spec.key, true); }
      else if (input.value !== "") setPath(config, spec.key, spec.type === "number" ? Number(input.value) : input.value);
    }
    const bots = {};
    for (const select of botBox.querySelectorAll("select")) if (select.value) bots[select.name.slice(4)] = select.value;
    try {
      const clock = {};
      for (const spec of CLOCK_FIELDS) {
        const value = clockBox.querySelector(`[name="${spec.key}"]`).value;
        if (value !== "") clock[spec.key] = Number(value);
      }
      const body = { game: current.chosen.name, config, bots };
      if (Object.keys(clock).length) body.clock = clock;
      const { data } = await api("/v1/games", { method: "POST", body });
      showError(null);
      if (nameInput.value.trim()) await claimAndPlay(data.id, nameInput.value.trim());
      else location.assign(`/watch/${data.id}`);
    } catch (error) {
      showError(error);
    }
  });
  return form;
}

function gameRow(game, action) {
  const names = game.seats.map((s) => s.name || "—").join(", ");
  return h("li", { class: "game", dataset: { game: game.id } },
    h("span", { class: "what" }, `${game.title} · ${game.seat_count} players`),
    h("span", { class: "who" }, names),
    h("span", { class: "when muted" }, when(game.finished || game.started || game.created)),
    action);
}

async function list(status, title, makeAction) {
  const section = h("section", { class: "list", "aria-labelledby": `list-${status}` }, h("h2", { id: `list-${status}` }, title));
  const { data } = await api(`/v1/games?status=${status}&limit=10`);
  section.append(data.games.length
    ? h("ul", { class: "games" }, data.games.map((g) => gameRow(g, makeAction(g))))
    : h("p", { class: "muted" }, "None."));
  return section;
}

function joinForm(game) {
  const id = `join-${game.id}`;
  const input = h("input", { id, name: "name", maxlength: 40, required: true, autocomplete: "nickname" });
  return h("form", {
    class: "join",
    onsubmit: async (event) => {
      event.preventDefault();
      try { await claimAndPlay(game.id, input.value.trim()); } catch (error) { showError(error); }
    },
  }, h("label", { for: id, class: "visually-hidden" }, `Your name for game ${game.id}`), input,
  h("button", { type: "submit" }, "Join"));
}

async function main() {
  const [form, open, running, finished] = await Promise.all([
    createForm(),
    list("open", "Open games: join a seat", joinForm),
    list("active", "Running games: watch", (g) => h("a", { href: `/watch/${g.id}`, class: "button" }, "Watch")),
    list("finished", "Recently finished", (g) => h("a", { href: `/replay/${g.id}`, class: "button" }, "Replay")),
  ]);
  setApp(h("div", { class: "lobby" }, form, h("div", { class: "lists" }, open, running, finished)));
}

main().catch(showError);
