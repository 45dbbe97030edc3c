// Tournaments: the list (/tournaments), one tournament (/tournaments/<id>: standings, rounds with
// their tables and results, "your table", join / withdraw / start for whoever may use them) and
// the create form (/tournaments/new, tournament-form.js), all through /v1/tournaments.
//
// Live by polling the tournament every POLL_MS while the tab is visible, as "My games" does (the
// reasons are there): a round's pairings appear a few seconds after its start at most.
import { account, accountApi, api, describe, h, pageData, serialized, setApp, showError } from "/web/static/app.js";
import { gameTitle } from "/web/static/dom.js";
import { newTournamentPage } from "/web/static/tournament-form.js";

const POLL_MS = 4000;
const STATUS = { open: "open for entries", running: "running", finished: "finished" };
const ENTRY = { anyone: "anyone signed in", code: "with the join code", list: "by invitation" };

// The signed-in account's id (GET /v1/me), to find it among entrants, organisers and tables.
let me = null;
async function whoAmI() {
  if (!account.get()) return null;
  if (!me) {
    try { me = (await accountApi("/v1/me")).data; } catch { return null; }
  }
  return me;
}

function points(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function summaryLine(t) {
  const s = t.settings;
  const active = t.entrants.filter((e) => !e.withdrawn).length;
  let round = t.status === "open" ? `${s.rounds} round${s.rounds === 1 ? "" : "s"}` : `round ${t.round} of ${s.rounds}`;
  if (s.format === "elimination") round = `elimination, ${s.advance} go on per table${t.status === "open" ? "" : ` · round ${t.round}`}`;
  return `${gameTitle(pageData.games, s.game)} · tables of ${s.table_size} · ${round} · ${active} entrant${active === 1 ? "" : "s"}`;
}

// The tables' time control, as the lobby's form gives it (clock-fields.js).
function clockLine(clock) {
  if (!clock) return "No clock";
  const parts = [`${clock.move_seconds} s a decision`];
  if (clock.bank_seconds) parts.push(`${clock.bank_seconds} s reserve${clock.increment_seconds ? ` + ${clock.increment_seconds} s a move` : ""}`);
  parts.push(`a bot takes a seat after ${clock.timeouts_to_bot} timeout${clock.timeouts_to_bot === 1 ? "" : "s"}`);
  return `Clock: ${parts.join(", ")}`;
}

// What the games count for and how they are dealt: rated or not, duplicate rounds, late entry.
function termsLine(s) {
  const parts = [s.rated ? "Rated games" : "Unrated games"];
  if (s.duplicate) parts.push("duplicate rounds: every table of a round is dealt the same cards");
  if (s.late_entry) parts.push("late entry between rounds");
  return parts.join("; ");
}

// When it starts: by itself at its start time (shown in the reader's time zone), or by its organiser.
function startLine(t) {
  if (t.status !== "open") return null;
  const at = t.settings.starts_at ? new Date(t.settings.starts_at) : null;
  if (!at) return "Starts when its organiser starts it";
  const text = at.toLocaleString([], { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  return at.getTime() > Date.now() ? `Starts by itself ${text}` : `Start time ${text} passed with too few entrants: its organiser starts it`;
}

function listRow(t) {
  return h("li", { class: "game", dataset: { tournament: t.id } },
    h("span", { class: "what" }, t.settings.title, h("span", { class: `badge${t.status === "finished" ? " muted" : ""}` }, STATUS[t.status] || t.status)),
    h("span", { class: "who" }, summaryLine(t)),
    h("span", { class: "when muted" }, `Entry: ${ENTRY[t.settings.entry] || t.settings.entry}${t.settings.bots ? ", bot accounts welcome" : ""}`,
      startLine(t) ? ` · ${startLine(t)}` : ""),
    h("a", { class: "button", href: `/tournaments/${encodeURIComponent(t.id)}` }, t.status === "open" ? "Enter or view" : "View"));
}

async function listPage() {
  const { data } = await api("/v1/tournaments");
  const groups = ["open", "running", "finished"].map((status) => [status, data.tournaments.filter((t) => t.status === status)]);
  const organise = account.get()
    ? h("a", { class: "button primary", href: "/tournaments/new" }, "Organise a tournament")
    : h("p", {}, h("a", { href: "/sign-in" }, "Sign in"), " to enter or organise a tournament.");
  setApp(h("p", { class: "tournament-intro" }, "Swiss and elimination for tables of several players: in a Swiss close scores meet, repeat opponents are avoided, first seats go round. ", organise,
    h("span", {}, " Bot authors: the ", h("a", { href: "/ladder" }, "bot ladder"), " plays your bot account against the server's bots round after round.")),
    ...groups.map(([status, rows]) => h("section", { class: "list", "aria-labelledby": `list-${status}`, dataset: { list: status } },
      h("h2", { id: `list-${status}` }, { open: "Open for entries", running: "Running", finished: "Finished" }[status]),
      rows.length ? h("ul", { class: "games" }, rows.map(listRow)) : h("p", { class: "muted" }, "None."))));
}

// -- one tournament -------------------------------------------------------------------

function namesOf(t) {
  return new Map(t.entrants.map((e) => [e.account, e.name]));
}

function myTable(t, mine) {
  if (!mine || !t.rounds.length) return null;
  const last = t.rounds[t.rounds.length - 1];
  const index = last.tables.findIndex((table) => table.players.includes(mine));
  if (index < 0) return null;
  return { round: last.round, index, table: last.tables[index], seat: last.tables[index].players.indexOf(mine) };
}

function yourTable(t, mine) {
  const found = myTable(t, mine);
  if (!found) return null;
  const { round, index, table, seat } = found;
  const where = `Round ${round}, table ${index + 1}, seat ${seat + 1}${seat === 0 && t.first_seat_starts ? " (first player)" : ""}`;
  let action;
  if (table.placing) action = table.game ? h("a", { class: "button", href: `/replay/${encodeURIComponent(table.game)}` }, "Replay your game") : h("span", { class: "muted" }, "finished");
  else if (table.game) action = h("a", { class: "button primary your-table", href: `/play/${encodeURIComponent(table.game)}` }, "Your table: play");
  else action = h("span", { class: "muted your-table-pending" }, "Your table's game is being set up…");
  return h("section", { class: "your-table-box", "aria-labelledby": "your-table-title" },
    h("h2", { id: "your-table-title" }, "Your table"), h("p", {}, where, " "), action);
}

function actions(t, mine, refresh) {
  const out = [];
  const entered = t.entrants.find((e) => e.account === mine && !e.withdrawn);
  const run = (label, path, body, cls = "") => {
    const button = h("button", { type: "button", class: cls, dataset: { action: label.toLowerCase() } }, label);
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await accountApi(`/v1/tournaments/${encodeURIComponent(t.id)}/${path}`, { method: "POST", body: body ? body() : {} });
        showError(null);
        await refresh();
      } catch (error) {
        button.disabled = false;
        showError(error, button);
      }
    });
    return button;
  };
  if (!account.get()) {
    if (t.status === "open") out.push(h("p", {}, h("a", { href: "/sign-in" }, "Sign in"), " to enter."));
    return out;
  }
  const invited = t.settings.entry !== "list" || (t.settings.accounts || []).includes(mine);
  if (t.status === "open" && !entered && !invited) out.push(h("p", { class: "muted not-invited" }, "You are not on its invitation list."));
  else if (t.status === "open" && !entered) {
    if (t.settings.entry === "code") {
      const code = h("input", { id: "join-code", name: "code", autocomplete: "off", maxlength: 64 });
      out.push(h("div", { class: "field" }, h("label", { for: "join-code" }, "Join code"), code),
        run("Join", "join", () => ({ code: code.value.trim() }), "primary"));
    } else out.push(run("Join", "join", null, "primary"));
  }
  if (entered && t.status !== "finished") out.push(run("Withdraw", "withdraw", null, "secondary"));
  if (t.status === "open" && mine === t.organiser) {
    // The organiser may fill the field with the server's bots (they play their tables on the server).
    const levels = (pageData.games.find((g) => g.name === t.settings.game) || {}).bots || [];
    if (t.settings.bots && levels.length) {
      const level = h("select", { id: "bot-level", name: "level" }, levels.map((l) => h("option", { value: l }, `${l} bot`)));
      out.push(h("div", { class: "field add-bot" }, h("label", { for: "bot-level" }, "Server bot"), level),
        run("Add bot", "bots", () => ({ level: level.value })));
    }
    out.push(run("Start", "start", null, entered ? "" : "primary"));
  }
  return out;
}

