// The bot ladder of a game (/ladder?game=...): bot accounts and the server's levels on one rating
// scale, with their ladder games and wins, and the ladder's games in play (GET /v1/ladder/{game}).
import { api, h, pageData, setApp, showError } from "/web/static/app.js";
import { ordinal, playerName, provisionalNote, ratingUrl } from "/web/static/rating-bits.js";

async function main() {
  const params = new URLSearchParams(location.search);
  const chosen = pageData.games.find((g) => g.name === params.get("game")) || pageData.games[0];
  setApp(h("p", { class: "muted", role: "status" }, "Loading…"));
  let data;
  try {
    ({ data } = await api(`/v1/ladder/${encodeURIComponent(chosen.name)}`));
  } catch (error) {
    if (error.status === 404) {
      setApp(h("p", { role: "status" }, `${chosen.title} has no bot ladder.`));
      return;
    }
    throw error;
  }
  const rows = data.standings.map((row) => h("tr", { dataset: { player: row.player || "" } },
    h("td", { class: "num" }, String(row.place)),
    h("th", { scope: "row" }, row.player ? h("a", { href: ratingUrl(row.player, chosen.name) }, playerName(row.player)) : "deleted account"),
    h("td", { class: "num" }, row.rating?.provisional && row.rating.ordinal === 0 ? "not rated yet" : ordinal(row.rating)),
    h("td", { class: "num" }, String(row.games)),
    h("td", { class: "num" }, String(row.wins))));
  const playing = data.playing.map((p) => h("li", {}, h("a", { href: `/watch/${p.game_id}` }, `Game ${p.number}`), `: ${p.players.join(", ")}`));
  setApp(h("section", { "aria-labelledby": "ladder-title" }, h("h2", { id: "ladder-title" }, `Bot ladder: ${chosen.title}`),
    h("p", {}, `Bot accounts online are paired, closest ratings together, into rated games of ${data.players} with the server's bots (${data.levels.join(", ")}), so both sit on one scale.`),
    h("table", { class: "results leaderboard ladder" },
      h("caption", { class: "visually-hidden" }, `The bot ladder of ${chosen.title} by rating`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, "#"), h("th", { scope: "col" }, "Bot"),
        h("th", { scope: "col", class: "num" }, "Rating"), h("th", { scope: "col", class: "num" }, "Games"), h("th", { scope: "col", class: "num" }, "Wins"))),
      h("tbody", {}, rows)),
    h("p", { class: "muted" }, `Games and wins: ladder games. Rating: the game's rating; ${provisionalNote}.`)),
  h("section", { "aria-labelledby": "playing-title" }, h("h2", { id: "playing-title" }, "Playing now"),
    playing.length ? h("ul", {}, playing) : h("p", {}, "No ladder game in play.")));
}

main().catch(showError);
