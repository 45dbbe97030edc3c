// The play table (/play/<id>, with this tab's seat token) and the spectator page (/watch/<id>).
import { api, chip, follow, h, loadGame, pageData, seatName, seats, serialized, setApp, showError, withNames } from "/web/static/app.js";

const { game_id: gameId, mode } = pageData.data;
const claim = mode === "play" ? seats.get(gameId) : null;
const token = claim ? claim.token : null;

async function main() {
  let summary = (await api(`/v1/games/${gameId}`)).data;
  const { module: game, board } = await loadGame(summary.game);
  const ctx = { board, names: (seat) => seatName(summary, seat) };
  document.getElementById("title").textContent = mode === "play"
    ? `${summary.title}: playing as ${claim ? seatName(summary, claim.seat) : "nobody"}`
    : `${summary.title}: watching`;

  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const area = h("div", { class: "table" });
  const controls = h("section", { class: "controls", "aria-labelledby": "moves-title" },
    h("h2", { id: "moves-title" }, "Your moves"), h("div", { class: "moves", role: "group", "aria-label": "Legal moves" }));
  const logList = h("ol", { class: "log", "aria-label": "What happened, newest last" });
  const log = h("section", { class: "log-box", "aria-labelledby": "log-title" },
    h("h2", { id: "log-title" }, "Game log"), logList);
  const links = h("p", { class: "links" },
    mode === "play" ? [h("a", { href: `/watch/${gameId}` }, "Spectator page"), " · "] : null,
    h("a", { href: `/replay/${gameId}` }, "Replay"));
  const seatsList = h("ul", { class: "players", "aria-label": "Players" });
  controls.hidden = !token;
  setApp(status, seatsList, h("div", { class: "play-grid" }, area, h("div", { class: "rail" }, controls, log)), links);
  if (mode === "play" && !token) {
    showError("This tab holds no seat of this game (seat tokens stay in the tab that joined). Join from the lobby, or watch.");
  }
  game.mount(area, ctx);

  let version = 0;
  let movesVersion = -1;
  let redrawMoves = false;
  let annotated = 0;
  let finished = false;

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
  const drawSeats = () => seatsList.replaceChildren(...summary.seats.map((s) =>
    h("li", { dataset: { seat: String(s.seat) } }, chip(s.seat), s.name ? seatName(summary, s.seat) : `Seat ${s.seat} (free)`,
      s.kind === "bot" && !/bot/i.test(s.name || "") ? ` (${s.bot} bot)` : "", claim && claim.seat === s.seat ? " · you" : "",
      h("span", { class: "clock" }, timeLeft(s.seat)))));
  setInterval(() => { if (clock && !finished) drawSeats(); }, 1000);

  async function refresh() {
    if (summary.status === "open") {
      summary = (await api(`/v1/games/${gameId}`)).data;
      drawSeats();
      if (summary.status === "open") {
        status.textContent = `Waiting for players: ${summary.seats.filter((s) => !s.name).length} seat(s) free.`;
        return;
      }
    }
    const { data } = await api(`/v1/games/${gameId}/view`, { token });
    version = data.version;
    finished = data.status === "finished";
    clock = data.clock || null;
    clockRead = Date.now();
    drawSeats();
    game.render(data.view, ctx);
    status.textContent = game.status(data.view, ctx);
    const mine = token && data.view && (data.view.awaiting || []).includes(claim.seat);
    // A seat nobody waits for may still have moves (a game's free commands, such as Rio de la
    // Plata's purchases and trade offers): they are offered too, under another heading.
    // An event that arrives after the view it led to (the stream lags the page's own reads) must
    // not redraw the same moves over a second question the player has open (Bishop, a Rio cell).
    const questionOpen = controls.querySelector(".moves fieldset") !== null;
    if (data.version !== movesVersion || redrawMoves || !questionOpen) {
      drawMoves(token && data.view ? data.view.legal_moves || [] : [], mine);
    }
    movesVersion = data.version;
    redrawMoves = false;
    await readLog();
  }

  async function readLog() {
    while (true) {
      const { data } = await api(`/v1/games/${gameId}/annotations?after=${annotated}&limit=500`, { token });
      for (const entry of data.annotations) {
        logList.append(h("li", { value: entry.version }, withNames(entry.text, summary)));
        annotated = entry.version;
      }
      if (data.next_after === null) break;
    }
    logList.scrollTop = logList.scrollHeight;
  }

  function drawMoves(moves, mine) {
    const box = controls.querySelector(".moves");
    if (!mine && !moves.length) {
      box.replaceChildren(h("p", { class: "muted" }, finished ? "The game is over." : "Waiting for the others…"));
      return;
    }
    const buttons = game.choices(moves).map((choice) => h("button", {
      type: "button",
      onclick: () => (choice.options ? ask(choice) : submit(choice.move)),
    }, choice.label));
    const heading = mine
      ? h("p", { class: "your-turn" }, "Your turn.")
      : h("p", { class: "free-moves muted" }, "Waiting for the others… Meanwhile you may:");
    box.replaceChildren(heading, ...buttons);
    if (mine && buttons.length) buttons[0].focus({ preventScroll: true });
  }

  function ask(choice) {
    const box = controls.querySelector(".moves");
    const options = choice.options.map((option) => h("button", { type: "button", onclick: () => submit(option.move) }, option.label));
    const back = h("button", { type: "button", class: "secondary", onclick: () => { redrawMoves = true; update(); } }, "Back");
    box.replaceChildren(h("fieldset", {}, h("legend", {}, choice.prompt), ...options, back));
    options[0].focus();
  }

  async function submit(move) {
    for (const button of controls.querySelectorAll("button")) button.disabled = true;
    try {
      await api(`/v1/games/${gameId}/moves`, {
        method: "POST",
        token,
        body: { command: move, expected_version: version },
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      showError(null);
    } catch (error) {
      if (error.code !== "VERSION_CONFLICT") showError(error);
    }
    redrawMoves = true; // a refused move changed nothing: its disabled buttons must come back
    await update();
  }

  const update = serialized(async () => {
    try { await refresh(); } catch (error) { showError(error); }
  });
  drawSeats();
  await update();
  follow(gameId, { token, after: version, onEvent: () => update(), onEnd: () => update() });
  if (summary.status === "open") {
    // The stream carries events only once the game starts; until then, look for new players.
    const poll = setInterval(() => (summary.status === "open" ? update() : clearInterval(poll)), 2000);
  }
}

main().catch(showError);