// An elimination ranks by the round reached, then the place at that round's table; a Swiss by points.
function reachedCell(t, s) {
  if (!s.round) return "—";
  const last = t.rounds[t.rounds.length - 1];
  const final = t.status === "finished" && s.round === t.rounds.length && last.tables.length === 1;
  return final ? "Final" : `Round ${s.round}`;
}

// "2nd=" when others shared that place at the same table, as the rounds' tables show it.
function placeCell(t, s) {
  if (!s.round) return "—";
  if (!s.place) return "playing";
  const table = t.rounds[s.round - 1].tables.find((x) => x.players.includes(s.account));
  const tied = table?.placing?.find((group) => group.includes(s.account));
  return `${ordinal(s.place)}${tied && tied.length > 1 ? "=" : ""}`;
}

function standingsTable(t, names, mine) {
  if (!t.standings.length) return h("p", { class: "muted" }, "No entrant yet.");
  const knockout = t.settings.format === "elimination";
  const head = [h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Player")];
  if (knockout) head.push(h("th", { scope: "col" }, "Reached"), h("th", { scope: "col", class: "num" }, "Place"));
  head.push(h("th", { scope: "col", class: "num" }, "Points"), h("th", { scope: "col", class: "num" }, knockout ? "Opp. points" : "Opponents' points"));
  const row = (s) => {
    const cells = [h("td", {}, String(s.rank)), h("th", { scope: "row" }, names.get(s.account) || s.account, s.account === mine ? " (you)" : "")];
    if (knockout) cells.push(h("td", { class: "reached" }, reachedCell(t, s)), h("td", { class: "num" }, placeCell(t, s)));
    cells.push(h("td", { class: "num" }, points(s.score)), h("td", { class: "num" }, points(s.opponents)));
    return h("tr", { class: s.account === mine ? "me" : null, dataset: { account: s.account } }, cells);
  };
  return h("div", { class: "scroll" }, h("table", { class: `results standings${knockout ? " knockout" : ""}` },
    h("thead", {}, h("tr", {}, head)), h("tbody", {}, t.standings.map(row))),
  knockout ? h("p", { class: "muted" }, "Ranked by the round reached, then the place at that round's table; points break ties.") : null);
}

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${tail}`;
}

// A finished table's place of a player ("2nd", "2nd=" when tied), beside the seat order.
function placeOf(table, player) {
  if (!table.placing) return null;
  let place = 1;
  for (const tied of table.placing) {
    if (tied.includes(player)) return h("span", { class: "place" }, ` · ${ordinal(place)}${tied.length > 1 ? "=" : ""}`);
    place += tied.length;
  }
  return null;
}

function roundSection(round, names, mine) {
  return h("section", { class: "round", "aria-labelledby": `round-${round.round}`, dataset: { round: String(round.round) } },
    h("h2", { id: `round-${round.round}` }, `Round ${round.round}`),
    h("ol", { class: "tables" }, round.tables.map((table, i) => h("li", { class: `tournament-table${table.players.includes(mine) ? " mine" : ""}`, dataset: { table: String(i) } },
      h("span", { class: "table-name" }, `Table ${i + 1}`, table.placing ? h("span", { class: "badge muted" }, "finished") : null),
      h("ol", { class: "seats", "aria-label": `Table ${i + 1}, in seat order` }, table.players.map((p) => h("li", {}, names.get(p) || p, p === mine ? " (you)" : "", placeOf(table, p)))),
      table.game ? h("a", { href: `/${table.placing ? "replay" : "watch"}/${encodeURIComponent(table.game)}` }, table.placing ? "Replay" : "Watch") : null))));
}

function drawOne(t, mine, refresh) {
  const names = namesOf(t);
  document.getElementById("title").textContent = t.settings.title;
  document.title = `${t.settings.title} · Game server`;
  const code = sessionStorage.getItem(`tournament-code:${t.id}`);
  const head = h("section", { class: "tournament-head", "aria-label": "About" },
    h("p", { class: "status" }, `${STATUS[t.status] || t.status}`.replace(/^./, (c) => c.toUpperCase())),
    h("p", {}, summaryLine(t)),
    startLine(t) ? h("p", { class: "start-line" }, `${startLine(t)}.`) : null,
    h("p", { class: "clock-line" }, `${clockLine(t.settings.clock)}.`),
    h("p", { class: "terms-line" }, `${termsLine(t.settings)}.`),
    h("p", { class: "muted" }, `Entry: ${ENTRY[t.settings.entry] || t.settings.entry}; bot accounts ${t.settings.bots ? "welcome" : "not admitted"}. Organised by ${names.get(t.organiser) || (t.organiser === mine ? "you" : "its organiser")}.`),
    code && mine === t.organiser ? h("p", {}, "Join code: ", h("strong", { class: "join-code" }, code)) : null,
    h("div", { class: "actions" }, actions(t, mine, refresh)));
  const entrants = h("section", { "aria-labelledby": "entrants-title" }, h("h2", { id: "entrants-title" }, `Entrants (${t.entrants.filter((e) => !e.withdrawn).length})`),
    h("ul", { class: "players entrants" }, t.entrants.map((e) => h("li", { class: e.withdrawn ? "muted" : null }, e.name, e.withdrawn ? " (withdrawn)" : "", e.account === mine ? " (you)" : ""))));
  const standings = h("section", { "aria-labelledby": "standings-title", dataset: { list: "standings" } },
    h("h2", { id: "standings-title" }, "Standings"), standingsTable(t, names, mine));
  const rounds = [...t.rounds].reverse().map((r) => roundSection(r, names, mine));
  return [head, yourTable(t, mine), t.status === "open" ? entrants : standings, ...rounds, t.status === "open" ? null : entrants].filter(Boolean);
}

async function onePage() {
  const id = pageData.data.tournament_id;
  const box = h("div", { class: "tournament" });
  setApp(box);
  let timer = null;
  const refresh = serialized(async () => {
    try {
      const mine = (await whoAmI())?.account ?? null;
      const { data } = await api(`/v1/tournaments/${encodeURIComponent(id)}`);
      // A control the person is using is not redrawn under them.
      if (!box.contains(document.activeElement) || document.activeElement.tagName !== "INPUT") {
        box.replaceChildren(...drawOne(data, mine, refresh));
      }
      box.dataset.status = data.status;
      box.dataset.round = String(data.round);
      if (data.status === "finished") clearInterval(timer);
    } catch (error) {
      if (error.code !== "UNREACHABLE") showError(error);
    }
  });
  await refresh();
  timer = setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
}

const pages = { list: listPage, one: onePage, new: () => newTournamentPage(account.get()) };
(pages[pageData.data.mode] || listPage)().catch((error) => showError(describe(error) ? error : "The page could not start."));
