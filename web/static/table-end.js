// The end of a game at the table: who won (the game's `endPanel`), a rematch with the seats
// rotated, a new game, the replay.
//
// The rematch goes through the API (POST/GET /v1/games/{id}/rematch): each seat accepts, bots at
// once; the acceptance is issued the token of this person's seat in the new game, kept here (a
// seat played with the account's token needs none) until the game exists; once every seat has
// accepted the server starts the new game and every page at the table goes to it. The offer is
// read again every few seconds while the panel shows, so the others' pages say who offered.
import { api, h, seatName, seats, showError } from "/web/static/app.js";

const POLL_MS = 2000;

// `table`: the page's state (web/static/play.js: gameId, summary, claim, token).
export function endPanel(table, game, ctx) {
  const box = h("section", { class: "end-panel", "aria-labelledby": "end-title", hidden: true });
  const said = h("p", { class: "rematch-status", role: "status" });
  const issuedKey = `rematch:${table.gameId}`;
  let button = null;
  let polling = null;
  let leaving = false;

  function draw(view, sentence) {
    if (!box.hidden) return;
    box.hidden = false;
    const result = game.endPanel ? game.endPanel(view, ctx) : null;
    button = table.token ? h("button", { type: "button", class: "rematch", onclick: () => offer() }, "Rematch (seats rotated)") : null;
    box.replaceChildren(h("h2", { id: "end-title" }, "Game over"), h("p", { class: "end-result" }, sentence),
      result ? h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Final result" }, result) : null,
      button ? said : null,
      h("div", { class: "end-actions" }, button, h("a", { class: "button", href: "/" }, "New game"),
        h("a", { class: "button", href: `/replay/${table.gameId}` }, "Watch the replay")));
    if (button) {
      watch();
      polling = setInterval(watch, POLL_MS);
    }
  }

  const path = () => `/v1/games/${encodeURIComponent(table.gameId)}/rematch`;

  async function offer() {
    button.disabled = true;
    try {
      const { data } = await api(path(), { method: "POST", token: table.token });
      if (!table.claim.account && data.token) localStorage.setItem(issuedKey, JSON.stringify({ seat: data.seat, token: data.token }));
      show(data);
    } catch (error) {
      button.disabled = false;
      showError(error, button);
    }
  }

  async function watch() {
    try {
      show((await api(path())).data);
    } catch { /* the next read tells */ }
  }

  const names = (list) => list.map((s) => seatName(table.summary, s)).join(", ");

  function show(offered) {
    if (leaving || !table.claim) return;
    const me = table.claim.seat;
    const mine = offered.accepted.includes(me);
    if (offered.rematch && mine) {
      go(offered.rematch);
      return;
    }
    const bots = new Set(table.summary.seats.filter((s) => s.kind === "bot").map((s) => s.seat));
    const people = offered.accepted.filter((s) => s !== me && !bots.has(s));
    if (mine) {
      button.disabled = true;
      button.textContent = "Rematch offered";
      said.textContent = `Waiting for ${names(offered.waiting_for)} to accept the rematch.`;
    } else if (people.length) {
      button.textContent = "Accept the rematch";
      said.textContent = `${names(people)} ${people.length === 1 ? "offers" : "offer"} a rematch, seats rotated.`;
    }
  }

  function go(gameId) {
    leaving = true;
    clearInterval(polling);
    const issued = localStorage.getItem(issuedKey);
    if (issued) {
      seats.set(gameId, JSON.parse(issued));
      localStorage.removeItem(issuedKey);
    }
    location.assign(`/play/${encodeURIComponent(gameId)}`);
  }

  return { box, draw };
}
