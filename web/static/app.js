// The page shell shared by every page: API calls, seat tokens, the live stream, the game's module.
//
// A game's module (GET /web/games/<name>/renderer.js) exports:
//   configFields            the creation form's fields: [{key, label, type, ...}] (lobby)
//   mount(el, ctx)          builds the game's area in `el` (ctx.board: the SVG text, ctx.names)
//   render(view, ctx)       draws a view (a seat's, the spectator's or a replay state)
//   choices(legalMoves)     the moves as controls: [{label, move} | {label, prompt, options: [...]}]
//   status(view, ctx)       one sentence: whose turn and what is awaited
//   decisionInfo(view, ctx) optional: what the seat's decision depends on, shown beside its moves
//   heatmap(el, counts)     colours the board by a {region: n} mapping (statistics)
// Seat tokens live in localStorage (every tab of this browser), never in a URL; another browser gets
// a seat through a one-time device link (POST /v1/games/{id}/device-links), never through the token.

export const pageData = JSON.parse(document.getElementById("page-data").textContent);

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code;
  }
}

const UNREACHABLE = "The server cannot be reached right now; the page retries by itself.";

export async function api(path, { method = "GET", body, token, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    // The network itself failed (server down, connection lost): say so in words, not "Failed to fetch".
    throw new ApiError(0, { code: "UNREACHABLE", title: "The server cannot be reached", detail: UNREACHABLE });
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { title: `HTTP ${response.status}` }; }
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data, headers: response.headers };
}

// A job-backed resource (statistics): 200 with the figures, or 202 and a job, which is followed
// (GET /v1/jobs/{id}) until it is done: its result as soon as it is there, its problem if it failed.
export async function apiEventually(path, { tries = 240 } = {}) {
  const { status, data } = await api(path);
  if (status === 200) return data;
  for (let i = 0; i < tries; i++) {
    const { data: job } = await api(`/v1/jobs/${encodeURIComponent(data.id)}`);
    if (job.status === "finished") return (await api(`/v1/jobs/${encodeURIComponent(data.id)}/result`)).data;
    if (job.status === "failed") throw new ApiError((job.error && job.error.status) || 500, job.error || { title: "The computation failed" });
    await sleep(Math.min(150 * (i + 1), 1000));
  }
  throw new Error("The figures are still being computed; try again later.");
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A seat's token, for every tab of this browser. A token an older page kept in sessionStorage (this
// tab only) is moved over on first read.
export const seats = {
  key: (gameId) => `seat:${gameId}`,
  get(gameId) {
    const key = this.key(gameId);
    let raw = localStorage.getItem(key);
    if (!raw && sessionStorage.getItem(key)) {
      raw = sessionStorage.getItem(key);
      localStorage.setItem(key, raw);
      sessionStorage.removeItem(key);
    }
    return raw ? JSON.parse(raw) : null;
  },
  set(gameId, claim) {
    localStorage.setItem(this.key(gameId), JSON.stringify({ seat: claim.seat, token: claim.token }));
  },
  forget(gameId) {
    localStorage.removeItem(this.key(gameId));
  },
};

// A person's preferences (sound, notifications), kept in this browser.
export const prefs = {
  get: (key, fallback = null) => { const v = localStorage.getItem(`pref:${key}`); return v === null ? fallback : JSON.parse(v); },
  set: (key, value) => localStorage.setItem(`pref:${key}`, JSON.stringify(value)),
};

// h("button", {class: "x", onclick: f}, "text", child...): a DOM element. Text is never parsed as HTML.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function setApp(...children) {
  const app = document.getElementById("app");
  app.replaceChildren(...children);
  app.removeAttribute("aria-busy");
  return app;
}

// What went wrong, in words: the problem's title and its detail (the API's problem document).
export function describe(error) {
  if (!error) return "";
  if (error instanceof ApiError) {
    const { title, detail } = error.problem;
    if (title && detail && !detail.startsWith(title)) return `${title}: ${detail}`;
    return detail || title || error.message;
  }
  return String(error.message || error);
}

// A short message that appears where the eye is (top of the screen) and goes away by itself.
export function toast(message, { kind = "error", ms = 6000 } = {}) {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", class: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  dismissToast(message); // one of each
  const item = h("div", { class: `toast ${kind}` }, h("span", {}, message),
    h("button", { type: "button", class: "toast-close", "aria-label": "Dismiss", onclick: () => item.remove() }, "×"));
  box.append(item);
  while (box.children.length > 3) box.firstChild.remove();
  setTimeout(() => item.remove(), ms);
  return item;
}

function dismissToast(message) {
  for (const item of document.querySelectorAll("#toasts .toast")) if (item.firstChild.textContent === message) item.remove();
}

