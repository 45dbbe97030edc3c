// The live lobby's stream and a chat room's, read through the TypeScript client generated from
// openapi.yaml (openapi-typescript + openapi-fetch): requests typed by the generated `paths`, each
// message built as the generated `LobbyStreamMessage` (a union discriminated by the SSE `event:`
// name) or `ChatStreamMessage`, with no cast. tests/clients/test_generated_clients.py compiles this
// with `tsc --strict` beside play.ts and runs it with node:
//
//     node streams.js BASE_URL SEED
//
// With the lobby's stream open: a Condottiere game is created (the lobby announces it, its free
// seats) and an account makes an open challenge (announced too, its configuration the game's own
// `CondottiereConfig`). Then both seats of the game are claimed, seat 0 writes in the players'
// room, and seat 1 reads the room's stream from its start.
//
// Prints one JSON line: the lobby's events read, the announced challenge's configuration, the chat's
// texts.
import createClient from "openapi-fetch";
import type { paths, components } from "./schema.js";

type Schemas = components["schemas"];
type LobbyStreamMessage = Schemas["LobbyStreamMessage"];
type ChatStreamMessage = Schemas["ChatStreamMessage"];

const CHANGES: ReadonlySet<string> = new Set<Schemas["LobbyGameEvent"]["change"]>(["added", "changed", "gone"]);
const ROOMS: ReadonlySet<string> = new Set<Schemas["ChatMessage"]["room"]>(["players", "spectators"]);

// What the server sent is checked, not assumed: the shape each event's component names, as far as
// telling them apart and reading the fields used below needs.
function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function isSnapshot(value: unknown): value is Schemas["LobbySnapshot"] {
  return isObject(value) && "games" in value && Array.isArray(value.games) && "challenges" in value
    && Array.isArray(value.challenges) && "seeks" in value && Array.isArray(value.seeks);
}

// A change's envelope (`change`, `id`) whose `data`, when not null, has the member only its kind has.
function isChange(value: unknown, member: string): value is { change: "added" | "changed" | "gone"; id: string; data: object | null } {
  if (!isObject(value) || !("change" in value) || !("id" in value) || !("data" in value)) return false;
  const { change, id, data } = value;
  return typeof change === "string" && CHANGES.has(change) && typeof id === "string"
    && (data === null || (isObject(data) && member in data));
}

function isGameChange(value: unknown): value is Schemas["LobbyGameEvent"] {
  return isChange(value, "free_seats");
}

function isChallengeChange(value: unknown): value is Schemas["LobbyChallengeEvent"] {
  return isChange(value, "seat_order");
}

function isSeekChange(value: unknown): value is Schemas["LobbySeekEvent"] {
  return isChange(value, "rating_range");
}

function isChatMessage(value: unknown): value is Schemas["ChatMessage"] {
  return isObject(value) && "id" in value && typeof value.id === "string" && "text" in value
    && typeof value.text === "string" && "room" in value && typeof value.room === "string" && ROOMS.has(value.room);
}

// One message as the generated union, by its `event:` name.
function lobbyMessage(event: string, id: string | undefined, data: unknown): LobbyStreamMessage {
  if (event === "lobby" && isSnapshot(data)) return { event, id: null, data };
  if (id !== undefined) {
    if (event === "game" && isGameChange(data)) return { event, id, data };
    if (event === "challenge" && isChallengeChange(data)) return { event, id, data };
    if (event === "seek" && isSeekChange(data)) return { event, id, data };
  }
  throw new Error(`not a lobby message: ${event} ${JSON.stringify(data)}`);
}

type Raw = { event: string; id: string | undefined; data: unknown };

// The messages with data of a Server-Sent Events body (`retry:` blocks and heartbeats have none).
async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<Raw> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
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
        yield { event: fields.get("event") ?? "message", id: fields.get("id"), data: JSON.parse(raw) };
      }
    }
  } finally {
    await reader.cancel();
  }
}

async function opened(url: string, headers: Record<string, string>): Promise<ReadableStream<Uint8Array>> {
  const answer = await fetch(url, { headers });
  if (!answer.ok || !answer.body) throw new Error(`${url}: ${answer.status}`);
  return answer.body;
}

