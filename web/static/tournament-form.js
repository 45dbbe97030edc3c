// /tournaments/new: the organiser's form, POST /v1/tournaments. The game's own creation fields
// (its module's configFields) give the options; its seat count becomes the table size, so the form
// knows no game. The join code of an entry "by code" is shown once, in the answer: it is kept for
// this tab (sessionStorage) so the tournament's page can show it to the organiser. The clock is the
// lobby's (clock-fields.js); the start is the organiser's button or a time (the workers start it then,
// sent in UTC); invitations name accounts by handle (the API resolves them: UNKNOWN_ACCOUNT).
import { accountApi, h, loadGame, pageData, setApp, showError } from "/web/static/app.js";
import { clockFieldset, readClock } from "/web/static/clock-fields.js";

function input(id, label, attrs) {
  return h("div", { class: "field" }, h("label", { for: id }, label), h("input", { id, name: id, ...attrs }));
}

function optionField(spec) {
  const id = `opt-${spec.key.replace(/\W/g, "-")}`;
  if (spec.type === "checkbox") {
    return h("div", { class: "check" }, h("input", { id, name: spec.key, type: "checkbox" }), h("label", { for: id }, spec.label));
  }
  if (spec.type === "select") {
    return h("div", { class: "field" }, h("label", { for: id }, spec.label),
      h("select", { id, name: spec.key }, spec.options.map(([value, label]) => h("option", { value }, label))));
  }
  return input(id, spec.label, { name: spec.key, type: "number", min: spec.min, max: spec.max, value: spec.value, inputmode: "numeric" });
}

function setPath(target, path, value) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key] = node[key] || {};
  node[keys[keys.length - 1]] = value;
}

