// One game played through the TypeScript client generated from openapi.yaml (openapi-typescript +
// openapi-fetch): every path, body and answer is typed by the generated `paths`, with no cast and no
// hand-written request. tests/clients/test_generated_clients.py generates `schema.d.ts` next to this
// file, compiles both with `tsc --strict` and runs the result with node:
//
//     node play.js BASE_URL GAME SEED
//
// Seat 0 is an account's, played with the account's token; after the game the script reads the
// account's stream (/v1/me/stream, a stream: read with fetch) and narrows each message's data, one
// `AccountStreamEvent` (the generated union of the stream's events), by its `type`.
//
// Prints one JSON line: the game's id, the moves played, the final version, the winners and the
// events the account's stream told.
import createClient from "openapi-fetch";
import type { paths, components } from "./schema.js";

type CreateGameRequest = components["schemas"]["CreateGameRequest"];
type AccountStreamEvent = components["schemas"]["AccountStreamEvent"];
type AccountStreamMessage = components["schemas"]["AccountStreamMessage"];

const EVENT_TYPES: ReadonlySet<string> = new Set<AccountStreamEvent["type"]>([
  "open_games", "game_started", "your_turn", "game_finished", "verified", "export_ready", "webhook_paused",
  "challenge", "challenge_canceled", "challenge_declined", "challenge_expired", "tournament_round_started",
  "tournament_finished", "revoked",
]);

// What the server sent is checked, not assumed: an object whose `type` is one of the union's.
function isStreamEvent(value: unknown): value is AccountStreamEvent {
  return typeof value === "object" && value !== null && "type" in value && typeof value.type === "string" && EVENT_TYPES.has(value.type);
}

// The account's stream from its first entry, each message decoded, until the game's end.
async function streamUntilFinished(baseUrl: string, token: string, gameId: string): Promise<AccountStreamMessage[]> {
  const answer = await fetch(`${baseUrl}/v1/me/stream`, { headers: { Authorization: `Bearer ${token}`, "Last-Event-ID": "0-0" } });
  if (!answer.body) throw new Error("the stream has no body");
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  const told: AccountStreamMessage[] = [];
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before the game did: ${JSON.stringify(told)}`);
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const fields = new Map<string, string>();
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ""));
      }
      const raw = fields.get("data");
      if (raw === undefined) continue;
      const data: unknown = JSON.parse(raw);
      if (!isStreamEvent(data)) throw new Error(`not an AccountStreamEvent: ${raw}`);
      const message: AccountStreamMessage = { event: data.type, id: fields.get("id") ?? null, data };
      told.push(message);
      if (message.data.type === "game_finished" && message.data.game_id === gameId) {
        await reader.cancel();
        return told;
      }
    }
  }
}

const MAX_MOVES = 4000;

function random(seed: number): (n: number) => number {
  // A small LCG: the same moves on every run for a seed.
  let state = seed >>> 0;
  return (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

async function main(baseUrl: string, game: string, seed: number): Promise<void> {
  const pick = random(seed);
  const client = createClient<paths>({ baseUrl });
  const body: CreateGameRequest =
    game === "condottiere"
      ? { game: "condottiere", config: { players: 2, seed } }
      : { game: "rio_de_la_plata", config: { players: 3, seed } };
  const created = await client.POST("/v1/games", { body });
  if (!created.data) throw new Error(`create refused: ${JSON.stringify(created.error)}`);
  const gameId = created.data.id;
  const params = { path: { game_id: gameId } };
  const tokens = new Map<number, string>();
  // Seat 0: an account's, played with its account token.
  const handle = `ts${game.slice(0, 3)}${seed}`;
  const password = "correct horse battery";
  await client.POST("/v1/accounts", { body: { handle, password, bot: false } });
  const session = await client.POST("/v1/sessions", { body: { handle, password } });
  if (!session.data) throw new Error(`sign-in refused: ${JSON.stringify(session.error)}`);
  const accountToken = session.data.token;
  const held = await client.POST("/v1/games/{game_id}/seats", {
    params, headers: { Authorization: `Bearer ${accountToken}` }, body: { seat: 0 },
  });
  if (!held.data) throw new Error(`the account's claim refused: ${JSON.stringify(held.error)}`);
  tokens.set(0, accountToken);
  for (let index = 1; index < created.data.seat_count; index++) {
    const claimed = await client.POST("/v1/games/{game_id}/seats", { params, body: { name: `Player ${index}` } });
    if (!claimed.data || !claimed.data.token) throw new Error(`claim refused: ${JSON.stringify(claimed.error)}`);
    tokens.set(claimed.data.seat, claimed.data.token);
  }
  const auth = (seat: number) => ({ Authorization: `Bearer ${tokens.get(seat)}` });
  // A spectator polling with the view's ETag is answered 304 while nothing changed.
  const first = await client.GET("/v1/games/{game_id}/view", { params });
  const etag = first.response.headers.get("ETag") ?? "";
  const unchanged = await client.GET("/v1/games/{game_id}/view", {
    params: { ...params, header: { "If-None-Match": etag } },
  });
  if (unchanged.response.status !== 304 || unchanged.data !== undefined) throw new Error("no 304 for an unchanged view");
  let moves = 0;
  for (;;) {
    const pub = await client.GET("/v1/games/{game_id}/view", { params });
    if (!pub.data) throw new Error(`view refused: ${JSON.stringify(pub.error)}`);
    if (pub.data.status === "finished") break;
    if (!pub.data.view) throw new Error("a started game without a view");
    const seat = pub.data.view.awaiting[0];
    const mine = await client.GET("/v1/games/{game_id}/view", { params: { ...params }, headers: auth(seat) });
    const legal = mine.data?.view?.legal_moves;
    if (!mine.data || !legal || legal.length === 0) throw new Error("the awaited seat has no legal moves");
    const command = legal[pick(legal.length)];
    const answer = await client.POST("/v1/games/{game_id}/moves", {
      params: { ...params, header: { "Idempotency-Key": `${seat}-${mine.data.version}` } },
      headers: auth(seat),
      body: { command, expected_version: mine.data.version },
    });
    if (!answer.data) throw new Error(`move refused: ${JSON.stringify(answer.error)}`);
    moves++;
    if (moves >= MAX_MOVES) throw new Error(`no end after ${moves} moves`);
  }
  const summary = await client.GET("/v1/games/{game_id}", { params });
  const result = summary.data?.result;
  if (!summary.data || !result) throw new Error("a finished game without a result");
  const page = await client.GET("/v1/games/{game_id}/events", { params: { ...params, query: { limit: 5 } } });
  if (!page.data || page.data.events.length === 0) throw new Error("no events");
  const told = await streamUntilFinished(baseUrl, accountToken, gameId);
  const started = told.filter((m) => m.data.type === "game_started" && m.data.game_id === gameId && m.data.seat === 0);
  if (started.length !== 1) throw new Error(`the account's stream did not tell the start once: ${JSON.stringify(told)}`);
  const stream = told.map((m) => m.data.type);
  console.log(JSON.stringify({ game_id: gameId, moves, version: summary.data.version, winners: result.winners, stream }));
}

const [baseUrl, game, seed] = process.argv.slice(2);
main(baseUrl, game, Number(seed)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