async function main(baseUrl: string, seed: number): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  const handle = `tsstreams${seed}`;
  const password = "correct horse battery";
  await client.POST("/v1/accounts", { body: { handle, password, bot: false } });
  const session = await client.POST("/v1/sessions", { body: { handle, password } });
  if (!session.data) throw new Error(`sign-in refused: ${JSON.stringify(session.error)}`);
  const account = { Authorization: `Bearer ${session.data.token}` };

  const lobby = sseMessages(await opened(`${baseUrl}/v1/lobby/stream`, {}));
  const told: LobbyStreamMessage[] = [];
  const first = await lobby.next();
  if (first.done) throw new Error("the lobby ended at once");
  told.push(lobbyMessage(first.value.event, first.value.id, first.value.data));
  if (told[0].event !== "lobby") throw new Error(`the lobby did not open with its snapshot: ${JSON.stringify(told)}`);
  // While the stream is open: a game anyone may join, and an open challenge.
  const created = await client.POST("/v1/games", { body: { game: "condottiere", config: { players: 2, seed } } });
  if (!created.data) throw new Error(`create refused: ${JSON.stringify(created.error)}`);
  const gameId = created.data.id;
  const made = await client.POST("/v1/challenges", {
    headers: account,
    body: { game: "condottiere", config: { players: 2 }, open_seats: 1, rated: true, anonymous: false, seat_order: "random", expires_in: 600 },
  });
  if (!made.data) throw new Error(`challenge refused: ${JSON.stringify(made.error)}`);
  const challengeId = made.data.id;
  let freeSeats: number[] | null = null;
  let challenge: Schemas["Challenge"] | null = null;
  for await (const raw of lobby) {
    const message = lobbyMessage(raw.event, raw.id, raw.data);
    told.push(message);
    if (message.event === "game" && message.data.id === gameId && message.data.change === "added") {
      freeSeats = message.data.data?.free_seats ?? null;
    }
    if (message.event === "challenge" && message.data.id === challengeId && message.data.change === "added") {
      challenge = message.data.data;
    }
    if (freeSeats !== null && challenge !== null) break;
  }
  if (JSON.stringify(freeSeats) !== "[0,1]" || challenge === null) {
    throw new Error(`the lobby did not announce both: ${JSON.stringify(told)}`);
  }
  // The challenge's configuration is one of the games' own: Condottiere's has a ruleset.
  const config = challenge.config;
  if (!("ruleset" in config) || config.players !== challenge.seat_count) {
    throw new Error(`the challenge's configuration is not Condottiere's: ${JSON.stringify(config)}`);
  }

  const params = { path: { game_id: gameId } };
  const tokens: string[] = [];
  for (let index = 0; index < created.data.seat_count; index++) {
    const claimed = await client.POST("/v1/games/{game_id}/seats", { params, body: { name: `Player ${index}` } });
    if (!claimed.data || !claimed.data.token) throw new Error(`claim refused: ${JSON.stringify(claimed.error)}`);
    tokens.push(claimed.data.token);
  }
  const text = `good luck, table ${seed}`;
  const posted = await client.POST("/v1/games/{game_id}/chat/{room}", {
    params: { path: { game_id: gameId, room: "players" } },
    headers: { Authorization: `Bearer ${tokens[0]}` },
    body: { text },
  });
  if (!posted.data) throw new Error(`chat refused: ${JSON.stringify(posted.error)}`);
  const chat: ChatStreamMessage[] = [];
  const room = sseMessages(await opened(`${baseUrl}/v1/games/${gameId}/chat/players/stream`, {
    Authorization: `Bearer ${tokens[1]}`, "Last-Event-ID": "0-0",
  }));
  for await (const { event, id, data } of room) {
    if (event !== "chat" || id === undefined || !isChatMessage(data)) throw new Error(`not a chat message: ${JSON.stringify(data)}`);
    const message: ChatStreamMessage = { event, id, data };
    chat.push(message);
    if (message.data.text === text) break;
  }
  const last = chat.at(-1);
  if (!last || last.data.seat !== 0 || last.data.room !== "players" || last.id !== posted.data.id) {
    throw new Error(`the room told another message: ${JSON.stringify(chat)}`);
  }
  console.log(JSON.stringify({
    lobby: told.map((m) => m.event),
    challenge_config: "CondottiereConfig",
    chat: chat.map((m) => m.data.text),
  }));
}

const [baseUrl, seed] = process.argv.slice(2);
main(baseUrl, Number(seed)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
