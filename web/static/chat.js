// The chat panel at a table (the play page): the players' room for a seat, the spectators' room for
// everyone. A <details> panel: open beside the board on a wide screen, collapsed on a phone. Reads
// by polling GET /v1/games/{id}/chat/{room} (the room's SSE stream needs an Authorization header,
// which EventSource cannot send).

import { account, api, describe, h, pageData, seats } from "/web/static/app.js";

const POLL_MS = 3000;

// Whether this browser plays a seat of the game: a seat token it holds, or its account's seat.
async function seatOf(gameId) {
  const held = seats.get(gameId);
  if (held) return held;
  const token = account.token();
  if (!token) return null;
  try {
    const { data } = await api(`/v1/games/${encodeURIComponent(gameId)}/view`, { token });
    return data.seat !== null && data.seat !== undefined ? { seat: data.seat, token } : null;
  } catch {
    return null; // a spectator's account: not seated here
  }
}

export async function start() {
  if (document.body.dataset.page !== "play") return;
  const gameId = pageData.data && pageData.data.game_id;
  if (!gameId) return;
  const seat = await seatOf(gameId);
  const token = (seat && seat.token) || account.token();
  const rooms = seat ? ["players", "spectators"] : ["spectators"];
  let room = rooms[0];
  const last = {};
  const list = h("ol", { class: "chat-messages", "aria-live": "polite" });
  const input = h("input", { type: "text", name: "text", maxlength: "300", "aria-label": "Message", autocomplete: "off" });
  const tabs = h("div", { class: "chat-rooms", role: "group", "aria-label": "Room" },
    ...rooms.map((name) => h("button", { type: "button", "aria-pressed": String(name === room), onclick: () => switchTo(name) },
      name === "players" ? "Players" : "Spectators")));
  const mayWrite = () => (room === "players" ? Boolean(seat) : Boolean(account.get()) && !seat);
  const form = h("form", { class: "chat-form", onsubmit: send }, input, h("button", { type: "submit" }, "Send"));
  const note = h("p", { class: "chat-note" });
  const panel = h("details", { class: "chat", id: "chat" }, h("summary", {}, "Chat"), tabs, list, form, note);
  panel.open = window.matchMedia("(min-width: 700px)").matches;
  document.getElementById("main").append(panel);

  function switchTo(name) {
    room = name;
    for (const button of tabs.children) button.setAttribute("aria-pressed", String(button.textContent.toLowerCase() === name));
    list.replaceChildren();
    delete last[name];
    draw();
    poll();
  }

  function draw() {
    form.hidden = !mayWrite();
    note.textContent = mayWrite() ? "" : room === "spectators" && seat ? "Players read this room; only spectators write in it." : "Sign in to write.";
  }

  async function send(event) {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    try {
      await api(`/v1/games/${encodeURIComponent(gameId)}/chat/${room}`, { method: "POST", body: { text }, token });
      input.value = "";
      poll();
    } catch (error) {
      note.textContent = describe(error);
    }
  }

  async function poll() {
    const after = last[room] ? `?after=${encodeURIComponent(last[room])}` : "";
    try {
      const { data } = await api(`/v1/games/${encodeURIComponent(gameId)}/chat/${room}${after}`, { token });
      for (const message of data.messages) {
        last[room] = message.id;
        list.append(h("li", {}, h("strong", {}, `${message.name || "?"}: `), message.text));
      }
      if (data.messages.length) list.scrollTop = list.scrollHeight;
    } catch { /* the next poll tries again */ }
  }

  draw();
  poll();
  setInterval(poll, POLL_MS);
}
