// Finding each other, on every page: incoming challenges (accept / decline), one's own challenges
// and seek ("Play now"), and a "Challenge" button beside every link to a player's page (profiles,
// the leaderboard). Signed-in browsers only; everything goes through /v1 (challenges, seeks).
//
// Why polling rather than /v1/me/stream: an account may hold 8 streams at once and a person opens
// many tabs; a GET of /v1/challenges every few seconds costs one small read and no lease. A seek is
// kept alive (POST /v1/seeks/{id}/keep) while this page shows it.

import { account, accountApi, describe, h, loadGame, pageData, resumeSeat, seats, toast } from "/web/static/app.js";
import { gameTitle } from "/web/static/dom.js";

const POLL_MS = 4000;
const KEEP_MS = 20000;
const SEEK_KEY = "seek";
const games = pageData.games || [];

// A game the account was just seated in (a challenge's, a pairing's) has no seat token anywhere:
// this browser takes one for the account's seat, then goes to the table.
async function enterGame(gameId) {
  try {
    if (!seats.get(gameId)) {
      const running = (await accountApi("/v1/me/games?limit=20")).data.running || [];
      const mine = running.find((g) => g.game_id === gameId);
      if (mine) await resumeSeat(gameId, mine.seat);
    }
  } catch { /* the table offers "Play my seat here" */ }
  location.assign(`/play/${encodeURIComponent(gameId)}`);
}

function box() {
  let el = document.getElementById("meet");
  if (!el) {
    el = h("aside", { id: "meet", class: "meet", "aria-label": "Challenges and quick pairing", "aria-live": "polite" });
    document.querySelector("header.top").after(el);
  }
  return el;
}

function challengeLine(challenge, incoming) {
  const clock = challenge.clock ? `${challenge.clock.move_seconds} s a move` : "no clock";
  const who = incoming ? `${challenge.challenger} challenges you` : `You challenge ${challenge.seats.filter((s) => s.kind === "account" && s.name !== challenge.challenger).map((s) => s.name).join(", ") || "anyone with the link"}`;
  const text = `${who}: ${challenge.title}, ${challenge.seat_count} seats, ${challenge.rated ? "rated" : "casual"}, ${clock}`;
  const actions = incoming
    ? [
        h("button", { type: "button", class: "accept", onclick: () => answer(challenge, "accept") }, "Accept"),
        h("button", { type: "button", class: "decline", onclick: () => answer(challenge, "decline") }, "Decline"),
      ]
    : [h("button", { type: "button", onclick: () => answer(challenge, "cancel") }, "Cancel")];
  return h("li", { class: "meet-item", "data-challenge": challenge.id }, h("span", {}, text), h("span", { class: "meet-actions" }, ...actions));
}

async function answer(challenge, what) {
  try {
    const { data } = await accountApi(`/v1/challenges/${encodeURIComponent(challenge.id)}/${what}`, { method: "POST", body: {} });
    if (what === "accept" && data.started) {
      await enterGame(data.game_id);
      return;
    }
    if (what === "accept") toast("Accepted: the game starts when every seat has answered.", { kind: "info" });
  } catch (error) {
    toast(describe(error));
  }
  refresh();
}

let known = new Set();
const watching = new Set();

async function refresh() {
  if (!account.get()) return;
  let mine;
  try {
    mine = (await accountApi("/v1/challenges")).data;
  } catch {
    return; // offline or signed out: the next poll tries again
  }
  // A challenge of mine that has gone from the list may have started: go to its game.
  const outgoing = new Set(mine.outgoing.map((c) => c.id));
  for (const id of watching) {
    if (outgoing.has(id)) continue;
    watching.delete(id);
    try {
      const { data } = await accountApi(`/v1/challenges/${encodeURIComponent(id)}`);
      if (data.status === "started") { await enterGame(data.game_id); return; }
      if (data.status === "declined") toast(`Your challenge was declined (${data.reason}).`, { kind: "info" });
      if (data.status === "expired") toast("Your challenge expired.", { kind: "info" });
    } catch { /* gone: nothing to say */ }
  }
  for (const c of mine.outgoing) watching.add(c.id);
  const fresh = mine.incoming.filter((c) => !known.has(c.id));
  known = new Set(mine.incoming.map((c) => c.id));
  if (fresh.length) toast(`${fresh[0].challenger} challenges you to ${fresh[0].title}.`, { kind: "info" });
  const items = [...mine.incoming.map((c) => challengeLine(c, true)), ...mine.outgoing.map((c) => challengeLine(c, false))];
  const seeking = seekLine();
  if (seeking) items.push(seeking);
  const el = box();
  el.hidden = items.length === 0;
  el.replaceChildren(...(items.length ? [h("ul", { class: "meet-list" }, ...items)] : []));
}

// -- Play now ----------------------------------------------------------------------------------

function currentSeek() {
  const raw = localStorage.getItem(SEEK_KEY);
  return raw ? JSON.parse(raw) : null;
}

function seekLine() {
  const seek = currentSeek();
  if (!seek) return null;
  return h("li", { class: "meet-item seeking" },
    h("span", {}, `Looking for a ${gameTitle(games, seek.game)} game (${seek.seats} players)…`),
    h("span", { class: "meet-actions" }, h("button", { type: "button", onclick: stopSeeking }, "Stop")));
}

async function playNow(game) {
  try {
    const before = new Set(((await accountApi("/v1/me/games?limit=1")).data.running || []).map((g) => g.game_id));
    // The smallest table the game allows: the quickest to fill.
    const spec = await seatSpec(game);
    const config = spec ? { [spec.key]: Math.max(2, spec.min || 2) } : {};
    const { data } = await accountApi("/v1/seeks", { method: "POST", body: { game, config } });
    localStorage.setItem(SEEK_KEY, JSON.stringify({ id: data.id, game, seats: data.seats, before: [...before] }));
  } catch (error) {
    toast(describe(error));
  }
  refresh();
}