// An error: in the page's alert, as a toast, and (with `near`) in a line right after that control.
export function showError(error, near = null) {
  const alert = document.getElementById("alert");
  const text = describe(error);
  // Beside its control when there is one; the page's own alert line otherwise.
  alert.textContent = near ? "" : text;
  alert.hidden = !error || Boolean(near);
  for (const old of document.querySelectorAll(".inline-error")) if (!error || near) old.remove();
  if (!error) return;
  toast(text);
  if (near && near.isConnected) near.after(h("p", { class: "inline-error", role: "alert" }, text));
}

// The little banner that says the live connection is down and being re-established.
export function connection(state) {
  let banner = document.getElementById("connection");
  if (!banner) {
    banner = h("p", { id: "connection", class: "connection", role: "status", "aria-live": "polite", hidden: true });
    document.querySelector("header.top").append(banner);
  }
  // Back: a toast still saying the server cannot be reached would now be wrong.
  if (state === "live") dismissToast(UNREACHABLE);
  banner.hidden = state === "live";
  banner.textContent = state === "live" ? "" : "Reconnecting…";
  document.body.dataset.connection = state;
}

// A seat's name; names that several seats share (three "heuristic bot"s) get their seat number.
export function seatName(summary, seat) {
  const all = (summary && summary.seats) || [];
  const entry = all.find((s) => s.seat === seat);
  if (!entry || !entry.name) return `Player ${seat + 1}`;
  const shared = all.filter((s) => s.name === entry.name);
  return shared.length > 1 ? `${entry.name} ${shared.indexOf(entry) + 1}` : entry.name;
}

// A guest's name when the form's field is left empty: a real-looking name, never "You" (which the
// table would then read as the viewer).
const ADJECTIVES = ["Brave", "Clever", "Quiet", "Swift", "Lucky", "Patient", "Bold", "Merry", "Wise", "Keen"];
const NOUNS = ["Falcon", "Heron", "Otter", "Badger", "Lynx", "Marten", "Kestrel", "Fox", "Stag", "Wren"];
export function guestName() {
  const pick = (list) => list[Math.floor(Math.random() * list.length)];
  return `${pick(ADJECTIVES)} ${pick(NOUNS)}`;
}

// The engine's sentences say "Seat 2"; the pages say the player's name.
export function withNames(text, summary) {
  const named = (seat) => summary && summary.seats && summary.seats.some((s) => s.seat === seat && s.name);
  text = text.replace(/\b[Ss]eats (\d+(?:, \d+)*)\b/g, (match, list) => {
    const seatsNamed = list.split(", ").map(Number);
    return seatsNamed.every(named) ? seatsNamed.map((seat) => seatName(summary, seat)).join(", ") : match;
  });
  return text.replace(/\b[Ss]eat (\d+)\b/g, (match, seat) =>
    summary && summary.seats && summary.seats.some((s) => s.seat === Number(seat) && s.name)
      ? seatName(summary, Number(seat)) : match);
}

export function chip(seat) {
  return h("span", { class: "chip", style: `background:var(--seat-${seat % 6})`, "aria-hidden": "true" });
}

const modules = {};
export async function loadGame(name) {
  if (!modules[name]) {
    modules[name] = Promise.all([
      import(`/web/games/${encodeURIComponent(name)}/renderer.js`),
      fetch(`/web/games/${encodeURIComponent(name)}/board.svg`).then((r) => r.text()),
    ]).then(([module, board]) => {
      const link = h("link", { rel: "stylesheet", href: `/web/games/${encodeURIComponent(name)}/render.css` });
      document.head.append(link);
      return { module, board };
    });
  }
  return modules[name];
}

