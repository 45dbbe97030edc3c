// The play table (/play/<id>, with this browser's seat token) and the spectator page (/watch/<id>).
import {
  account, accountApi, api, chip, connection, describe, follow, h, loadGame, pageData, prefs, seatName, seats, serialized, setApp,
  myGames, showError, toast,
} from "/web/static/app.js";
import { deviceLinkBox } from "/web/static/device.js";
import { tableNote, watchTableRatings } from "/web/static/rating-bits.js";
import { inviteBox, joinForm } from "/web/static/join.js";
import { goalBox, recentBox, sentence } from "/web/static/table-info.js";

const { game_id: gameId, mode } = pageData.data;
let claim = mode === "play" ? seats.get(gameId) : null;
let token = claim ? claim.token : null;
const baseTitle = document.title;

// -- your turn, noticed: the tab's title and icon, a sound, a notification -----------------------
function setIcon(turn) {
  let link = document.querySelector("link[rel=icon]");
  if (!link) { link = h("link", { rel: "icon", type: "image/svg+xml" }); document.head.append(link); }
  link.href = `/web/static/${turn ? "favicon-turn" : "favicon"}.svg`;
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  } catch { /* no audio on this device: the title and icon still say it */ }
}

function noticeTurn(turn, title) {
  document.title = turn ? `● Your turn · ${baseTitle}` : baseTitle;
  document.body.dataset.yourTurn = String(Boolean(turn));
  setIcon(turn);
  if (!turn) return;
  if (prefs.get("sound", false)) beep();
  if (prefs.get("notify", false) && document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification("Your turn", { body: title, tag: `turn-${gameId}` }); } catch { /* not allowed here */ }
  }
}

function noticeToggles() {
  const sound = h("input", { type: "checkbox", id: "pref-sound", checked: prefs.get("sound", false) });
  sound.addEventListener("change", () => { prefs.set("sound", sound.checked); if (sound.checked) beep(); });
  const notify = h("input", { type: "checkbox", id: "pref-notify", checked: prefs.get("notify", false) });
  notify.addEventListener("change", async () => {
    if (notify.checked && "Notification" in window && Notification.permission !== "granted") {
      const answer = await Notification.requestPermission();
      if (answer !== "granted") {
        notify.checked = false;
        toast("This browser does not allow notifications for this page.", { kind: "info" });
      }
    }
    prefs.set("notify", notify.checked);
  });
  return h("div", { class: "notice-prefs" },
    h("span", { class: "check" }, sound, h("label", { for: "pref-sound" }, "Sound on my turn")),
    h("span", { class: "check" }, notify, h("label", { for: "pref-notify" }, "Notify me when the tab is hidden")));
}

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

