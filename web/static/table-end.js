// The end of a game at the table: who won (the game's `endPanel`), a rematch with the seats
// rotated, a new game, the replay.
import { account, accountApi, api, h, seats, showError } from "/web/static/app.js";

// `table`: the page's state (web/static/play.js: gameId, summary, claim, token).
export function endPanel(table, game, ctx) {
  const box = h("section", { class: "end-panel", "aria-labelledby": "end-title", hidden: true });

  function draw(view, sentence) {
    if (!box.hidden) return;
    box.hidden = false;
    const result = game.endPanel ? game.endPanel(view, ctx) : null;
    const rematch = h("button", { type: "button", onclick: (event) => makeRematch(event.currentTarget) }, "Rematch (seats rotated)");
    box.replaceChildren(h("h2", { id: "end-title" }, "Game over"), h("p", { class: "end-result" }, sentence),
      result ? h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Final result" }, result) : null,
      h("div", { class: "end-actions" }, table.token ? rematch : null, h("a", { class: "button", href: "/" }, "New game"),
        h("a", { class: "button", href: `/replay/${table.gameId}` }, "Watch the replay")));
  }

  // The same players and options in a new game, every seat moved one place on; the bots keep their
  // level, this player takes their new seat, the other people join from the lobby.
  async function makeRematch(button) {
    button.disabled = true;
    const { summary, claim } = table;
    try {
      const n = summary.seat_count;
      const bots = {};
      for (const s of summary.seats) if (s.kind === "bot" && s.bot) bots[String((s.seat + 1) % n)] = s.bot;
      const config = { ...(summary.config || {}) };
      delete config.seed;
      delete config.deck_order;
      const { data } = await api("/v1/games", { method: "POST", body: { game: summary.game, config, bots } });
      const me = summary.seats.find((s) => s.seat === claim.seat);
      // Signed in, the new seat is bound to the account too (its handle names it).
      const signedIn = Boolean(account.get());
      const { data: seat } = await (signedIn ? accountApi : api)(`/v1/games/${data.id}/seats`, {
        method: "POST", body: signedIn ? { seat: (claim.seat + 1) % n } : { name: (me && me.name) || "Player", seat: (claim.seat + 1) % n },
      });
      seats.set(data.id, seat);
      location.assign(`/play/${data.id}`);
    } catch (error) {
      button.disabled = false;
      showError(error, button);
    }
  }

  return { box, draw };
}
