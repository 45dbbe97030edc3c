// Statistics (/stats and /stats/players/<name>): charts where people would rather look than read.
import { api, apiEventually, h, loadGame, pageData, setApp, showError } from "/web/static/app.js";
import { svgEl, words } from "/web/static/dom.js";
import { playerSearch, ratingSection } from "/web/static/rating-bits.js";

const pct = (rate) => (rate === null || rate === undefined ? "—" : `${Math.round(rate * 1000) / 10}%`);

// A horizontal bar chart with a text equivalent (the table beside it is what screen readers read).
function bars(title, rows, format = String) {
  const top = Math.max(1e-9, ...rows.map((r) => r.value || 0));
  const height = rows.length * 24 + 8;
  const svg = svgEl("svg", { class: "chart", viewBox: `0 0 320 ${height}`, role: "img", "aria-label": title });
  rows.forEach((row, i) => {
    const y = 4 + i * 24;
    svg.append(svgEl("text", { x: 0, y: y + 14 }, String(row.label).slice(0, 20)));
    svg.append(svgEl("rect", { x: 122, y, width: Math.max(1, (150 * (row.value || 0)) / top), height: 18, rx: 3,
      fill: row.colour || "#7b2d26" }));
    svg.append(svgEl("text", { x: 278, y: y + 14 }, format(row.value)));
  });
  const table = h("table", { class: "visually-hidden" }, h("caption", {}, title),
    rows.map((row) => h("tr", {}, h("th", { scope: "row" }, row.label), h("td", {}, format(row.value)))));
  return h("section", { "aria-label": title }, h("h2", {}, title), svg, table);
}

function figures(title, pairs) {
  return h("section", { "aria-label": title }, h("h2", {}, title),
    h("dl", { class: "figures" }, pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])));
}

async function heat(title, counts, gameName) {
  const { module, board } = await loadGame(gameName);
  const figure = h("div", { class: "heat", role: "img", "aria-label": `${title}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}` });
  module.heatmap(figure, counts, board);
  return h("section", {}, h("h2", {}, title), figure);
}

// Every counter the game's statistics keep (Condottiere's cards and regions, Rio's VP by source,
// buildings, battles...), drawn as bars: a counter is {key: n} or [{key, count}].
function counterCharts(counters, module, skip = []) {
  const parts = [];
  for (const [name, raw] of Object.entries(counters || {})) {
    if (skip.includes(name)) continue;
    const entries = Array.isArray(raw) ? raw.map((r) => [r.key, r.count]) : Object.entries(raw || {});
    if (!entries.length || entries.some(([, v]) => typeof v !== "number")) continue;
    entries.sort((x, y) => y[1] - x[1]);
    // A counter's keys in the game's own words where its module names them (a card's code as its
    // name), else the key in words.
    const label = (k) => module.counterKeyName?.(name, k) || (name === "cards_played" ? module.cardName(k) : words(k));
    parts.push(bars(words(name).replace(/^./, (c) => c.toUpperCase()), entries.slice(0, 12).map(([k, v]) => ({ label: label(k), value: v }))));
  }
  return parts;
}

function totalsFigures(totals) {
  const pairs = Object.entries(totals || {}).filter(([, v]) => typeof v === "number").map(([k, v]) => [words(k), v]);
  return pairs.length ? [figures("Totals", pairs)] : [];
}

// The one filter grammar of the archive and the statistics (docs/statistics.md, "Filters"): the
// page's own query string, as a plain GET form leaves it, turned into the API's.
const FILTERS = [
  ["player", "Players (comma-separated: games with all of them)", "text"],
  ["account", "Account (handle)", "text"],
  ["winner", "Winner", "text"],
  ["ruleset", "Ruleset", "text"],
  ["option", "Options (comma-separated: all on)", "text"],
  ["players", "Number of players", "number"],
  ["outcome", "Outcome", "text"],
  ["finished_from", "Finished from", "date"],
  ["finished_to", "Finished to", "date"],
  ["rating_min", "Lowest rating", "number"],
  ["rating_max", "Highest rating", "number"],
];
const CHOICES = {
  prearranged: ["Prearranged shuffles", [["", "Either"], ["false", "No"], ["true", "Yes"]]],
  table: ["Table", [["", "Any"], ["humans", "Humans only"], ["bots", "Bots only"], ["mixed", "Humans and bots"]]],
};
const REPEATED = ["player", "option"];

function apiFilters(params) {
  const out = new URLSearchParams();
  for (const name of [...FILTERS.map(([n]) => n), ...Object.keys(CHOICES)]) {
    const value = (params.get(name) || "").trim();
    if (!value) continue;
    if (REPEATED.includes(name)) for (const part of value.split(",").map((x) => x.trim()).filter(Boolean)) out.append(name, part);
    else out.set(name, value);
  }
  return out;
}

