// /my-games: the signed-in player's running games, those awaiting them first with a
// "your turn" badge, and their finished games, from GET /v1/me/games; below them the biggest
// mistakes the computer analysis found in their recent finished games (GET /v1/me/mistakes), each a
// link to that event of the replay.
//
// Live by polling GET /v1/me/games every POLL_MS while the tab is visible (and at once when it
// comes back), not by reading GET /v1/me/stream. EventSource cannot send the Authorization header
// the stream needs; fetch() with a ReadableStream could, but a held stream occupies a server
// thread per tab and counts against the account's 8 open streams (a player with many tabs would be
// refused with 429), the server reads its feed once a second anyway, and every event would send the
// page back to /v1/me/games for the finished list and the order. One request every few seconds
// draws all of it, survives a server restart with no reconnect logic, and costs a turn's notice
// a few seconds at most in turn-based games.
import {
  account, accountApi, api, describe, h, myGames, pageData, seatName, setApp, showError, when,
} from "/web/static/app.js";
import { gameTitle } from "/web/static/dom.js";

const POLL_MS = 4000;
const baseTitle = document.title;

// Who else plays each game: its public summary, read once per game this page shows (a seat's
// name changes only while the game is open, or when a bot takes a seat over: read again then).
const summaries = new Map();
async function readSummaries(games) {
  const wanted = games.filter((g) => !summaries.has(g.game_id) || summaries.get(g.game_id).status === "open");
  await Promise.all(wanted.map(async (g) => {
    try { summaries.set(g.game_id, (await api(`/v1/games/${encodeURIComponent(g.game_id)}`)).data); } catch { /* names are a bonus */ }
  }));
}

function others(game) {
  const summary = summaries.get(game.game_id);
  if (!summary) return "";
  const names = summary.seats.filter((s) => s.seat !== game.seat).map((s) => (s.name ? seatName(summary, s.seat) : "a free seat"));
  return names.length ? ` · with ${names.join(", ")}` : "";
}

function runningRow(game) {
  // Every device signed in plays the account's seat with the account's token: "Play" is all it takes.
  const action = h("a", { class: "button primary", href: `/play/${game.game_id}` }, game.status === "open" ? "Open" : "Play");
  const state = game.status === "open" ? "waiting for players" : game.your_turn ? "" : "waiting for the others";
  return h("li", { class: "game mine", dataset: { game: game.game_id, yourTurn: String(game.your_turn) } },
    h("span", { class: "what" }, gameTitle(pageData.games, game.game), game.your_turn ? h("span", { class: "badge turn" }, "your turn") : null),
    h("span", { class: "who" }, `Seat ${game.seat + 1}${others(game)}`, state ? ` · ${state}` : "",
      game.deadline ? ` · decide by ${when(game.deadline)}` : ""),
    h("span", { class: "when muted" }, `Game ${game.game_id} · version ${game.version}`),
    action);
}

function outcome(game) {
  if (game.won === true) return "you won";
  if (game.won === false) return "you did not win";
  return "finished";
}

function finishedRow(game) {
  return h("li", { class: "game mine", dataset: { game: game.game_id } },
    h("span", { class: "what" }, gameTitle(pageData.games, game.game), h("span", { class: `badge${game.won ? "" : " muted"}` }, outcome(game))),
    h("span", { class: "who" }, `Seat ${game.seat + 1}${others(game)}`),
    h("span", { class: "when muted" }, `Game ${game.game_id}`),
    h("a", { class: "button", href: `/replay/${game.game_id}` }, "Replay"));
}

function section(key, title, rows, empty) {
  return h("section", { class: "list", "aria-labelledby": `list-${key}`, dataset: { list: key } }, h("h2", { id: `list-${key}` }, title),
    rows.length ? h("ul", { class: "games" }, rows) : h("p", { class: "muted" }, empty));
}

function draw(games) {
  const turns = games.running.filter((g) => g.your_turn).length;
  document.title = turns ? `● Your turn (${turns}) · ${baseTitle}` : baseTitle;
  return [
    section("running", turns ? `Running: your turn in ${turns}` : "Running", games.running.map(runningRow),
      "No running game. Join or start one in the lobby."),
    section("finished", "Finished", games.finished.map(finishedRow), "No finished game yet."),
  ];
}

const WORD = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };

// Read once when the page opens: analyses are made in the background and do not change while
// one looks at the page.
async function mistakesSection() {
  const { data } = await accountApi("/v1/me/mistakes?games=20&limit=8");
  const rows = data.mistakes.map((m) => h("li", { class: `mistake ${m.judgement}`, dataset: { game: m.game_id, event: String(m.event) } },
    h("a", { href: m.url }, `${WORD[m.judgement] || m.judgement} in ${gameTitle(pageData.games, m.game)}, event ${m.event}`),
    h("span", { class: "muted" }, ` · you played ${m.played_text}; best was ${m.best_text} (−${Math.round(m.loss * 100)}% chance to win)`)));
  const empty = data.games_analysed
    ? "No inaccuracy found in your analysed games."
    : "None of your recent finished games has been analysed yet (open one's replay to request it).";
  return h("section", { class: "list mistakes", "aria-labelledby": "list-mistakes", dataset: { list: "mistakes" } },
    h("h2", { id: "list-mistakes" }, "Your biggest mistakes"),
    h("p", { class: "muted" }, `From the computer analysis of ${data.games_analysed} of your last ${data.games_looked_at} finished games.`),
    rows.length ? h("ol", { class: "mistakes" }, rows) : h("p", { class: "muted" }, empty));
}

async function main() {
  const session = account.get();
  if (!session) {
    setApp(h("p", {}, h("a", { href: "/sign-in" }, "Sign in"), " (or ", h("a", { href: "/sign-up" }, "create an account"),
      ") to see your games on every device."));
    return;
  }
  const lists = h("div", { class: "my-games" });
  const mistakes = h("div", { class: "my-mistakes" });
  setApp(h("p", { class: "muted" }, "Your games on every device you sign in on. ", h("a", { href: "/" }, "Lobby"),
    ": games you join or create while signed in appear here."), lists, mistakes);
  mistakesSection().then((section) => { mistakes.replaceChildren(section); mistakes.dataset.loaded = "true"; }).catch(() => {
    mistakes.replaceChildren(); // a bonus: the games list does not depend on it
  });
  let busy = false;
  let timer = null;
  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const games = await myGames();
      await readSummaries([...games.running, ...games.finished]);
      // A control the player is using is not redrawn under them.
      if (!lists.contains(document.activeElement) || !document.activeElement.disabled) lists.replaceChildren(...draw(games));
      lists.dataset.loaded = "true";
      showError(null);
    } catch (error) {
      if (error.status === 401) { clearInterval(timer); main(); return; } // the session ended: "sign in"
      if (error.code !== "UNREACHABLE") showError(error);
    } finally {
      busy = false;
    }
  }
  await refresh();
  timer = setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  window.addEventListener("storage", (event) => { if (event.key === account.key && !account.get()) { clearInterval(timer); main(); } });
}

main().catch((error) => showError(describe(error) ? error : "The page could not start."));