// Follow a game live. A seat follows with a stream ticket (EventSource cannot send Authorization,
// and the token must stay out of URLs): single-use, so every (re)connection asks for a new one and
// resumes with ?after=<last version>. When the connection drops the page says "Reconnecting…" and
// tries again (1 s, then every 2 s); once the stream is open again `onResync` reads the whole view
// afresh, so nothing missed meanwhile is lost and no reload is needed. `onLost(reason)`: the token no
// longer holds a seat, so retrying would never succeed. The server says so on the stream itself
// (`event: revoked`, data {"reason": "token_rotated" | "seat_handed_to_bot"}: the seat's token was
// replaced, by a device link used elsewhere or a resume through the account, or a bot took the
// seat); a refused stream ticket (401/403) says it too, with reason null.
export function follow(gameId, { token, after = 0, onEvent, onEnd, onResync, onLost }) {
  let last = after;
  let source = null;
  let stopped = false;
  let down = false;
  let timer = null;
  // One connection at a time: a browser has only a few per server, and a stream left open by a
  // race of two reconnections would hold one for good (and then the page's requests would wait).
  const retry = () => {
    if (stopped) return;
    if (source) { source.close(); source = null; }
    const wait = down ? 2000 : 1000;
    if (!down) { down = true; connection("reconnecting"); }
    clearTimeout(timer);
    timer = setTimeout(open, wait);
  };
  async function open() {
    timer = null;
    if (stopped || source) return;
    let url = `/v1/games/${gameId}/stream?after=${last}`;
    if (token) {
      try {
        const { data } = await api(`/v1/games/${gameId}/stream-tickets`, { method: "POST", token });
        url = `${data.stream}&after=${last}`;
      } catch (error) {
        if (error.status === 401 || error.status === 403) {
          stopped = true;
          // The server answered: it is the seat that is gone, not the connection (the page goes
          // on as a spectator with a stream of its own, which must not inherit "Reconnecting...").
          if (down) { down = false; connection("live"); }
          if (onLost) onLost(null);
          return;
        }
        retry();
        return;
      }
    }
    if (stopped || source || timer) return; // stopped, or another attempt won meanwhile
    source = new EventSource(url);
    source.onopen = () => {
      if (down) {
        down = false;
        connection("live");
        if (onResync) onResync();
      }
    };
    source.onmessage = (message) => {
      const item = JSON.parse(message.data);
      last = Math.max(last, item.version);
      onEvent(item);
    };
    source.addEventListener("end", () => {
      stopped = true;
      mine.close();
      if (onEnd) onEnd();
    });
    // Not a dropped connection: reconnecting would only be refused (and would ask for a ticket
    // with a token that no longer holds the seat), so the seat's stream stops here for good.
    source.addEventListener("revoked", (message) => {
      stopped = true;
      mine.close();
      let reason = null;
      try { reason = JSON.parse(message.data).reason || null; } catch { /* said without a reason */ }
      if (down) { down = false; connection("live"); }
      if (onLost) onLost(reason);
    });
    const mine = source;
    source.onerror = () => {
      if (source !== mine) { mine.close(); return; }
      retry();
    };
  }
  open();
  return { stop: () => { stopped = true; if (source) source.close(); } };
}

// Run `task` at most once at a time; calls made meanwhile collapse into one more run.
export function serialized(task) {
  let running = null;
  let again = false;
  return async function run() {
    if (running) { again = true; return running; }
    running = (async () => {
      do { again = false; await task(); } while (again);
    })().finally(() => { running = null; });
    return running;
  };
}

export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// -- accounts -------------------------------------------------------------------------
// The session token of POST /v1/sessions, kept like seat tokens: localStorage (every tab of this
// browser), never in a URL. Only the pages of this origin can read it (CSP 'self', no library).
export const account = {
  key: "account",
  get() {
    const raw = localStorage.getItem(this.key);
    if (!raw) return null;
    const session = JSON.parse(raw);
    if (session.expires && Date.parse(session.expires) <= Date.now()) { this.forget(); return null; }
    return session;
  },
  token() { const session = this.get(); return session ? session.token : null; },
  set(session) {
    localStorage.setItem(this.key, JSON.stringify({ handle: session.handle, token: session.token, expires: session.expires }));
  },
  forget() { localStorage.removeItem(this.key); },
};

// An account request; a session the server no longer knows (expired, signed out elsewhere) is
// forgotten here, so the header stops claiming someone is signed in.
export async function accountApi(path, options = {}) {
  try {
    return await api(path, { ...options, token: account.token() });
  } catch (error) {
    if (error.status === 401 && error.code !== "INVALID_CREDENTIALS") { account.forget(); drawAccountNav(); }
    throw error;
  }
}

export async function myGames() {
  return (await accountApi("/v1/me/games?limit=20")).data;
}

export async function signOut() {
  const token = account.token();
  account.forget();
  drawAccountNav();
  if (token) {
    try { await api("/v1/sessions/current", { method: "DELETE", token }); } catch { /* forgotten here anyway */ }
  }
}

// The header's corner: who is signed in, "My games" and "Sign out"; else a "Sign in" link.
export function drawAccountNav() {
  const box = document.getElementById("account-nav");
  if (!box) return;
  const session = account.get();
  const page = document.body.dataset.page;
  const current = (name) => (page === name ? "page" : null);
  if (!session) {
    const signingIn = page === "account" && pageData.data.mode === "sign-in";
    box.replaceChildren(h("a", { href: "/sign-in", "aria-current": signingIn ? "page" : null }, "Sign in"));
    return;
  }
  box.replaceChildren(
    h("span", { class: "who-am-i" }, "Signed in as ", h("strong", {}, session.handle)),
    h("a", { href: "/my-games", "aria-current": current("mygames") }, "My games"),
    h("button", { type: "button", class: "sign-out", onclick: async () => { await signOut(); location.assign("/sign-in"); } }, "Sign out"));
}

drawAccountNav();