function filterForm(params, gameName, active) {
  const fields = FILTERS.map(([name, label, type]) => h("div", { class: "field stacked" },
    h("label", { for: `filter-${name}` }, label),
    h("input", { id: `filter-${name}`, name, type, value: params.get(name) || "", step: type === "number" ? "any" : null })));
  for (const [name, [label, options]] of Object.entries(CHOICES)) {
    fields.push(h("div", { class: "field stacked" }, h("label", { for: `filter-${name}` }, label),
      h("select", { id: `filter-${name}`, name }, options.map(([value, text]) =>
        h("option", { value, selected: (params.get(name) || "") === value ? true : null }, text)))));
  }
  const keep = ["game", "situation", "context"].map((name) =>
    params.get(name) ? h("input", { type: "hidden", name, value: params.get(name) }) : null);
  return h("details", { class: "stats-filters", open: active ? true : null },
    h("summary", {}, active ? `Filters (${[...apiFilters(params).keys()].length} on)` : "Filters"),
    h("form", { class: "search", method: "get", "aria-label": "Filters" }, ...keep, ...fields,
      h("div", { class: "filter-actions" }, h("button", { type: "submit" }, "Apply"),
        h("a", { href: `${location.pathname}?game=${encodeURIComponent(gameName)}` }, "Clear"))));
}

const placement = (value) => (value === null || value === undefined ? "—" : value.toFixed(2));

// A context as people read it: the API's seats count from 0 ("seat 1"), the page's from 1 (the
// win-rate chart's "Seat 2"), so a seat context is shown as the charts name that seat.
function contextName(context) {
  if (!context) return "Every context";
  const seat = /^seat (\d+)$/.exec(context);
  return seat ? `Seat ${Number(seat[1]) + 1}` : words(context).replace(/^./, (c) => c.toUpperCase());
}

// An example game's link text: the answer carries only ids, and "game 1" under every move read as
// one game, so each shows its id's tail (the random part of a ULID: distinct, and findable).
const exampleLabel = (id) => `game …${String(id).slice(-6)}`;

// One context's moves as bars (the share of the choices there), each with its count, win rate,
// mean placement and example games opening in the replay viewer.
// A game's module may name the explorer's moves (explorerMoveName(situation, move)): only the game
// knows its terms; else its cardName, else the key in words.
function movesOf(context, module, situation) {
  const name = (move) => (module.explorerMoveName && module.explorerMoveName(situation, move)) ||
    (module.cardName && module.cardName(move) !== undefined ? module.cardName(move) : words(move));
  return h("section", { class: "explorer-context", "aria-label": contextName(context.context) },
    h("h3", {}, contextName(context.context)),
    h("ol", { class: "moves" }, context.moves.map((move) => h("li", { class: "move", dataset: { move: move.move } },
      h("span", { class: "move-name" }, name(move.move)),
      h("span", { class: "move-bar", "aria-hidden": "true" },
        h("span", { class: "move-fill", style: `width: ${Math.max(1, Math.round(move.share * 100))}%` })),
      h("span", { class: "move-figures" },
        `${move.count} (${pct(move.share)}) · won ${pct(move.win_rate)} · placement ${placement(move.mean_placement)}`),
      h("span", { class: "move-examples" }, move.examples.map((id) =>
        h("a", { href: `/replay/${encodeURIComponent(id)}`, title: `Example game ${id}` }, exampleLabel(id))))))));
}

async function explorer(gameName, module, params, filters) {
  const { data: listed } = await api(`/v1/stats/${gameName}/explorer`);
  const situations = Object.entries(listed.situations || {});
  if (!situations.length) return h("section", { "aria-label": "Explorer" }, h("h2", {}, "Decision explorer"),
    h("p", { class: "muted" }, `${module.title || gameName} declares no situations to explore.`));
  const chosen = situations.some(([key]) => key === params.get("situation")) ? params.get("situation") : situations[0][0];
  // The options are short (the key in words): a select shows its text on one line, and at 390 px a
  // whole sentence was cut off; the chosen situation's sentence is the paragraph under it.
  const sentence = Object.fromEntries(situations);
  const select = h("select", { id: "explorer-situation", name: "situation", "aria-describedby": "explorer-question" },
    situations.map(([key]) => h("option", { value: key, selected: key === chosen ? true : null }, words(key).replace(/^./, (c) => c.toUpperCase()))));
  const question = h("p", { id: "explorer-question", class: "explorer-question" }, sentence[chosen]);
  const out = h("div", { class: "explorer-moves", "aria-live": "polite" });
  const draw = async (situation) => {
    question.textContent = sentence[situation];
    out.replaceChildren(h("p", { class: "muted", role: "status" }, "Counting…"));
    const query = new URLSearchParams(filters);
    query.set("situation", situation);
    const { data: body } = await api(`/v1/stats/${gameName}/explorer?${query}`);
    out.replaceChildren(
      h("p", { class: "muted" }, `${body.decisions} decisions in ${[...filters.keys()].length ? "the games matching the filters" : "the archive"}.`),
      ...(body.contexts.length ? body.contexts.map((c) => movesOf(c, module, situation)) : [h("p", {}, "No game matches: nothing to show.")]));
  };
  select.addEventListener("change", () => {
    params.set("situation", select.value);
    history.replaceState(null, "", `${location.pathname}?${params}`);
    draw(select.value).catch(showError);
  });
  await draw(chosen);
  return h("section", { id: "explorer", class: "explorer", "aria-label": "Decision explorer" }, h("h2", {}, "Decision explorer"),
    h("div", { class: "field stacked" }, h("label", { for: "explorer-situation" }, "Situation"), select), question, out);
}