async function stopSeeking() {
  const seek = currentSeek();
  localStorage.removeItem(SEEK_KEY);
  if (seek) { try { await accountApi(`/v1/seeks/${encodeURIComponent(seek.id)}`, { method: "DELETE" }); } catch { /* gone */ } }
  refresh();
}

async function followSeek(keep = false) {
  const seek = currentSeek();
  if (!seek || !account.get()) return;
  try {
    if (keep) await accountApi(`/v1/seeks/${encodeURIComponent(seek.id)}/keep`, { method: "POST" });
    else await accountApi(`/v1/seeks/${encodeURIComponent(seek.id)}`);
  } catch (error) {
    if (error.status !== 404) return;
    localStorage.removeItem(SEEK_KEY); // paired (or dropped): find the game it became
    const running = (await accountApi("/v1/me/games?limit=1")).data.running || [];
    const game = running.find((g) => !seek.before.includes(g.game_id));
    if (game) await enterGame(game.game_id);
    else refresh();
  }
}

// -- Challenge a player --------------------------------------------------------------------------

// The game's seat count, when its page module names the key (``seatCountKey``): two people, the
// other seats filled by the game's first bot level, so a challenge to one player fits any size.
async function seatSpec(name) {
  try {
    const { module } = await loadGame(name);
    return (module.configFields || []).find((spec) => spec.key === module.seatCountKey) || null;
  } catch {
    return null;
  }
}

function challengeForm(handle) {
  const select = h("select", { name: "game", "aria-label": "Game" }, ...games.map((g) => h("option", { value: g.name }, g.title)));
  const rated = h("input", { type: "checkbox", name: "rated", checked: true });
  const players = h("input", { type: "number", name: "players", "aria-label": "Players", value: "2", min: "2" });
  const playersField = h("label", { hidden: true }, "Players ", players, " (seats beyond two: bots)");
  let spec = null;
  const chosen = async () => {
    spec = await seatSpec(select.value);
    playersField.hidden = !spec;
    if (spec) { players.min = String(spec.min || 2); players.max = String(spec.max || 6); players.value = String(Math.max(2, spec.min || 2)); }
  };
  select.addEventListener("change", chosen);
  chosen();
  const dialog = h("dialog", { class: "meet-dialog", "aria-label": `Challenge ${handle}` });
  const send = async (event) => {
    event.preventDefault();
    const body = { game: select.value, invite: [handle], rated: rated.checked, config: {} };
    if (spec) {
      const count = Number(players.value);
      body.config[spec.key] = count;
      const level = (games.find((g) => g.name === select.value) || { bots: [] }).bots[0];
      body.bots = Object.fromEntries(Array.from({ length: count - 2 }, (_, i) => [String(2 + i), level]));
    }
    try {
      const { data } = await accountApi("/v1/challenges", { method: "POST", body });
      watching.add(data.id);
      toast(`Challenge sent to ${handle}.`, { kind: "info" });
      dialog.close();
      dialog.remove();
      refresh();
    } catch (error) {
      toast(describe(error));
    }
  };
  dialog.append(h("form", { onsubmit: send },
    h("h2", {}, `Challenge ${handle}`),
    h("label", {}, "Game ", select),
    playersField,
    h("label", {}, rated, " Rated"),
    h("p", { class: "meet-actions" },
      h("button", { type: "submit" }, "Send challenge"),
      h("button", { type: "button", onclick: () => { dialog.close(); dialog.remove(); } }, "Cancel"))));
  document.body.append(dialog);
  dialog.showModal();
}

function addChallengeButtons(root = document) {
  const me = account.get();
  if (!me) return;
  const profile = pageData.data && (pageData.data.player || pageData.data.name);
  for (const link of root.querySelectorAll('a[href^="/ratings/players/"], a[href^="/stats/players/"]')) {
    if (link.dataset.meet) continue;
    link.dataset.meet = "1";
    const handle = decodeURIComponent(new URL(link.href).pathname.split("/").pop());
    if (handle.startsWith("bot:") || handle.toLowerCase() === me.handle.toLowerCase() || handle === profile) continue;
    link.after(h("button", { type: "button", class: "challenge-button", onclick: () => challengeForm(handle) }, "Challenge"));
  }
  const page = document.body.dataset.page;
  const name = pageData.data && (pageData.data.player || pageData.data.name);
  if ((page === "ratings" || page === "stats") && name && !document.getElementById("challenge-profile") && !name.startsWith("bot:") && name.toLowerCase() !== me.handle.toLowerCase()) {
    document.getElementById("title").after(h("button", { type: "button", id: "challenge-profile", class: "challenge-button", onclick: () => challengeForm(name) }, `Challenge ${name}`));
  }
}

function addPlayNow() {
  const nav = document.querySelector("header.top nav");
  if (!nav || !account.get() || document.getElementById("play-now")) return;
  const menu = h("details", { id: "play-now", class: "play-now" },
    h("summary", {}, "Play now"),
    h("div", { class: "play-now-menu" }, ...games.map((g) => h("button", { type: "button", onclick: () => { menu.open = false; playNow(g.name); } }, g.title))));
  nav.append(menu);
}

export function start() {
  if (!account.get()) return;
  addPlayNow();
  addChallengeButtons();
  new MutationObserver(() => { addChallengeButtons(); addPlayNow(); }).observe(document.getElementById("main"), { childList: true, subtree: true });
  refresh();
  setInterval(() => { refresh(); followSeek(); }, POLL_MS);
  followSeek(true);
  setInterval(() => followSeek(true), KEEP_MS);
}