async function main() {
  if (mode === "play" && !claim) {
    claim = await accountClaim();
    token = claim ? claim.token : null;
  }
  let summary;
  try {
    summary = (await api(`/v1/games/${gameId}`)).data;
  } catch (error) {
    if (error.status === 404) { notFound(`There is no game ${gameId}.`); return; }
    throw error;
  }
  const { module: game, board } = await loadGame(summary.game);
  const ctx = { board, names: (seat) => seatName(summary, seat), interactive: false };
  const setTitle = () => {
    document.getElementById("title").textContent = mode === "play"
      ? `${summary.title}: ${claim ? `playing as ${seatName(summary, claim.seat)}` : "you hold no seat"}`
      : `${summary.title}: watching`;
  };
  setTitle();

  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const notice = h("p", { class: "seat-notice", hidden: true });
  const area = h("div", { class: "table" });
  const movesBox = h("div", { class: "moves", role: "group", "aria-label": "Legal moves", tabindex: "-1" });
  // What the decision depends on, beside it (a game's `decisionInfo`: Rio's stock of the seat), so
  // that on a phone the moves, this and the board fit one screen.
  const infoBox = h("div", { class: "decision-info", hidden: true });
  const controls = h("section", { class: "controls", "aria-labelledby": "moves-title" },
    h("h2", { id: "moves-title" }, "Your moves"), infoBox, movesBox);
  const logList = h("ol", { class: "log", "aria-label": "What happened, newest last", tabindex: "0" });
  const log = h("section", { class: "log-box", "aria-labelledby": "log-title" },
    h("h2", { id: "log-title" }, "Game log"), logList);
  const endBox = h("section", { class: "end-panel", "aria-labelledby": "end-title", hidden: true });
  const goal = goalBox(game);
  const recent = recentBox();
  const links = h("p", { class: "links" },
    mode === "play" ? [h("a", { href: `/watch/${gameId}` }, "Spectator page"), " · "] : null,
    h("a", { href: `/replay/${gameId}` }, "Replay"), " · ", h("a", { href: "/" }, "Lobby"));
  const device = h("div", { class: "device" });
  const seatsList = h("ul", { class: "players", "aria-label": "Players" });
  controls.hidden = !token;
  // An open game, seen by someone without a seat (its creator who only created it, whoever got its
  // link): a Join form and the link to send.
  const invite = h("section", { class: "invite-panel", "aria-labelledby": "invite-title", hidden: true },
    h("h2", { id: "invite-title" }, "Join this game"), joinForm({ id: gameId }), inviteBox(gameId));
  setApp(status, notice, invite, seatsList, endBox,
    h("div", { class: "play-grid" }, area, h("div", { class: "rail" }, goal.box, controls, recent.box, log)), device, links);
  if (mode === "play" && !token) {
    notice.hidden = false;
    notice.replaceChildren("This browser holds no seat of this game. Join from the ",
      h("a", { href: "/" }, "lobby"), ", open the device link the player sent you, sign in to the account that holds it, or ",
      h("a", { href: `/watch/${gameId}` }, "watch"), ".");
  }
  // A seat played through the account needs no device link: signing in on the other device is it.
  if (token) device.append(noticeToggles(), claim.account ? null : deviceLinkBox(gameId, () => token));
  game.mount(area, ctx);

  let version = 0;
  let movesVersion = -1;
  let redrawMoves = false;
  let annotated = 0;
  let finished = false;
  let wasMine = false;
  let lastView = null;
  let autoAnswered = -1;

  // A timed game: each awaited seat's time left, counted down here from the view's figures.
  let clock = null;
  let clockRead = 0;
  const timeLeft = (seat) => {
    const entry = clock && clock.seats.find((c) => c.seat === seat);
    if (!entry || entry.remaining_ms === null || finished) return "";
    const ms = Math.max(0, entry.remaining_ms - (Date.now() - clockRead)) + (entry.bank_ms || 0);
    const seconds = Math.floor(ms / 1000);
    return ` · ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")} left`;
  };
  let former = null; // the seat this page played until its token stopped holding it
  let formerLost = null; // why: "seat_handed_to_bot" or "token_rotated" (the summary may lag behind)
  const drawSeats = () => seatsList.replaceChildren(...summary.seats.map((s) => {
    const mine = claim && claim.seat === s.seat;
    const was = !mine && former === s.seat;
    return h("li", { dataset: { seat: String(s.seat) } }, chip(s.seat), s.name ? seatName(summary, s.seat) : `Player ${s.seat + 1} (free)`,
      s.kind === "bot" && !/bot/i.test(s.name || "") ? ` (${s.bot} bot)` : "",
      mine || was ? (s.kind === "bot" || (was && formerLost === "seat_handed_to_bot") ? " · was you, now a bot plays" : mine ? " · you" : " · was you here, now played elsewhere") : "",
      tableNote(s.seat),
      h("span", { class: "clock" }, timeLeft(s.seat)));
  }));
  setInterval(() => { if (clock && !finished) drawSeats(); }, 1000);

  let summaryStale = false;
  function seatEvents(item) {
    const event = item && item.event;
    if (event && event.type === "seat_handed_to_bot") summaryStale = true; // who plays it changed
    // The seat's own stream ends before the events that hand it to a bot (`event: revoked`): they
    // reach this page on its spectator's stream, for the seat it played (`former`).
    const played = claim ? claim.seat : former;
    if (!event || played === null || event.seat !== played) return;
    if (event.type === "seat_timed_out") {
      toast("Your time ran out: the game made a move for you.", { kind: "info", ms: 10000 });
    } else if (event.type === "seat_handed_to_bot" && claim) { // else lost() said it already
      toast("After repeated timeouts a bot now plays your seat.", { kind: "info", ms: 15000 });
    }
  }

  async function refresh() {
    if (summary.status === "open" || summaryStale || finished !== (summary.status === "finished")) {
      summaryStale = false;
      summary = (await api(`/v1/games/${gameId}`)).data;
      watchTableRatings(gameId, summary, drawSeats);
      drawSeats();
      invite.hidden = summary.status !== "open" || Boolean(token);
      if (summary.status === "open") {
        const free = summary.seats.filter((s) => !s.name).length;
        status.textContent = `Waiting for players: ${free} seat${free === 1 ? "" : "s"} free.`;
        return;
      }
    }
    const { data } = await api(`/v1/games/${gameId}/view`, { token });
    version = data.version;
    finished = data.status === "finished";
    clock = data.clock || null;
    clockRead = Date.now();
    lastView = data.view;
    const mine = Boolean(token && data.view && (data.view.awaiting || []).includes(claim.seat));
    ctx.interactive = Boolean(token && data.view && (data.view.legal_moves || []).length);
    drawSeats();
    game.render(data.view, ctx);
    goal.draw(data.view, ctx);
    status.textContent = game.status(data.view, ctx);
    const info = token && data.view && game.decisionInfo ? game.decisionInfo(data.view, ctx) : null;
    infoBox.replaceChildren(...(info ? [info] : []));
    infoBox.hidden = !info;
    const me = claim && summary.seats.find((s) => s.seat === claim.seat);
    if (me && me.kind === "bot") {
      notice.hidden = false;
      notice.textContent = "After repeated timeouts a bot plays your seat now.";
    }
    if (mine !== wasMine) noticeTurn(mine, status.textContent);
    wasMine = mine;
    // A seat nobody waits for may still have moves (a game's free commands, such as Rio de la
    // Plata's purchases and trade offers): they are offered too, under another heading.
    // An event that arrives after the view it led to (the stream lags the page's own reads) must
    // not redraw the same moves over a second question the player has open (Bishop, a Rio cell).
    const questionOpen = movesBox.querySelector("fieldset") !== null;
    // A decision with one answer the rules let the client give (a game's `autoAnswer`): given
    // once, by the page, and said instead of a turn.
    const only = mine && game.autoAnswer ? game.autoAnswer(data.view.legal_moves || []) : null;
    if (only) {
      movesBox.replaceChildren(h("p", { class: "muted" }, `${game.choices([only], ctx)[0].label}: your only choice, answered for you.`));
      if (autoAnswered !== data.version) {
        autoAnswered = data.version;
        setTimeout(() => submit(only, null, { automatic: true }), 0);
      }
    } else if (data.version !== movesVersion || redrawMoves || !questionOpen) {
      drawMoves(token && data.view ? data.view.legal_moves || [] : [], mine);
    }
    movesVersion = data.version;
    redrawMoves = false;
    if (finished) drawEnd(data.view);
    document.getElementById("app").dataset.version = String(data.version);
    await readLog();
  }

  async function readLog() {
    while (true) {
      const { data } = await api(`/v1/games/${gameId}/annotations?after=${annotated}&limit=500`, { token });
      for (const entry of data.annotations) {
        const text = sentence(entry.text, { summary, seat: claim ? claim.seat : null });
        logList.append(h("li", { value: entry.version }, text));
        recent.add(entry.version, text);
        annotated = entry.version;
      }
      if (data.next_after === null) break;
    }
    logList.scrollTop = logList.scrollHeight;
  }

  // Focus stays on the control the player used: a redraw gives it back to the button of the same
  // label (or the first one on a new turn).
  let pendingKey = null; // the control of the move being sent (disabled meanwhile, so maybe unfocused)
  function keepFocus(redraw) {
    const active = document.activeElement;
    const key = (active && movesBox.contains(active) ? active.dataset.key : null) || pendingKey;
    pendingKey = null;
    redraw();
    if (!key) return false;
    // The same control if it is still there, else the first move (never lost to the page).
    const again = [...movesBox.querySelectorAll("button")].find((b) => b.dataset.key === key)
      || movesBox.querySelector("button");
    if (again) again.focus({ preventScroll: true });
    return Boolean(again);
  }

  function drawMoves(moves, mine) {
    keepFocus(() => {
      if (!mine && !moves.length) {
        movesBox.replaceChildren(h("p", { class: "muted" }, finished ? "The game is over." : "Waiting for the others…"));
        return;
      }
      const button = (choice) => h("button", {
        type: "button",
        dataset: { key: choice.label },
        onclick: (event) => (choice.options ? ask(choice) : choose(choice, event.currentTarget)),
      }, choice.label);
      const all = game.choices(moves, ctx);
      // What can be clicked on the board is listed too, folded: the board is the first way.
      const direct = all.filter((choice) => !choice.onBoard);
      const folded = all.filter((choice) => choice.onBoard);
      const heading = mine
        ? h("p", { class: "your-turn" }, game.turnHint ? game.turnHint(lastView, ctx) : "Your turn.")
        : h("p", { class: "free-moves muted" }, "Waiting for the others… Meanwhile you may:");
      const list = folded.length
        ? h("details", { class: "move-list", open: movesBox.querySelector("details.move-list[open]") ? true : null },
          h("summary", {}, `The ${folded.length} board move${folded.length === 1 ? "" : "s"} as a list`), folded.map(button))
        : null;
      movesBox.replaceChildren(heading, ...direct.map(button), ...(list ? [list] : []));
    });
    // A new turn brings the keyboard to the moves, not onto one of them: Enter must never pass
    // (or make any move) by accident; Tab reaches the first move.
    if (mine && movesBox.querySelector("button") && !movesBox.contains(document.activeElement) && !document.activeElement.closest("svg, .board")) {
      movesBox.focus({ preventScroll: true });
    }
  }

  // A question with several answers (the Bishop's Pope, a Rio cell's buildings), asked in the moves
  // area; the board's clickable things ask through here too (ctx.choose).
  function ask(choice) {
    const options = choice.options.map((option) => h("button", {
      type: "button", dataset: { key: option.label }, onclick: (event) => choose(option, event.currentTarget),
    }, option.label, option.note ? h("small", { class: "note" }, ` ${option.note}`) : null));
    const back = h("button", { type: "button", class: "secondary", onclick: () => { redrawMoves = true; update(); } }, "Back");
    movesBox.replaceChildren(h("fieldset", {}, h("legend", {}, choice.prompt), ...options, back));
    options[0].focus({ preventScroll: true });
    if (matchMedia("(max-width: 900px)").matches) controls.scrollIntoView({ block: "nearest" });
  }

  // A move that costs the player something the rules take as a penalty is confirmed first.
  function choose(option, control) {
    if (!option.warning) { submit(option.move, control); return; }
    const yes = h("button", { type: "button", class: "danger", onclick: (event) => submit(option.move, event.currentTarget) }, "Do it anyway");
    const back = h("button", { type: "button", class: "secondary", onclick: () => { redrawMoves = true; update(); } }, "Back");
    movesBox.replaceChildren(h("fieldset", { class: "warning" }, h("legend", {}, option.label),
      h("p", { class: "warning-text", role: "alert" }, option.warning), yes, back));
    back.focus({ preventScroll: true });
  }

  ctx.choose = (choice, element) => {
    if (!ctx.interactive) return;
    // One answer is made at once, unless it is one to look at first (`confirm`: a building).
    if (choice.options && choice.options.length === 1 && !choice.options[0].confirm) choose(choice.options[0], element);
    else if (choice.options) ask(choice);
    else choose(choice, element);
  };

  // `automatic`: the page answered for the player; what happened before stays in "What just happened".
  async function submit(move, control, { automatic = false } = {}) {
    pendingKey = control && movesBox.contains(control) ? control.dataset.key : null;
    for (const button of controls.querySelectorAll("button")) button.disabled = true;
    let failed = null;
    try {
      await api(`/v1/games/${gameId}/moves`, {
        method: "POST",
        token,
        body: { command: move, expected_version: version },
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      showError(null);
      if (!automatic) recent.decided(version);
    } catch (error) {
      if (error.code !== "VERSION_CONFLICT") failed = error;
    }
    redrawMoves = true; // a refused move changed nothing: its disabled buttons must come back
    await update();
    // Whatever happened, no control stays disabled: the player may try again.
    for (const button of controls.querySelectorAll("button:disabled")) button.disabled = false;
    if (failed) showError(failed, movesBox.isConnected ? movesBox : control);
  }

  function drawEnd(view) {
    if (!endBox.hidden) return;
    endBox.hidden = false;
    const result = game.endPanel ? game.endPanel(view, ctx) : null;
    const rematch = h("button", { type: "button", onclick: (event) => makeRematch(event.currentTarget) }, "Rematch (seats rotated)");
    endBox.replaceChildren(h("h2", { id: "end-title" }, "Game over"), h("p", { class: "end-result" }, status.textContent),
      result ? h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Final result" }, result) : null, h("div", { class: "end-actions" }, token ? rematch : null, h("a", { class: "button", href: "/" }, "New game"),
        h("a", { class: "button", href: `/replay/${gameId}` }, "Watch the replay")));
  }

  // The same players and options in a new game, every seat moved one place on; the bots keep their
  // level, this player takes their new seat, the other people join from the lobby.
  async function makeRematch(button) {
    button.disabled = true;
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

  const update = serialized(async () => {
    try {
      await refresh();
    } catch (error) {
      // A read sent with the token just before the page stopped playing the seat: read again.
      if (error.status === 401) { if (token) lost(null); else update(); return; }
      if (error.code !== "UNREACHABLE") showError(error);
      else connection("reconnecting");
      for (const button of controls.querySelectorAll("button:disabled")) button.disabled = false;
    }
  });

  // The seat's token no longer holds the seat (`reason`: the stream's `event: revoked`, or null when
  // a request was refused): the page stops playing it, for good, says why in words and what can be
  // done, and goes on as a spectator.
  let following = null;
  async function lost(reason) {
    if (!token) return; // said already (the stream and a refused request may both tell)
    // This browser's seat token was replaced (a device link opened elsewhere), but the account
    // signed in here holds the seat: the page goes on playing it with the account's token.
    if (!claim.account && reason !== "seat_handed_to_bot" && await accountClaim()) {
      seats.forget(gameId);
      location.reload();
      return;
    }
    if (following) following.stop();
    former = claim.seat;
    seats.forget(gameId);
    claim = null;
    token = null;
    controls.hidden = true;
    device.replaceChildren();
    noticeTurn(false, "");
    setTitle();
    if (reason === null) {
      try { summary = (await api(`/v1/games/${gameId}`)).data; } catch { /* the words below stay general */ }
      const seat = summary.seats.find((s) => s.seat === former);
      reason = seat && seat.kind === "bot" ? "seat_handed_to_bot" : "token_rotated";
    }
    formerLost = reason;
    notice.hidden = false;
    notice.dataset.lost = reason;
    if (reason === "seat_handed_to_bot") {
      notice.replaceChildren(h("strong", {}, "A bot plays your seat now."),
        " After repeated timeouts the game handed it to a bot, and this browser's token no longer holds it: this page only watches. ",
        h("a", { href: "/" }, "Start or join another game"), ".");
    } else {
      notice.replaceChildren(h("strong", {}, "This seat's token was replaced."),
        " The seat is now played on another device or in another browser (a device link was opened there, or the seat was resumed through its account), so this page stopped playing it and only watches. ",
        "To play it here again, open \u201cContinue on another device\u201d on the device that plays it now and open its link here, or sign in here to the account that holds it.");
    }
    toast(reason === "seat_handed_to_bot" ? "A bot plays your seat now." : "This seat's token was replaced: it is played elsewhere now.",
      { kind: "info", ms: 10000 });
    drawSeats();
    update();
    following = followGame(); // on as a spectator
  }

  const followGame = () => follow(gameId, {
    token, after: version,
    onEvent: (item) => { seatEvents(item); update(); },
    onEnd: () => update(),
    onResync: () => { showError(null); update(); },
    onLost: (reason) => lost(reason),
  });

  drawSeats();
  watchTableRatings(gameId, summary, drawSeats);
  await update();
  following = followGame();
  if (summary.status === "open") {
    // The stream carries events only once the game starts; until then, look for new players.
    const poll = setInterval(() => (summary.status === "open" ? update() : clearInterval(poll)), 2000);
  }
}

main().catch((error) => showError(describe(error) ? error : "The page could not start."));
