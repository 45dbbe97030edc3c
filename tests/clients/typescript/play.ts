// One game played through the TypeScript client generated from openapi.yaml (openapi-typescript +
// openapi-fetch): every path, body and answer is typed by the generated `paths`, with no cast and no
// hand-written request. tests/clients/test_generated_clients.py generates `schema.d.ts` next to this
// file, compiles both with `tsc --strict` and runs the result with node:
//
//     node play.js BASE_URL GAME SEED
//
// Prints one JSON line: the game's id, the moves played, the final version and the winners.
import createClient from "openapi-fetch";
import type { paths, components } from "./schema.js";

type CreateGameRequest = components["schemas"]["CreateGameRequest"];

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
  for (let index = 0; index < created.data.seat_count; index++) {
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
  console.log(JSON.stringify({ game_id: gameId, moves, version: summary.data.version, winners: result.winners }));
}

const [baseUrl, game, seed] = process.argv.slice(2);
main(baseUrl, game, Number(seed)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
