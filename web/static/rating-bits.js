// Ratings where other pages show players: the table's seats, the lobby's open games,
// a player's statistics. One request per game (GET /v1/games/{id}/ratings), kept per page until
// the seats change, so the lobby's refresh every few seconds asks again only when someone joined.
import { api, h, pageData } from "/web/static/app.js";

// The form of the ratings and statistics pages: a game picker (changing it reloads the page for
// that game) and a player's name, whose page `target(name, game)` is.
export function playerSearch({ gameName, player, gameId, nameId, label, target }) {
  const params = new URLSearchParams(location.search);
  const picker = h("select", { id: gameId, name: "game" }, pageData.games.map((g) =>
    h("option", { value: g.name, selected: g.name === gameName ? true : null }, g.title)));
  picker.addEventListener("change", () => { params.set("game", picker.value); location.search = params.toString(); });
  return h("form", { class: "create stats-search", role: "search", onsubmit: (event) => {
    event.preventDefault();
    const name = event.target.elements.name.value.trim();
    if (name) location.assign(target(name, picker.value));
  } }, h("div", { class: "field stacked" }, h("label", { for: gameId }, "Game"), picker),
  h("div", { class: "field stacked" }, h("label", { for: nameId }, label),
    h("input", { id: nameId, name: "name", value: player || "", maxlength: 64 })), h("button", { type: "submit" }, "Show"));
}

// A rating as people read it: the ordinal (mu - 3 sigma) to one decimal, "?" while provisional.
export const ordinal = (rating) => (rating ? `${rating.ordinal.toFixed(1)}${rating.provisional ? "?" : ""}` : "");
export const chance = (p) => `${Math.round(p * 100)}%`;
// The API names a server bot `bot:<level>`; pages say "heuristic bot".
export const playerName = (player) => (player && player.startsWith("bot:") ? `${player.slice(4)} bot` : player || "");
export const ratingUrl = (player, game) =>
  `/ratings/players/${encodeURIComponent(player)}?game=${encodeURIComponent(game)}`;
export const provisionalNote = "? provisional: fewer than 10 rated games";

const kept = new Map(); // game id -> {key, promise}

// The ratings of a game's seats: fetched once per (seats, joining) and kept.
export function gameRatings(gameId, { key = "", joining = null } = {}) {
  const found = kept.get(gameId);
  const wanted = `${key}|${joining || ""}`;
  if (found && found.key === wanted) return found.promise;
  const query = joining ? `?joining=${encodeURIComponent(joining)}` : "";
  const promise = api(`/v1/games/${encodeURIComponent(gameId)}/ratings${query}`).then(({ data }) => data, () => null);
  kept.set(gameId, { key: wanted, promise });
  return promise;
}

export function forgetRatings(gameId) {
  kept.delete(gameId);
}

// One seat's note at the table: its rating (a finished rated game: before -> after) and, while the
// game is not over and every seat is rated, its chance to win.
export function seatNote(data, seat) {
  if (!data) return null;
  const row = data.seats.find((s) => s.seat === seat);
  if (!row || !row.rating) return null;
  const parts = [];
  if (row.before && row.after) {
    const change = row.after.ordinal - row.before.ordinal;
    parts.push(`rating ${ordinal(row.before)} → ${ordinal(row.after)} (${change >= 0 ? "+" : "−"}${Math.abs(change).toFixed(1)})`);
  } else {
    // A rating with no rated game behind it (every new player, and a bot's until it has played)
    // is said in words, not as "0.0?".
    const games = row.rating.games;
    parts.push(games === 0 || (games === undefined && row.rating.provisional && row.rating.ordinal === 0)
      ? "not rated yet" : `rating ${row.rating.ordinal.toFixed(1)}${row.rating.provisional ? " (provisional)" : ""}`);
  }
  if (data.predict_win) parts.push(`${chance(data.predict_win[seat])} to win`);
  return h("span", { class: "seat-rating", dataset: { rating: String(row.rating.ordinal) } }, ` · ${parts.join(" · ")}`);
}

// The lobby's line under an open game: who is rated at how much, and, for a signed-in person and
// one free seat, each seat's chance if they join.
export function openGameLine(game, handle) {
  const line = h("span", { class: "rating-line muted", dataset: { ratingsFor: game.id } });
  const key = game.seats.map((s) => `${s.seat}:${s.name || ""}`).join(",");
  const free = game.seats.filter((s) => !s.claimed).length;
  gameRatings(game.id, { key, joining: free === 1 ? handle : null }).then((data) => {
    if (!data) return;
    const rated = data.seats.filter((s) => s.rating);
    const parts = [];
    // An account's rating links to its page, and so gets a "Challenge" button (challenges.js).
    // A line of prose, so "provisional" in words (the tables' "?" has its key beside them).
    const said = (r) => `${r.ordinal.toFixed(1)}${r.provisional ? " (provisional)" : ""}`;
    const entry = (s) => (s.player.startsWith("bot:") ? `${playerName(s.player)} ${said(s.rating)}`
      : h("a", { href: ratingUrl(s.player, game.game), class: "rated-player" }, `${s.player} ${said(s.rating)}`));
    if (rated.length) parts.push(h("span", {}, "Ratings: ", ...rated.flatMap((s, i) => (i ? [", ", entry(s)] : [entry(s)]))));
    if (data.predict_win && data.joining_seat !== undefined) {
      const who = (s) => (s.seat === data.joining_seat ? "you" : playerName(s.player));
      parts.push(h("span", { class: "if-you-join" }, `If you join: ${data.seats.map((s) => `${who(s)} ${chance(data.predict_win[s.seat])}`).join(", ")}`));
      line.dataset.predict = "true";
    }
    line.replaceChildren(...parts);
  });
  return line;
}

// A player's rating as a statistics section (their rating page linked), or null when they have
// none in this game (no account of that name, or no rated game yet).
export async function ratingSection(player, game) {
  let data;
  try {
    ({ data } = await api(`/v1/ratings/${encodeURIComponent(game)}/players/${encodeURIComponent(player)}?limit=1`));
  } catch {
    return null;
  }
  if (!data.rating.games) return null;
  const r = data.rating;
  return h("section", { class: "rating-summary", "aria-labelledby": "rating-summary-title" },
    h("h2", { id: "rating-summary-title" }, "Rating"),
    h("dl", { class: "figures" },
      h("dt", {}, "Rating"), h("dd", {}, `${r.ordinal.toFixed(1)}${r.provisional ? " (provisional)" : ""}`),
      h("dt", {}, "Rated games"), h("dd", {}, String(r.games))),
    h("p", {}, h("a", { href: ratingUrl(player, game) }, "Rating history"), " · ",
      h("a", { href: `/ratings?game=${encodeURIComponent(game)}` }, "Leaderboard")));
}

// The table's ratings, read again whenever the page reads the game's summary (seats taken, the
// game over). A finished game's before and after appear once it has entered the archive (the
// follow-up work, a moment after the last move): asked again a few times until then.
let table = null;
export function watchTableRatings(gameId, summary, redraw, tries = 0) {
  const key = `${summary.status}|${summary.seats.map((s) => `${s.seat}:${s.kind || ""}:${s.name || ""}`).join(",")}|${tries}`;
  gameRatings(gameId, { key }).then((data) => {
    table = data;
    redraw();
    const waiting = data && data.status === "finished" && !data.rated && data.seats.every((s) => s.rating);
    if (waiting && tries < 5) setTimeout(() => watchTableRatings(gameId, summary, redraw, tries + 1), 1500 * (tries + 1));
  });
}

export const tableNote = (seat) => seatNote(table, seat);
