// Joining a game: a seat claimed (as the signed-in account, or under a name) and the play page
// opened; the form that asks for it (the lobby's open games, an open game's own page); the link a
// creator sends to invite others.
import { account, accountApi, api, h, seats, showError, toast } from "/web/static/app.js";

export async function claimAndPlay(gameId, name, seat) {
  const body = {};
  if (name && !account.get()) body.name = name;
  if (seat !== undefined) body.seat = seat;
  const claim = account.get() ? accountApi : api;
  const { data } = await claim(`/v1/games/${gameId}/seats`, { method: "POST", body });
  seats.set(gameId, data);
  location.assign(`/play/${gameId}`);
}

export function joinForm(game) {
  const signedIn = account.get();
  if (signedIn) {
    const button = h("button", { type: "button", onclick: async () => {
      button.disabled = true;
      try { await claimAndPlay(game.id); } catch (error) { button.disabled = false; showError(error, button); }
    } }, `Join as ${signedIn.handle}`, h("span", { class: "visually-hidden" }, ` (game ${game.id})`));
    return h("div", { class: "join" }, button);
  }
  const id = `join-${game.id}`;
  const input = h("input", { id, name: "name", maxlength: 40, required: true, autocomplete: "nickname", placeholder: "Your name" });
  const button = h("button", { type: "submit" }, "Join");
  return h("form", {
    class: "join",
    onsubmit: async (event) => {
      event.preventDefault();
      button.disabled = true;
      try { await claimAndPlay(game.id, input.value.trim()); } catch (error) { button.disabled = false; showError(error, event.target); }
    },
  }, h("label", { for: id }, "Your name", h("span", { class: "visually-hidden" }, ` for game ${game.id}`)), input, button);
}

// The link to send: the game's own page, where whoever opens it finds the same Join form.
export function inviteBox(gameId) {
  const url = `${location.origin}/watch/${gameId}`;
  const input = h("input", { id: "invite-url", class: "device-url", readonly: true, value: url, "aria-label": "Invitation link" });
  const copy = h("button", { type: "button", onclick: async () => {
    try { await navigator.clipboard.writeText(url); toast("Link copied.", { kind: "info", ms: 3000 }); } catch { input.select(); }
  } }, "Copy");
  return h("div", { class: "invite" }, h("p", {}, "Send this link to the people you want to play with; it opens this page, where they join:"),
    h("div", { class: "device-row" }, input, copy));
}
