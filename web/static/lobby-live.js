// The lobby's open games, kept by GET /v1/lobby/stream (Server-Sent Events) instead of polling.
// The stream's first frame (`event: lobby`) lists the open games only by id and free seats, so the
// full summaries (seat names, for the rows and their ratings) are read once then, with
// GET /v1/games?status=open; after it each `game` change reads that one game's summary (added, a
// seat claimed or left) or drops it (gone: started or abandoned). EventSource reconnects by itself
// and sends Last-Event-ID, which the server resumes after (or answers `event: lobby` again when
// that id is too old). Only a stream that stays closed (the server refused it) falls back to a
// slow poll of the list, trying the stream again at each round.
import { api } from "/web/static/app.js";

const SHOWN = 20;
const FALLBACK_MS = 30000;

// `onChange(games)`: the open games newest first, after every change; `onStarted()`: an open game
// went (it may have started, so the running list changed).
export function followOpenGames({ onChange, onStarted }) {
  const open = new Map();
  let fallback = null;
  let source = null;
  let goneWhileReading = null; // ids gone while the full list was on its way (it may still hold them)

  const emit = () => onChange([...open.values()].sort((a, b) => (b.created || "").localeCompare(a.created || "")).slice(0, SHOWN));

  async function readAll() {
    goneWhileReading = new Set();
    const { data } = await api(`/v1/games?status=open&limit=${SHOWN}`);
    open.clear();
    for (const game of data.games) if (!goneWhileReading.has(game.id)) open.set(game.id, game);
    goneWhileReading = null;
    emit();
  }

  async function readOne(id) {
    try {
      const { data } = await api(`/v1/games/${encodeURIComponent(id)}`);
      if (data.status === "open") open.set(id, data);
      else open.delete(id);
    } catch (error) {
      if (error.status === 404) open.delete(id);
      else return; // offline for a moment: the stream's next frame says how things stand
    }
    emit();
  }

  function connect() {
    source = new EventSource("/v1/lobby/stream");
    source.addEventListener("lobby", () => {
      stopFallback();
      readAll().catch(() => {});
    });
    source.addEventListener("game", (event) => {
      const { change, id } = JSON.parse(event.data);
      if (change === "gone") {
        if (goneWhileReading) goneWhileReading.add(id);
        open.delete(id);
        emit();
        onStarted();
      } else readOne(id);
    });
    source.addEventListener("open", stopFallback);
    source.addEventListener("error", () => {
      // CONNECTING: EventSource retries by itself (and resumes). CLOSED: it gave up.
      if (source.readyState === EventSource.CLOSED && !fallback) {
        readAll().catch(() => {});
        fallback = setInterval(() => { readAll().catch(() => {}); if (source.readyState === EventSource.CLOSED) connect(); }, FALLBACK_MS);
      }
    });
  }

  function stopFallback() {
    if (fallback) clearInterval(fallback);
    fallback = null;
  }

  connect();
}
