// The play table (/play/<id>, with this browser's seat token or the signed-in account's) and the
// spectator page (/watch/<id>). This module holds the table's state and wires its parts: the players
// (table-seats.js), the moves (table-moves.js), how to win, the rules and what just happened
// (table-info.js), the end (table-end.js), your turn noticed (turn-notice.js), joining (join.js).
import {
  account, api, connection, describe, follow, h, loadGame, myGames, pageData, seatName, seats, serialized, setApp,
  showError, toast,
} from "/web/static/app.js";
import { deviceLinkBox } from "/web/static/device.js";
import { inviteBox, joinForm } from "/web/static/join.js";
import { watchTableRatings } from "/web/static/rating-bits.js";
import { endPanel } from "/web/static/table-end.js";
import { goalBox, recentBox, sentence } from "/web/static/table-info.js";
import { movesInput } from "/web/static/table-moves.js";
import { seatsList } from "/web/static/table-seats.js";
import { noticeToggles, noticeTurn } from "/web/static/turn-notice.js";

const { game_id: gameId, mode } = pageData.data;

// The table's state: what the page knows of the game and of the seat it plays. The parts read it;
// only this module writes it.
const table = {
  gameId,
  mode,
  claim: mode === "play" ? seats.get(gameId) : null, // {seat, token, account?}
  token: null,
  summary: null,
  version: 0,
  finished: false,
  lastView: null,
  clock: null, // a timed game's clock, as last read, and when it was read
  clockRead: 0,
  former: null, // the seat this page played until its token stopped holding it
  formerLost: null, // why: "seat_handed_to_bot" or "token_rotated" (the summary may lag behind)
};
table.token = table.claim ? table.claim.token : null;

// Signed in, with no seat token of this game in this browser, but the account holds a seat of it:
// the page plays that seat with the account's own token, as every signed-in device may at once
// (the server takes an account token for the account's seat). Nothing is rotated, nobody else is
// told, and no other device stops playing it.
async function accountClaim() {
  if (!account.get()) return null;
  try {
    const mine = (await myGames()).running.find((g) => g.game_id === gameId && g.status === "active");
    return mine ? { seat: mine.seat, token: account.token(), account: true } : null;
  } catch { return null; } // signed out meanwhile, or the server is away: the page only watches
}

function notFound(message) {
  document.getElementById("title").textContent = "No such game";
  setApp(h("p", {}, message), h("p", {}, h("a", { href: "/" }, "Back to the lobby")));
}

function setTitle() {
  const { summary, claim } = table;
  document.getElementById("title").textContent = mode === "play"
    ? `${summary.title}: ${claim ? `playing as ${seatName(summary, claim.seat)}` : "you hold no seat"}`
    : `${summary.title}: watching`;
}

