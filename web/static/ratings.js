// Ratings: the leaderboard of a game (/ratings?game=...) and a player's rating and its
// history (/ratings/players/<handle or bot:level>?game=...), with a head-to-head comparison.
import { api, h, pageData, setApp, showError, when } from "/web/static/app.js";
import { gameTitle, svgEl } from "/web/static/dom.js";
import { ordinal, playerName, playerSearch, provisionalNote, ratingUrl } from "/web/static/rating-bits.js";

// A change as read: "+1.2", "−0.4", and "±0.0" for one that rounds to nothing.
const signed = (x) => (Math.abs(x) < 0.05 ? "±0.0" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)}`);

function playerLink(player, game) {
  if (!player) return h("span", { class: "muted" }, "deleted account");
  return h("a", { href: ratingUrl(player, game) }, playerName(player));
}

function pickers(gameName, player) {
  return playerSearch({ gameName, player, gameId: "ratings-game", nameId: "rating-player",
    label: "A player's rating (handle, or bot:heuristic)", target: ratingUrl });
}

async function leaderboard(gameName, top) {
  const { data } = await api(`/v1/ratings/${encodeURIComponent(gameName)}?limit=50`);
  if (!data.leaders.length) {
    return h("section", { "aria-labelledby": "board-title" }, h("h2", { id: "board-title" }, "Leaderboard"),
      h("p", { role: "status" }, "No rated game yet: a game counts when every seat is an account or a server bot."));
  }
  const rows = data.leaders.map((row) => h("tr", { dataset: { player: row.player || "" } },
    h("td", { class: "num" }, String(row.place)),
    h("th", { scope: "row" }, playerLink(row.player, gameName)),
    h("td", { class: "num" }, ordinal(row), row.provisional ? h("span", { class: "visually-hidden" }, " provisional") : null),
    h("td", { class: "num" }, String(row.games))));
  return h("section", { "aria-labelledby": "board-title" }, h("h2", { id: "board-title" }, `Leaderboard: ${top}`),
    h("table", { class: "results leaderboard" },
      h("caption", { class: "visually-hidden" }, `The best players of ${top} by rating`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, "#"), h("th", { scope: "col" }, "Player"),
        h("th", { scope: "col", class: "num" }, "Rating"), h("th", { scope: "col", class: "num" }, "Games"))),
      h("tbody", {}, rows)),
    h("p", { class: "muted" }, `${data.players} rated player${data.players === 1 ? "" : "s"}. A rating is a cautious estimate of strength: the estimated skill minus three times its uncertainty (OpenSkill), so it rises as games make the estimate surer; ${provisionalNote}.`));
}

// The rating after each game, oldest first: a line where the eye sees the trend.
function trend(history) {
  const points = history.slice().reverse().map((e) => e.after.ordinal);
  if (points.length < 2) return null;
  points.unshift(history[history.length - 1].before.ordinal);
  const low = Math.min(...points);
  const high = Math.max(...points);
  const span = Math.max(1e-9, high - low);
  const x = (i) => 30 + (i * 280) / (points.length - 1);
  const y = (v) => 10 + 90 * (1 - (v - low) / span);
  const svg = svgEl("svg", { class: "chart trend", viewBox: "0 0 320 120", role: "img",
    "aria-label": `Rating after each of the last ${points.length - 1} games: from ${points[0].toFixed(1)} to ${points[points.length - 1].toFixed(1)}` });
  svg.append(svgEl("text", { x: 0, y: 16 }, high.toFixed(0)), svgEl("text", { x: 0, y: 104 }, low.toFixed(0)));
  svg.append(svgEl("polyline", { points: points.map((v, i) => `${x(i)},${y(v)}`).join(" "), fill: "none", stroke: "#7b2d26", "stroke-width": 2 }));
  return svg;
}

function historyEntry(entry, gameName) {
  const change = entry.after.ordinal - entry.before.ordinal;
  const against = entry.against.map((o, i) => [i ? ", " : "", playerLink(o.player, gameName), ` ${o.ordinal.toFixed(1)}${o.rank === 1 ? " (won)" : ""}`]);
  return h("li", { class: "rating-entry", dataset: { game: entry.game_id } },
    h("span", { class: "rating-change" }, `${ordinal(entry.before)} → ${ordinal(entry.after)} `,
      h("strong", { class: Math.abs(change) < 0.05 ? "level" : change > 0 ? "up" : "down" }, signed(change))),
    h("span", { class: "rating-result" }, entry.rank === 1 ? " · won" : " · did not win"),
    h("span", { class: "muted" }, ` · ${when(entry.finished)}`),
    h("span", { class: "rating-against" }, "Against ", against.flat()),
    h("a", { href: `/replay/${entry.game_id}` }, "Replay", h("span", { class: "visually-hidden" }, ` of game ${entry.game_id}`)));
}

function headToHead(player) {
  const out = h("div", { class: "h2h", "aria-live": "polite" });
  const form = h("form", { class: "h2h-form", onsubmit: async (event) => {
    event.preventDefault();
    const other = event.target.elements.other.value.trim();
    if (!other) return;
    try {
      const { data } = await api(`/v1/h2h/${encodeURIComponent(player)}/${encodeURIComponent(other)}`);
      const rows = data.games.map((g) => h("li", { dataset: { game: g.game } },
        `${gameTitle(pageData.games, g.game)}: ${g.games} rated game${g.games === 1 ? "" : "s"} together; `,
        `${playerName(player)} finished ahead ${g.first_ahead}, ${playerName(other)} ${g.second_ahead}, level ${g.ties}`));
      out.replaceChildren(rows.length ? h("ul", {}, rows) : h("p", {}, `No rated game of ${playerName(player)} and ${playerName(other)} together.`));
      showError(null);
    } catch (error) {
      out.replaceChildren();
      showError(error, form);
    }
  } }, h("label", { for: "h2h-other" }, "Compare with"), h("input", { id: "h2h-other", name: "other", maxlength: 64 }),
  h("button", { type: "submit" }, "Head to head"));
  return h("section", { "aria-labelledby": "h2h-title" }, h("h2", { id: "h2h-title" }, "Head to head"), form, out);
}

async function playerPage(player, gameName, top) {
  let data;
  try {
    ({ data } = await api(`/v1/ratings/${encodeURIComponent(gameName)}/players/${encodeURIComponent(player)}?limit=50`));
  } catch (error) {
    if (error.status === 404) return [h("p", { role: "status" }, `No account or server bot is called ${player}.`)];
    throw error;
  }
  const r = data.rating;
  const figures = h("section", { "aria-labelledby": "rating-title" }, h("h2", { id: "rating-title" }, `${playerName(player)} at ${top}`),
    h("dl", { class: "figures" },
      h("dt", {}, "Rating (cautious estimate)"), h("dd", { class: "rating-now" }, r.games ? `${r.ordinal.toFixed(1)}${r.provisional ? " (provisional)" : ""}` : "not rated yet"),
      h("dt", {}, "Estimated skill, uncertainty"), h("dd", {}, `${r.mu.toFixed(2)}, ${r.sigma.toFixed(2)}`),
      h("dt", {}, "Rated games"), h("dd", {}, String(r.games))),
    trend(data.history));
  const history = h("section", { "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, "Rating history, newest first"),
    h("p", { class: "muted" }, "Each game: the rating before → after it, and the others at the table with their ratings before it."),
    data.history.length ? h("ul", { class: "rating-history" }, data.history.map((e) => historyEntry(e, gameName)))
      : h("p", {}, "No rated game yet."),
    data.rating.games > data.history.length ? h("p", { class: "muted" }, `The last ${data.history.length} of ${data.rating.games} games.`) : null);
  return [h("div", { class: "rating-grid" }, figures, headToHead(player)), history,
    h("p", {}, h("a", { href: `/ratings?game=${encodeURIComponent(gameName)}` }, "Leaderboard"), " · ",
      h("a", { href: `/stats/players/${encodeURIComponent(player)}?game=${encodeURIComponent(gameName)}` }, "Statistics"))];
}

async function main() {
  const player = pageData.data.player;
  const params = new URLSearchParams(location.search);
  const chosen = pageData.games.find((g) => g.name === params.get("game")) || pageData.games[0];
  const search = pickers(chosen.name, player);
  setApp(search, h("p", { class: "muted", role: "status" }, "Loading…"));
  const parts = player ? await playerPage(player, chosen.name, chosen.title) : [await leaderboard(chosen.name, chosen.title)];
  setApp(search, ...parts);
}

main().catch(showError);