async function main() {
  const player = pageData.data.player;
  const params = new URLSearchParams(location.search);
  const gameName = pageData.games.some((g) => g.name === params.get("game")) ? params.get("game") : pageData.games[0].name;
  const filters = apiFilters(params);
  const filtered = [...filters.keys()].length > 0;
  const suffix = filtered ? `&${filters}` : "";
  const search = playerSearch({ gameName, player, gameId: "stats-game", nameId: "player-name",
    label: "A player's statistics",
    target: (name, game) => `/stats/players/${encodeURIComponent(name)}?game=${encodeURIComponent(game)}${suffix}` });
  const form = filterForm(params, gameName, filtered);
  setApp(search, form, h("p", { class: "muted", role: "status" }, "Computing…"));
  const { module } = await loadGame(gameName);
  if (player) {
    let data;
    // An account's (or server bot's) rating beside the statistics of the games played under its name.
    const rating = ratingSection(player, gameName);
    try {
      const path = `/v1/stats/players/${encodeURIComponent(player)}?game=${gameName}${suffix}`;
      data = filtered ? (await api(path)).data : await apiEventually(path);
    } catch (error) {
      if (error.status === 404 || error.code === "PLAYER_NOT_FOUND") {
        setApp(search, form, h("p", { role: "status" }, `No archived game of ${module.title || gameName} has a player named ${player}.`), ...[await rating].filter(Boolean));
        return;
      }
      throw error;
    }
    const seatRows = Object.entries(data.by_seat || {}).map(([seat, row]) => ({ label: `Seat ${Number(seat) + 1}`, value: row.win_rate || 0, colour: `var(--seat-${seat % 6})` }));
    const countRows = Object.entries(data.by_player_count || {}).map(([n, row]) => ({ label: `${n} players`, value: row.win_rate || 0 }));
    const taken = (data.counters || {}).regions_taken || {};
    const parts = [
      figures(`${data.name}`, [["Games", data.games], ["Wins", data.wins], ["Win rate", pct(data.win_rate)]]),
      await rating,
      bars("Win rate by seat", seatRows, pct),
      bars("Win rate by number of players", countRows, pct),
      ...totalsFigures(data.totals),
    ];
    if (Object.keys(taken).length) parts.push(await heat("Regions taken", taken, gameName));
    parts.push(...counterCharts(data.counters, module, ["regions_taken"]));
    setApp(search, form, h("div", { class: "charts" }, parts));
    return;
  }
  const path = `/v1/stats/global?game=${gameName}${suffix}`;
  const [data, explored] = await Promise.all([filtered ? api(path).then((r) => r.data) : apiEventually(path), explorer(gameName, module, params, filters)]);
  const first = data.first_seat_advantage || {};
  const seatRows = Object.entries(data.win_rate_by_seat || {}).map(([seat, row]) => ({ label: `Seat ${Number(seat) + 1}`, value: row.win_rate || 0, colour: `var(--seat-${seat % 6})` }));
  const lengths = ((data.length || {}).chapters || {}).histogram || [];
  const lengthRows = lengths.map((b) => ({ label: b.from === b.to ? `${b.from}` : `${b.from}–${b.to}`, value: b.count }));
  const outcomeRows = Object.entries(data.outcomes || {}).map(([k, v]) => ({ label: words(k), value: v }));
  const contested = Object.fromEntries(((data.counters || {}).contested_regions || []).map((r) => [r.key, r.count]));
  const parts = [
    figures(filtered ? "The games matching the filters" : "The archive", [["Games", data.games], ["The player who moved first won", pct(first.win_rate)],
      ["Expected without advantage", pct(first.expected_win_rate)]]),
    bars("Win rate by seat", seatRows, pct),
    bars(`Game length (${module.chapterName || "chapters"})`, lengthRows),
    bars("How games are won", outcomeRows),
  ];
  if (Object.keys(contested).length) parts.push(await heat("Most contested regions", contested, gameName));
  parts.push(...counterCharts(data.counters, module, ["contested_regions"]));
  // On a phone the explorer is screens below the charts: a way straight to it (hidden when wide).
  const jump = h("p", { class: "explore-jump" }, h("a", { href: "#explorer" }, "Explore decisions ↓"));
  setApp(search, form, jump, h("div", { class: "charts" }, parts), explored);
}

main().catch(showError);