export async function createTournamentForm() {
  const games = pageData.games;
  const form = h("form", { class: "create tournament-form", "aria-labelledby": "t-form-title" });
  const gameSelect = h("select", { id: "t-game", name: "game" }, games.map((g) => h("option", { value: g.name }, g.title)));
  const sizeBox = h("div");
  const options = h("div", { class: "fields" });
  const entry = h("select", { id: "t-entry", name: "entry" },
    h("option", { value: "anyone" }, "Anyone signed in"),
    h("option", { value: "code" }, "Whoever has the join code"),
    h("option", { value: "list" }, "Only the accounts listed"));
  const invited = h("textarea", { id: "t-accounts", name: "accounts", rows: 3, autocomplete: "off", spellcheck: "false", placeholder: "Ann\nBob" });
  const accountsBox = h("div", { class: "field invited-field", hidden: true }, h("label", { for: "t-accounts" }, "Players invited: their account names, one a line or separated by commas"),
    invited);
  entry.addEventListener("change", () => { accountsBox.hidden = entry.value !== "list"; });
  const format = h("select", { id: "t-format", name: "format" },
    h("option", { value: "swiss" }, "Swiss (close scores meet)"),
    h("option", { value: "elimination" }, "Elimination (to a final table)"));
  const roundsBox = input("t-rounds", "Rounds", { name: "rounds", type: "number", min: 1, max: 30, value: 3, inputmode: "numeric" });
  const advanceBox = input("t-advance", "Players who go on from each table", { name: "advance", type: "number", min: 1, max: 5, value: 2, inputmode: "numeric" });
  advanceBox.hidden = true;
  // Late entry is the Swiss's only (an elimination's field is fixed by its first round).
  const lateBox = h("div", { class: "check" }, h("input", { id: "t-late", name: "late_entry", type: "checkbox" }),
    h("label", { for: "t-late" }, "Late entry: accounts may join between rounds (no points for the rounds before)"));
  format.addEventListener("change", () => {
    roundsBox.hidden = format.value !== "swiss";
    advanceBox.hidden = format.value !== "elimination";
    lateBox.hidden = format.value !== "swiss";
  });
  const clockBox = clockFieldset("t-clock", "Time control (every table)");
  // The start: the organiser's button, or a time in this browser's time zone (sent in UTC).
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "your time zone";
  // step "any": a time to the second is accepted (the picker still offers minutes).
  const startAt = h("input", { id: "t-start-at", name: "starts_at", type: "datetime-local", step: "any", disabled: true });
  const startManual = h("input", { id: "t-start-manual", name: "start", type: "radio", value: "manual", checked: true });
  const startTimed = h("input", { id: "t-start-timed", name: "start", type: "radio", value: "timed" });
  const startAtBox = h("div", { class: "field start-at" }, h("label", { for: "t-start-at" }, `Start time (${zone})`), startAt);
  const startBox = h("fieldset", { class: "start" }, h("legend", {}, "Start"),
    h("div", { class: "check" }, startManual, h("label", { for: "t-start-manual" }, "When I press Start on its page (entrants join until then)")),
    h("div", { class: "check" }, startTimed, h("label", { for: "t-start-timed" }, "By itself at a time")),
    startAtBox,
    h("p", { class: "muted" }, "If too few have entered by then, it stays open and starts as soon as enough have (or you start it yourself)."));
  for (const radio of [startManual, startTimed]) {
    radio.addEventListener("change", () => {
      startAt.disabled = !startTimed.checked;
      if (startTimed.checked && !startAt.value) {
        // A suggestion: the next quarter hour at least ten minutes ahead, in local time.
        const at = new Date(Date.now() + 10 * 60000);
        at.setMinutes(Math.ceil(at.getMinutes() / 15) * 15, 0, 0);
        const pad = (n) => String(n).padStart(2, "0");
        startAt.value = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
      }
      if (startTimed.checked) startAt.focus();
    });
  }
  const submit = h("button", { type: "submit", class: "primary" }, "Create tournament");
  form.append(
    h("h2", { id: "t-form-title" }, "New tournament"),
    input("t-title", "Title", { name: "title", maxlength: 80, placeholder: "Empty: the game's name" }),
    h("div", { class: "field" }, h("label", { for: "t-game" }, "Game"), gameSelect),
    sizeBox,
    h("div", { class: "field" }, h("label", { for: "t-format" }, "Format"), format),
    roundsBox,
    advanceBox,
    h("div", { class: "field" }, h("label", { for: "t-entry" }, "Who may enter"), entry),
    accountsBox,
    input("t-capacity", "Most entrants (0: no limit)", { name: "capacity", type: "number", min: 0, value: 0, inputmode: "numeric" }),
    h("div", { class: "check" }, h("input", { id: "t-bots", name: "bots", type: "checkbox", checked: true }),
      h("label", { for: "t-bots" }, "Bot accounts may enter")),
    lateBox,
    h("div", { class: "check" }, h("input", { id: "t-rated", name: "rated", type: "checkbox" }),
      h("label", { for: "t-rated" }, "Rated: the tables' games count for the players' ratings")),
    h("div", { class: "check" }, h("input", { id: "t-duplicate", name: "duplicate", type: "checkbox" }),
      h("label", { for: "t-duplicate" }, "Duplicate rounds: every table of a round is dealt the same cards, seats rotated")),
    startBox,
    clockBox,
    h("p", { class: "muted" }, "Tables are as full as the size allows; when the entrants do not divide, some tables get one player fewer (13 at tables of 4: 4+3+3+3)."),
    h("details", { class: "more-options" }, h("summary", {}, "Game options (every table)"), options),
    submit);

  let current = null;
  async function drawFields() {
    const chosen = games.find((g) => g.name === gameSelect.value);
    const { module } = await loadGame(chosen.name);
    const countSpec = module.configFields.find((spec) => spec.key === module.seatCountKey) || { min: 2, max: 6, value: 4 };
    current = { chosen, module };
    sizeBox.replaceChildren(input("t-size", "Players per table", {
      name: "table_size", type: "number", min: countSpec.min, max: countSpec.max, value: countSpec.value, inputmode: "numeric",
    }));
    options.replaceChildren(...module.configFields.filter((spec) => spec.key !== module.seatCountKey).map(optionField));
  }
  gameSelect.addEventListener("change", drawFields);
  await drawFields();

  let busy = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    const config = {};
    for (const spec of current.module.configFields) {
      if (spec.key === current.module.seatCountKey) continue;
      const el = form.querySelector(`[name="${spec.key}"]`);
      if (spec.type === "checkbox") { if (el.checked) setPath(config, spec.key, true); }
      else if (el.value !== "") setPath(config, spec.key, spec.type === "number" ? Number(el.value) : el.value);
    }
    const body = {
      game: current.chosen.name,
      config,
      title: form.querySelector("#t-title").value.trim(),
      table_size: Number(form.querySelector("#t-size").value),
      format: format.value,
      entry: entry.value,
      capacity: Number(form.querySelector("#t-capacity").value) || 0,
      bots: form.querySelector("#t-bots").checked,
      rated: form.querySelector("#t-rated").checked,
      duplicate: form.querySelector("#t-duplicate").checked,
    };
    if (format.value === "swiss") {
      body.rounds = Number(form.querySelector("#t-rounds").value);
      body.late_entry = form.querySelector("#t-late").checked;
    }
    else body.advance = Number(form.querySelector("#t-advance").value);
    if (entry.value === "list") body.accounts = invited.value.split(/[\s,]+/).filter(Boolean);
    const clock = readClock(clockBox);
    if (clock) body.clock = clock;
    if (startTimed.checked) {
      const at = startAt.value ? new Date(startAt.value) : null;
      if (!at || Number.isNaN(at.getTime())) {
        showError("Give the start time, or choose to start it yourself.", startAtBox);
        return;
      }
      body.starts_at = at.toISOString();
    }
    busy = true;
    submit.disabled = true;
    try {
      const { data } = await accountApi("/v1/tournaments", { method: "POST", body });
      if (data.code) sessionStorage.setItem(`tournament-code:${data.id}`, data.code);
      location.assign(`/tournaments/${encodeURIComponent(data.id)}`);
    } catch (error) {
      busy = false;
      submit.disabled = false;
      // Beside the field it is about, when it is about one.
      const near = { UNKNOWN_ACCOUNT: accountsBox, INVALID_START_TIME: startAtBox, START_TIME_PASSED: startAtBox, INVALID_CLOCK: clockBox }[error.code];
      showError(error, near || submit);
    }
  });
  return form;
}

export async function newTournamentPage(signedIn) {
  if (!signedIn) {
    setApp(h("p", {}, h("a", { href: "/sign-in" }, "Sign in"), " to organise a tournament."));
    return;
  }
  setApp(await createTournamentForm());
}
