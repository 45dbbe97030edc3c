// Finding each other, on every page: incoming challenges (accept / decline), one's own challenges
// and seek ("Play now"), and a "Challenge" button beside every link to a player's page (profiles,
// the leaderboard). Signed-in browsers only; everything goes through /v1 (challenges, seeks).
//
// Why polling rather than /v1/me/stream: an account may hold 8 streams at once and a person opens
// many tabs; a GET of /v1/challenges every few seconds costs one small read and no lease. (EventSource
// cannot send the account's token either: a stream would be read with fetch, one lease per tab, or
// shared between tabs by one of them, which no page does yet.) A seek is
// kept alive (POST /v1/seeks/{id}/keep) while this page shows it.

import { account, accountApi, describe, h, pageData, toast } from "/web/static/app.js";
import { gameTitle } from "/web/static/dom.js";
import { challengeDialog, seatSpec } from "/web/static/challenge-dialog.js";
import { REASONS, reasonWords } from "/web/static/decline-reasons.js";

const POLL_MS = 4000;
const KEEP_MS = 20000;
const SEEK_KEY = "seek";
const games = pageData.games || [];

// A game the account was just seated in (a challenge's, a pairing's) is played with the account's own
// token: the table finds the account's seat (play.js), so no seat token is taken and nothing is
// rotated (nobody is told of "a new seat token"). Wait, briefly, for the account's list of games to
// show it (its follow-up runs as the game starts), so the table finds the seat at once.
async function enterGame(gameId) {
  for (let tries = 0; tries < 10; tries += 1) {
    try {
      const running = (await accountApi("/v1/me/games?limit=20")).data.running || [];
      if (running.some((g) => g.game_id === gameId)) break;
    } catch { break; } // the table says what it can
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
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
        h("span", { class: "decline-with" }, reasonSelect(challenge),
          h("button", { type: "button", class: "decline", onclick: () => answer(challenge, "decline", reasons.get(challenge.id)) }, "Decline")),
      ]
    : [h("button", { type: "button", onclick: () => answer(challenge, "cancel") }, "Cancel")];
  return h("li", { class: "meet-item", "data-challenge": challenge.id }, h("span", {}, text), h("span", { class: "meet-actions" }, ...actions));
}

// The reason a decline gives (Lichess's codes, in plain words), kept per challenge across redraws.
const reasons = new Map();
function reasonSelect(challenge) {
  const select = h("select", { class: "decline-reason", "aria-label": "Reason to decline", onchange: () => reasons.set(challenge.id, select.value) },
    ...REASONS.map(([code, words]) => h("option", { value: code }, words)));
  select.value = reasons.get(challenge.id) || "generic";
  return select;
}

async function answer(challenge, what, reason) {
  try {
    const body = what === "decline" ? { reason: reason || "generic" } : {};
    const { data } = await accountApi(`/v1/challenges/${encodeURIComponent(challenge.id)}/${what}`, { method: "POST", body });
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
let lastDrawn = null;
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
      if (data.status === "declined") toast(`Your challenge was declined: ${reasonWords(data.reason)}.`, { kind: "info" });
      if (data.status === "expired") toast("Your challenge expired.", { kind: "info" });
    } catch { /* gone: nothing to say */ }
  }
  for (const c of mine.outgoing) watching.add(c.id);
  const fresh = mine.incoming.filter((c) => !known.has(c.id));
  known = new Set(mine.incoming.map((c) => c.id));
  if (fresh.length) toast(`${fresh[0].challenger} challenges you to ${fresh[0].title}.`, { kind: "info" });
  // Redrawn only when the list changed: a redraw would close a reason list being chosen from.
  const drawn = JSON.stringify([[...known], [...outgoing], (currentSeek() || {}).id]);
  if (drawn === lastDrawn) return;
  lastDrawn = drawn;
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

const challengeForm = (handle) => challengeDialog(handle, (made) => { watching.add(made.id); refresh(); });

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
