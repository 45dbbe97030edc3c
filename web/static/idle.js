// When a running game has been left (the lobby's "Idle" list), from what its
// summary (GET /v1/games) says of its clock:
//
// * A timed game moves by itself: a seat that does not decide by its deadline gets a timeout, and
//   after `timeouts_to_bot` of them a bot plays it (the server's clock enforcer). So it is running
//   while an awaited seat's deadline is ahead, however long its decisions may take (a day per move
//   is no abandonment), and idle once every awaited seat's deadline has passed by GRACE_MS with
//   nothing moved: then nothing is moving it (no enforcer runs). The enforcer acts within seconds
//   of a deadline (docs/api.md, "Clocks"); the grace is far beyond that and beyond the clock skew
//   of a browser, so a game in order never blinks into "Idle".
// * An untimed game waits for its players for ever: it is idle once nobody has moved in it for
//   UNTIMED_IDLE_MS (the documented rule: docs/clients.md). So is a timed game that awaits no
//   seat with a deadline (only bots, whose turns take seconds).
export const GRACE_MS = 5 * 60 * 1000;
export const UNTIMED_IDLE_MS = 60 * 60 * 1000;

// null while the game is running, else why it is idle: {since (epoch ms), reason (words)}.
export function idleness(game, now = Date.now()) {
  if (game.status !== "active") return null;
  const awaiting = new Set(game.awaiting || []);
  const deadlines = ((game.clock && game.clock.seats) || [])
    .filter((s) => awaiting.has(s.seat) && s.deadline_ms !== null && s.deadline_ms !== undefined)
    .map((s) => s.deadline_ms);
  if (deadlines.length) {
    const last = Math.max(...deadlines);
    return now > last + GRACE_MS ? { since: last, reason: "its clock ran out and nothing has moved it since" } : null;
  }
  const moved = Date.parse(game.updated || game.started || game.created);
  if (Number.isNaN(moved) || now - moved <= UNTIMED_IDLE_MS) return null;
  return { since: moved, reason: "nobody has moved in it for over an hour" };
}
