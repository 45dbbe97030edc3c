// Statistics (/stats and /stats/players/<name>): charts where people would rather look than read.
import { apiEventually, h, loadGame, pageData, setApp, showError } from "/web/static/app.js";
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
    const label = name === "cards_played" ? (k) => module.cardName(k) : words;
    parts.push(bars(words(name).replace(/^./, (c) => c.toUpperCase()), entries.slice(0, 12).map(([k, v]) => ({ label: label(k), value: v }))));
  }
  return parts;
}

function totalsFigures(totals) {
  const pairs = Object.entries(totals || {}).filter(([, v]) => typeof v === "number").map(([k, v]) => [words(k), v]);
  return pairs.length ? [figures("Totals", pairs)] : [];
}

async function main() {
  const player = pageData.data.player;
  const params = new URLSearchParams(location.search);
  const gameName = pageData.games.some((g) => g.name === params.get("game")) ? params.get("game") : pageData.games[0].name;
  const search = playerSearch({ gameName, player, gameId: "stats-game", nameId: "player-name",
    label: "A player's statistics",
    target: (name, game) => `/stats/players/${encodeURIComponent(name)}?game=${encodeURIComponent(game)}` });
  setApp(search, h("p", { class: "muted", role: "status" }, "Computing…"));
  const { module } = await loadGame(gameName);
  if (player) {
    let data;
    // An account's (or server bot's) rating beside the statistics of the games played under its name.
    const rating = ratingSection(player, gameName);
    try {
      data = await apiEventually(`/v1/stats/players/${encodeURIComponent(player)}?game=${gameName}`);
    } catch (error) {
      if (error.status === 404 || error.code === "PLAYER_NOT_FOUND") {
        setApp(search, h("p", { role: "status" }, `No archived game of ${module.title || gameName} has a player named ${player}.`), ...[await rating].filter(Boolean));
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
    setApp(search, h("div", { class: "charts" }, parts));
    return;
  }
  const data = await apiEventually(`/v1/stats/global?game=${gameName}`);
  const first = data.first_seat_advantage || {};
  const seatRows = Object.entries(data.win_rate_by_seat || {}).map(([seat, row]) => ({ label: `Seat ${Number(seat) + 1}`, value: row.win_rate || 0, colour: `var(--seat-${seat % 6})` }));
  const lengths = ((data.length || {}).chapters || {}).histogram || [];
  const lengthRows = lengths.map((b) => ({ label: b.from === b.to ? `${b.from}` : `${b.from}–${b.to}`, value: b.count }));
  const outcomeRows = Object.entries(data.outcomes || {}).map(([k, v]) => ({ label: words(k), value: v }));
  const contested = Object.fromEntries(((data.counters || {}).contested_regions || []).map((r) => [r.key, r.count]));
  const parts = [
    figures("The archive", [["Games", data.games], ["First seat's win rate", pct(first.win_rate)],
      ["Expected without advantage", pct(first.expected_win_rate)]]),
    bars("Win rate by seat", seatRows, pct),
    bars(`Game length (${module.chapterName || "chapters"})`, lengthRows),
    bars("How games are won", outcomeRows),
  ];
  if (Object.keys(contested).length) parts.push(await heat("Most contested regions", contested, gameName));
  parts.push(...counterCharts(data.counters, module, ["contested_regions"]));
  setApp(search, h("div", { class: "charts" }, parts));
}

main().catch(showError);
