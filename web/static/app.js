// The page shell shared by every page: API calls, seat tokens, the live stream, the game's module.
//
// A game's module (GET /web/games/<name>/renderer.js) exports:
//   configFields            the creation form's fields: [{key, label, type, ...}] (lobby)
//   mount(el, ctx)          builds the game's area in `el` (ctx.board: the SVG text, ctx.names)
//   render(view, ctx)       draws a view (a seat's, the spectator's or a replay state)
//   choices(legalMoves)     the moves as controls: [{label, move} | {label, prompt, options: [...]}]
//   status(view, ctx)       one sentence: whose turn and what is awaited
//   heatmap(el, counts)     colours the board by a {region: n} mapping (statistics)
// Seat tokens live in sessionStorage only (this tab), never in a URL.

export const pageData = JSON.parse(document.getElementById("page-data").textContent);

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code;
  }
}

export async function api(path, { method = "GET", body, token, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data, headers: response.headers };
}

// A job-backed resource (statistics): 200 with the figures, or 202 and a job to wait for.
export async function apiEventually(path, { tries = 60 } = {}) {
  for (let i = 0; i < tries; i++) {
    const { status, data } = await api(path);
    if (status === 200) return data;
    if (data && data.status === "failed") throw new ApiError(500, data.error);
    await sleep(Math.min(250 * (i + 1), 2000));
  }
  throw new Error("The figures are still being computed; try again later.");
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const seats = {
  key: (gameId) => `seat:${gameId}`,
  get(gameId) {
    const raw = sessionStorage.getItem(this.key(gameId));
    return raw ? JSON.parse(raw) : null;
  },
  set(gameId, claim) {
    sessionStorage.setItem(this.key(gameId), JSON.stringify({ seat: claim.seat, token: claim.token }));
  },
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

export function showError(error) {
  const alert = document.getElementById("alert");
  alert.textContent = error ? String(error.message || error) : "";
  alert.hidden = !error;
}

// A seat's name; names that several seats share (three "heuristic bot"s) get their seat number.
export function seatName(summary, seat) {
  const all = (summary && summary.seats) || [];
  const entry = all.find((s) => s.seat === seat);
  if (!entry || !entry.name) return `Seat ${seat}`;
  const shared = all.filter((s) => s.name === entry.name).length > 1;
  return shared ? `${entry.name} ${seat}` : entry.name;
}

// The engine's sentences say "Seat 2"; the pages say the player's name.
export function withNames(text, summary) {
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
// resumes with ?after=<last version>. A spectator needs no ticket; EventSource resumes by itself.
export function follow(gameId, { token, after = 0, onEvent, onEnd }) {
  let last = after;
  let source = null;
  let stopped = false;
  async function open() {
    if (stopped) return;
    let url = `/v1/games/${gameId}/stream?after=${last}`;
    if (token) {
      try {
        const { data } = await api(`/v1/games/${gameId}/stream-tickets`, { method: "POST", token });
        url = `${data.stream}&after=${last}`;
      } catch (error) {
        showError(error);
        setTimeout(open, 3000);
        return;
      }
    }
    source = new EventSource(url);
    source.onmessage = (message) => {
      const item = JSON.parse(message.data);
      last = Math.max(last, item.version);
      onEvent(item);
    };
    source.addEventListener("end", () => {
      stopped = true;
      source.close();
      if (onEnd) onEnd();
    });
    source.onerror = () => {
      if (token || source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(open, 1000);
      }
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
