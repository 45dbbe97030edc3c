// The table's input: the seat's legal moves as controls (buttons, and the board's clickable things
// through ctx.choose), the question a choice with several answers asks, the confirmation of a move
// that costs a penalty, a decision with one answer given by the page, and sending a move.
import { api, h, showError } from "/web/static/app.js";

// The folded list's summary, counting moves, not controls: one control may ask which of 290 edges.
function foldedWords(folded) {
  const n = folded.reduce((sum, choice) => sum + (choice.options ? choice.options.length : 1), 0);
  return n === 1 ? "The board's one move, as a button" : `The ${n} board moves as a list`;
}

// `table`: the page's state (web/static/play.js: gameId, token, version, finished, lastView);
// `update()` reads the game again; `onDecided(version)`: the player made a decision at `version`.
export function movesInput({ table, game, ctx, controls, movesBox, update, onDecided }) {
  let movesVersion = -1;
  let redraw = false; // the moves must be drawn again even at the same version (a Back, a refusal)
  let pendingKey = null; // the control of the move being sent (disabled meanwhile, so maybe unfocused)
  let autoAnswered = -1;
  const drawAgain = () => { ctx.question = null; redraw = true; update(); };
  // The moves last drawn: a game redraws them with no new read (ctx.redrawMoves) when a choice made
  // on its board changes what the buttons say (Condottiere's cards to keep).
  let lastDrawn = null;
  ctx.redrawMoves = () => { if (lastDrawn && !movesBox.querySelector("fieldset")) drawMoves(...lastDrawn, { onBoard: true }); };

  // Focus stays on the control the player used: a redraw gives it back to the button of the same
  // label (or the first one on a new turn).
  function keepFocus(draw) {
    const active = document.activeElement;
    const key = (active && movesBox.contains(active) ? active.dataset.key : null) || pendingKey;
    pendingKey = null;
    draw();
    if (!key) return false;
    // The same control if it is still there, else the first move (never lost to the page); after
    // an undo, the moves' box itself: the first move may end the turn, and Enter must not.
    const same = [...movesBox.querySelectorAll("button")].find((b) => b.dataset.key === key);
    if (!same && key.startsWith("undo:")) {
      movesBox.focus({ preventScroll: true });
      return true;
    }
    const again = same || movesBox.querySelector("button");
    if (again) again.focus({ preventScroll: true });
    return Boolean(again);
  }

  // `onBoard`: drawn again for a click on the board, where the keyboard stays.
  function drawMoves(moves, mine, { onBoard = false } = {}) {
    ctx.question = null;
    lastDrawn = [moves, mine];
    keepFocus(() => {
      if (!mine && !moves.length) {
        movesBox.replaceChildren(h("p", { class: "muted" }, table.finished ? "The game is over." : "Waiting for the others…"));
        return;
      }
      const button = (choice) => h("button", {
        type: "button",
        // Taking a decision back (a game's `undo` choice) looks apart from the moves forward.
        class: choice.undo ? "undo secondary" : null,
        // A choice with no move yet (`disabled`: the board has still to be clicked) does nothing.
        // It is aria-disabled, not disabled: a disabled button means a move being sent.
        "aria-disabled": choice.disabled ? "true" : null,
        dataset: { key: choice.undo ? `undo:${choice.label}` : choice.label },
        onclick: (event) => (choice.disabled ? null : choice.options ? ask(choice) : choose(choice, event.currentTarget)),
      }, choice.label);
      const all = game.choices(moves, ctx);
      // What can be clicked on the board is listed too, folded: the board is the first way.
      const direct = all.filter((choice) => !choice.onBoard);
      const folded = all.filter((choice) => choice.onBoard);
      const heading = mine
        ? h("p", { class: "your-turn" }, game.turnHint ? game.turnHint(table.lastView, ctx) : "Your turn.")
        : h("p", { class: "free-moves muted" }, "Waiting for the others… Meanwhile you may:");
      const list = folded.length
        ? h("details", { class: "move-list", open: movesBox.querySelector("details.move-list[open]") ? true : null },
          h("summary", {}, foldedWords(folded)), folded.map(button))
        : null;
      movesBox.replaceChildren(heading, ...direct.map(button), ...(list ? [list] : []));
    });
    // A new turn brings the keyboard to the moves, not onto one of them: Enter must never pass
    // (or make any move) by accident; Tab reaches the first move.
    if (mine && !onBoard && movesBox.querySelector("button") && !movesBox.contains(document.activeElement) && !document.activeElement.closest("svg, .board")) {
      movesBox.focus({ preventScroll: true });
    }
  }

  // A question with several answers (the Bishop's Pope, a Rio cell's buildings), asked in the moves
  // area; the board's clickable things ask through here too (ctx.choose).
  function ask(choice) {
    const options = choice.options.map((option) => h("button", {
      type: "button", dataset: { key: option.label }, onclick: (event) => choose(option, event.currentTarget),
    }, option.label, option.note ? h("small", { class: "note" }, ` ${option.note}`) : null));
    const back = h("button", { type: "button", class: "secondary", onclick: drawAgain }, "Back");
    movesBox.replaceChildren(h("fieldset", { class: options.length > 6 ? "many" : null }, h("legend", {}, choice.prompt), ...options, back));
    // The question stays open over redraws of the board (a late event): the game binds it again.
    ctx.question = { choice, answer: (option, el) => choose(option, el) };
    if (game.onQuestion) game.onQuestion(choice, ctx, ctx.question.answer);
    options[0].focus({ preventScroll: true });
    if (matchMedia("(max-width: 900px)").matches) controls.scrollIntoView({ block: "nearest" });
  }

  // A move that costs the player something the rules take as a penalty is confirmed first.
  // An option may be several moves the rules let a player make one after the other with nothing
  // between (`moves`: Rio's collections), sent in one click.
  function choose(option, control) {
    const moves = option.moves || [option.move];
    if (!option.warning) { submit(moves, control); return; }
    const yes = h("button", { type: "button", class: "danger", onclick: (event) => submit(moves, event.currentTarget) }, "Do it anyway");
    const back = h("button", { type: "button", class: "secondary", onclick: drawAgain }, "Back");
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

  // `moves`: sent one after the other, each at the version the last one left (a refusal stops
  // the rest); `automatic`: the page answered for the player (no decision of theirs).
  async function submit(moves, control, { automatic = false } = {}) {
    ctx.question = null; // answered: the board goes back to the moves
    pendingKey = control && movesBox.contains(control) ? control.dataset.key : null;
    for (const button of controls.querySelectorAll("button")) button.disabled = true;
    let failed = null;
    const at = table.version;
    try {
      let version = at;
      for (const move of moves) {
        const { data } = await api(`/v1/games/${table.gameId}/moves`, {
          method: "POST",
          token: table.token,
          body: { command: move, expected_version: version },
          headers: { "Idempotency-Key": crypto.randomUUID() },
        });
        version = data.version;
      }
      showError(null);
      if (!automatic) onDecided(at);
    } catch (error) {
      if (error.code !== "VERSION_CONFLICT") failed = error;
    }
    redraw = true; // a refused move changed nothing: its disabled buttons must come back
    await update();
    // Whatever happened, no control stays disabled: the player may try again.
    enableAll();
    if (failed) showError(failed, movesBox.isConnected ? movesBox : control);
  }

  function enableAll() {
    for (const button of controls.querySelectorAll("button:disabled")) button.disabled = false;
  }

  // The moves of a view just read (`data`: the API's view answer; `mine`: the seat is awaited).
  function show(data, mine) {
    const view = data.view;
    // A seat nobody waits for may still have moves (a game's free commands, such as Rio de la
    // Plata's purchases and trade offers): they are offered too, under another heading.
    // An event that arrives after the view it led to (the stream lags the page's own reads) must
    // not redraw the same moves over a second question the player has open (Bishop, a Rio cell).
    const questionOpen = movesBox.querySelector("fieldset") !== null;
    // A decision with one answer the rules let the client give (a game's `autoAnswer`): given
    // once, by the page, and said instead of a turn.
    const only = mine && game.autoAnswer ? game.autoAnswer(view.legal_moves || []) : null;
    if (only) {
      ctx.question = null;
      movesBox.replaceChildren(h("p", { class: "muted" }, `${game.choices([only], ctx)[0].label}: your only choice, answered for you.`));
      if (autoAnswered !== data.version) {
        autoAnswered = data.version;
        setTimeout(() => submit([only], null, { automatic: true }), 0);
      }
    } else if (data.version !== movesVersion || redraw || !questionOpen) {
      drawMoves(table.token && view ? view.legal_moves || [] : [], mine);
    }
    movesVersion = data.version;
    redraw = false;
  }

  return { show, enableAll };
}