// The page's parts, laid out: on a phone the moves come first (app.css), the log last.
function layout(game, ctx) {
  const parts = {
    status: h("p", { class: "status", role: "status", "aria-live": "polite" }),
    notice: h("p", { class: "seat-notice", hidden: true }),
    area: h("div", { class: "table" }),
    movesBox: h("div", { class: "moves", role: "group", "aria-label": "Legal moves", tabindex: "-1" }),
    // What the decision depends on, beside it (a game's `decisionInfo`: Rio's stock of the seat).
    infoBox: h("div", { class: "decision-info", hidden: true }),
    logList: h("ol", { class: "log", "aria-label": "What happened, newest last", tabindex: "0" }),
    device: h("div", { class: "device" }),
    goal: goalBox(game),
    recent: recentBox(),
    seats: seatsList(table),
    end: endPanel(table, game, ctx),
    // An open game, seen by someone without a seat (its creator who only created it, whoever got
    // its link): a Join form and the link to send.
    invite: h("section", { class: "invite-panel", "aria-labelledby": "invite-title", hidden: true },
      h("h2", { id: "invite-title" }, "Join this game"), joinForm({ id: gameId }), inviteBox(gameId)),
  };
  parts.controls = h("section", { class: "controls", "aria-labelledby": "moves-title", hidden: !table.token },
    h("h2", { id: "moves-title" }, "Your moves"), parts.infoBox, parts.movesBox);
  const log = h("section", { class: "log-box", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Game log"), parts.logList);
  const links = h("p", { class: "links" },
    mode === "play" ? [h("a", { href: `/watch/${gameId}` }, "Spectator page"), " · "] : null,
    h("a", { href: `/replay/${gameId}` }, "Replay"), " · ", h("a", { href: "/" }, "Lobby"));
  setApp(parts.status, parts.notice, parts.invite, parts.seats.el, parts.end.box,
    h("div", { class: "play-grid" }, parts.area, h("div", { class: "rail" }, parts.goal.box, parts.controls, parts.recent.box, log)),
    parts.device, links);
  if (mode === "play" && !table.token) {
    parts.notice.hidden = false;
    parts.notice.replaceChildren("This browser holds no seat of this game. Join from the ",
      h("a", { href: "/" }, "lobby"), ", open the device link the player sent you, sign in to the account that holds it, or ",
      h("a", { href: `/watch/${gameId}` }, "watch"), ".");
  }
  // A seat played through the account needs no device link: signing in on the other device is it.
  if (table.token) parts.device.append(noticeToggles(), ...(table.claim.account ? [] : [deviceLinkBox(gameId, () => table.token)]));
  game.mount(parts.area, ctx);
  return parts;
}

// The seat's own events that the page says in a toast (its time ran out, a bot took it).
function seatToasts(event) {
  const played = table.claim ? table.claim.seat : table.former;
  if (!event || played === null || event.seat !== played) return;
  if (event.type === "seat_timed_out") {
    toast("Your time ran out: the game made a move for you.", { kind: "info", ms: 10000 });
  } else if (event.type === "seat_handed_to_bot" && table.claim) { // else lost() said it already
    toast("After repeated timeouts a bot now plays your seat.", { kind: "info", ms: 15000 });
  }
}

// Why the page stopped playing its seat, in words, and what can be done.
function sayLost(notice, reason) {
  notice.hidden = false;
  notice.dataset.lost = reason;
  if (reason === "seat_handed_to_bot") {
    notice.replaceChildren(h("strong", {}, "A bot plays your seat now."),
      " After repeated timeouts the game handed it to a bot, and this browser's token no longer holds it: this page only watches. ",
      h("a", { href: "/" }, "Start or join another game"), ".");
  } else {
    notice.replaceChildren(h("strong", {}, "This seat's token was replaced."),
      " The seat is now played on another device or in another browser (a device link was opened there), so this page stopped playing it and only watches. ",
      "To play it here again, open \u201cContinue on another device\u201d on the device that plays it now and open its link here, or sign in here to the account that holds it.");
  }
  toast(reason === "seat_handed_to_bot" ? "A bot plays your seat now." : "This seat's token was replaced: it is played elsewhere now.",
    { kind: "info", ms: 10000 });
}

async function main() {
  if (mode === "play" && !table.claim) {
    table.claim = await accountClaim();
    table.token = table.claim ? table.claim.token : null;
  }
  try {
    table.summary = (await api(`/v1/games/${gameId}`)).data;
  } catch (error) {
    if (error.status === 404) { notFound(`There is no game ${gameId}.`); return; }
    throw error;
  }
  const { module: game, board } = await loadGame(table.summary.game);
  // `you`: the seat this page plays (a replay's "as Bob saw it" has none: it is not the reader).
  const ctx = { board, names: (seat) => seatName(table.summary, seat), interactive: false, get you() { return table.claim ? table.claim.seat : null; } };
  setTitle();
  const parts = layout(game, ctx);
  const { status, notice, infoBox, controls } = parts;
  const moves = movesInput({
    table, game, ctx, controls, movesBox: parts.movesBox, update: () => update(), onDecided: (at) => parts.recent.decided(at),
  });

  let annotated = 0;
  let wasMine = false;
  let summaryStale = false;

  async function readSummary() {
    summaryStale = false;
    table.summary = (await api(`/v1/games/${gameId}`)).data;
    watchTableRatings(gameId, table.summary, parts.seats.draw);
    parts.seats.draw();
    parts.invite.hidden = table.summary.status !== "open" || Boolean(table.token);
    if (table.summary.status === "open") {
      const free = table.summary.seats.filter((s) => !s.name).length;
      status.textContent = `Waiting for players: ${free} seat${free === 1 ? "" : "s"} free.`;
    }
  }

  async function refresh() {
    if (table.summary.status === "open" || summaryStale || table.finished !== (table.summary.status === "finished")) {
      await readSummary();
      if (table.summary.status === "open") return;
    }
    const { data } = await api(`/v1/games/${gameId}/view`, { token: table.token });
    const view = data.view;
    Object.assign(table, { version: data.version, finished: data.status === "finished", clock: data.clock || null, clockRead: Date.now(), lastView: view });
    const mine = Boolean(table.token && view && (view.awaiting || []).includes(table.claim.seat));
    ctx.interactive = Boolean(table.token && view && (view.legal_moves || []).length);
    parts.seats.draw();
    game.render(view, ctx);
    parts.goal.draw(view, ctx);
    status.textContent = game.status(view, ctx);
    const info = table.token && view && game.decisionInfo ? game.decisionInfo(view, ctx) : null;
    infoBox.replaceChildren(...(info ? [info] : []));
    infoBox.hidden = !info;
    const me = table.claim && table.summary.seats.find((s) => s.seat === table.claim.seat);
    if (me && me.kind === "bot") {
      notice.hidden = false;
      notice.textContent = "After repeated timeouts a bot plays your seat now.";
    }
    if (mine !== wasMine) noticeTurn(mine, status.textContent, gameId);
    wasMine = mine;
    moves.show(data, mine);
    if (table.finished) parts.end.draw(view, status.textContent);
    document.getElementById("app").dataset.version = String(data.version);
    await readLog();
  }

  async function readLog() {
    while (true) {
      const { data } = await api(`/v1/games/${gameId}/annotations?after=${annotated}&limit=500`, { token: table.token });
      for (const entry of data.annotations) {
        const text = sentence(entry.text, { summary: table.summary, seat: table.claim ? table.claim.seat : null });
        parts.logList.append(h("li", { value: entry.version }, text));
        parts.recent.add(entry.version, text);
        annotated = entry.version;
      }
      if (data.next_after === null) break;
    }
    parts.logList.scrollTop = parts.logList.scrollHeight;
  }

  const update = serialized(async () => {
    try {
      await refresh();
    } catch (error) {
      // A read sent with the token just before the page stopped playing the seat: read again.
      if (error.status === 401) { if (table.token) lost(null); else update(); return; }
      if (error.code !== "UNREACHABLE") showError(error);
      else connection("reconnecting");
      moves.enableAll();
    }
  });

  // The seat's token no longer holds the seat (`reason`: the stream's `event: revoked`, or null when
  // a request was refused): the page stops playing it, for good, says why in words and what can be
  // done, and goes on as a spectator.
  let following = null;
  async function lost(reason) {
    if (!table.token) return; // said already (the stream and a refused request may both tell)
    // This browser's seat token was replaced (a device link opened elsewhere), but the account
    // signed in here holds the seat: the page goes on playing it with the account's token.
    if (!table.claim.account && reason !== "seat_handed_to_bot" && await accountClaim()) {
      seats.forget(gameId);
      location.reload();
      return;
    }
    if (following) following.stop();
    table.former = table.claim.seat;
    seats.forget(gameId);
    table.claim = null;
    table.token = null;
    controls.hidden = true;
    parts.device.replaceChildren();
    noticeTurn(false, "", gameId);
    setTitle();
    if (reason === null) {
      try { table.summary = (await api(`/v1/games/${gameId}`)).data; } catch { /* the words below stay general */ }
      const seat = table.summary.seats.find((s) => s.seat === table.former);
      reason = seat && seat.kind === "bot" ? "seat_handed_to_bot" : "token_rotated";
    }
    table.formerLost = reason;
    sayLost(notice, reason);
    parts.seats.draw();
    update();
    following = followGame(); // on as a spectator
  }

  const followGame = () => follow(gameId, {
    token: table.token, after: table.version,
    onEvent: (item) => {
      const event = item && item.event;
      if (event && event.type === "seat_handed_to_bot") summaryStale = true; // who plays it changed
      // The seat's own stream ends before the events that hand it to a bot (`event: revoked`):
      // they reach this page on its spectator's stream, for the seat it played (`former`).
      seatToasts(event);
      update();
    },
    onEnd: () => update(),
    onResync: () => { showError(null); update(); },
    onLost: (reason) => lost(reason),
  });

  parts.seats.draw();
  watchTableRatings(gameId, table.summary, parts.seats.draw);
  await update();
  following = followGame();
  if (table.summary.status === "open") {
    // The stream carries events only once the game starts; until then, look for new players.
    const poll = setInterval(() => (table.summary.status === "open" ? update() : clearInterval(poll)), 2000);
  }
}

main().catch((error) => showError(describe(error) ? error : "The page could not start."));
