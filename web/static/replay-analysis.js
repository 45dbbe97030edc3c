// The computer analysis on the replay page (GET /v1/games/{id}/analysis, docs/analysis.md): a
// win-chance graph per seat over the game (every card known: the game is over), a mark on each
// inaccuracy, mistake and blunder (choose one to go there), "best was ..." for the move at the
// current event in the game's own words, and accuracy and luck per seat. Without a stored
// analysis a signed-in reader may request one and watch its progress. A running game has none:
// the server refuses (409) before anything is read, and this panel does not ask.
import { account, accountApi, api, h, seatName, sleep } from "/web/static/app.js";
import { clickable, svgEl } from "/web/static/dom.js";

// A phone gets a narrower drawing, so that its text and marks keep their size.
const narrow = () => window.matchMedia("(max-width: 600px)").matches;
const PAD = { left: 38, right: 10, top: 10, bottom: 22 };
const SIGN = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const WORD = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const pct = (value) => `${Math.round(value * 100)}%`;

export function analysisPanel({ gameId, summary, last, go, moveList }) {
  const body = h("div", { class: "analysis-body" });
  const note = h("p", { class: "analysis-note", "aria-live": "polite" });
  const element = h("section", { class: "analysis", "aria-labelledby": "analysis-title" },
    h("h2", { id: "analysis-title" }, "Computer analysis"), body, note);
  const name = (seat) => seatName(summary, seat);
  let byEvent = new Map();
  let cursor = null;
  let x = () => 0;
  let current = last;

  function graph(doc) {
    const seats = doc.seats.length;
    const [W, H] = narrow() ? [360, 200] : [640, 190];
    x = (version) => PAD.left + (version / Math.max(1, last)) * (W - PAD.left - PAD.right);
    const y = (chance) => PAD.top + (1 - chance) * (H - PAD.top - PAD.bottom);
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "win-chances", role: "group",
      "aria-label": "Each player's chance to win over the game, every card known; marks on inaccuracies, mistakes and blunders" });
    for (const level of [0, 0.5, 1]) {
      svg.append(svgEl("line", { x1: PAD.left, x2: W - PAD.right, y1: y(level), y2: y(level), class: "grid" }),
        svgEl("text", { x: PAD.left - 6, y: y(level) + 4, "text-anchor": "end", class: "axis" }, pct(level)));
    }
    svg.append(svgEl("text", { x: W - PAD.right, y: H - 5, "text-anchor": "end", class: "axis" }, `event ${last}`),
      svgEl("text", { x: PAD.left, y: H - 5, class: "axis" }, "start"));
    for (let seat = 0; seat < seats; seat++) {
      const points = doc.decisions.map((row) => [x(row.version), y(row.chances[seat])]);
      points.push([x(last), y(doc.seats[seat].result)]);
      svg.append(svgEl("polyline", { points: points.map((p) => p.join(",")).join(" "), class: "chance", style: `stroke: var(--seat-${seat % 6})` }));
    }
    for (const row of doc.decisions.filter((r) => r.judgement)) {
      const mark = svgEl("circle", { cx: x(row.version), cy: y(row.chances[row.seat]), r: row.judgement === "blunder" ? 7 : 5.5,
        class: `mark ${row.judgement}`, style: `stroke: var(--seat-${row.seat % 6})`, "data-event": String(row.version + 1) });
      const label = `Event ${row.version + 1}: ${name(row.seat)}'s ${row.judgement}: ${row.played_text}; best was ${row.best_text}`;
      mark.append(svgEl("title", {}, label));
      clickable(mark, label, () => go(row.version + 1), { pointer: false }); // the graph's handler below
      svg.append(mark);
    }
    // Marks of moves a few events apart overlap (on a phone a long game puts several in a
    // finger's width), and the one drawn last would take every click. A click goes to the mark
    // nearest the pointer instead, so each stays reachable where it is drawn; keys reach each
    // mark through its own focus.
    svg.addEventListener("click", (event) => {
      const matrix = svg.getScreenCTM();
      if (!matrix) return;
      const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
      let nearest = null;
      let best = Infinity;
      for (const mark of svg.querySelectorAll("circle.mark")) {
        const d = Math.hypot(Number(mark.getAttribute("cx")) - at.x, Number(mark.getAttribute("cy")) - at.y);
        if (d < best) [nearest, best] = [mark, d];
      }
      if (nearest && best <= Number(nearest.getAttribute("r")) + 6) {
        event.preventDefault();
        go(Number(nearest.dataset.event));
      }
    });
    cursor = svgEl("line", { y1: PAD.top, y2: H - PAD.bottom, class: "cursor" });
    svg.append(cursor);
    return svg;
  }

  function seatTable(doc) {
    return h("table", { class: "analysis-seats" },
      h("thead", {}, h("tr", {}, (narrow()
        ? ["Player", "Accuracy", h("abbr", { title: "Inaccuracies" }, "?!"), h("abbr", { title: "Mistakes" }, "?"),
          h("abbr", { title: "Blunders" }, "??"), "Luck", "Decisions"]
        : ["Player", "Accuracy", "Inaccuracies", "Mistakes", "Blunders", "Luck", "Decisions"]).map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, doc.seats.map((s) => h("tr", { dataset: { seat: String(s.seat) } },
        h("th", { scope: "row" }, h("span", { class: "chip", style: `background: var(--seat-${s.seat % 6})` }), name(s.seat)),
        h("td", {}, s.accuracy === null ? "–" : s.accuracy.toFixed(1)), h("td", {}, String(s.inaccuracy)),
        h("td", {}, String(s.mistake)), h("td", {}, String(s.blunder)),
        h("td", { title: "How much draws and dice moved this player's chance" }, signed(s.luck)),
        h("td", { title: "How much this player's own decisions moved its chance" }, signed(s.decisions_moved))))));
  }

  function markMoves(doc) {
    for (const row of doc.decisions) {
      const button = moveList.querySelector(`button[data-version="${row.version + 1}"]`);
      if (!button || !row.judgement) continue;
      button.classList.add("judged", row.judgement);
      button.append(h("span", { class: `judgement ${row.judgement}`, title: `${WORD[row.judgement]}: best was ${row.best_text}` }, ` ${SIGN[row.judgement]}`));
    }
  }

  function show(doc) {
    byEvent = new Map(doc.decisions.map((row) => [row.version + 1, row]));
    const legend = h("p", { class: "legend muted" }, doc.seats.map((s) =>
      h("span", {}, h("span", { class: "chip", style: `background: var(--seat-${s.seat % 6})` }), `${name(s.seat)} `)),
    "· marks: ", h("span", { class: "mark-key inaccuracy" }, "inaccuracy"), " ", h("span", { class: "mark-key mistake" }, "mistake"),
    " ", h("span", { class: "mark-key blunder" }, "blunder"));
    body.replaceChildren(h("div", { class: "graph-box" }, graph(doc)), legend, seatTable(doc),
      h("p", { class: "muted small" }, "Chances with every card known; judgements from what the player could see when deciding. ",
        "Luck: how much draws and dice moved a player's chance; decisions: how much its own moves did."));
    markMoves(doc);
    element.dataset.state = "shown";
    at(current);
  }

  async function follow(job) {
    const bar = h("progress", { max: 1, value: 0, "aria-label": "Analysis progress" });
    const words = h("span", {}, "Queued…");
    body.replaceChildren(h("p", { class: "analysis-progress" }, words, " ", bar));
    element.dataset.state = "running";
    for (;;) {
      const { data } = await api(`/v1/jobs/${encodeURIComponent(job.id)}`);
      if (data.status === "finished") return load();
      if (data.status === "failed") { body.replaceChildren(h("p", { class: "inline-error" }, "The analysis failed; try again later.")); return null; }
      bar.value = data.progress || 0;
      words.textContent = data.status === "started" ? `Analysing… ${pct(data.progress || 0)}` : "Queued behind other analyses…";
      await sleep(1000);
    }
  }

  function offer() {
    element.dataset.state = "none";
    if (!account.get()) {
      body.replaceChildren(h("p", { class: "muted" }, "Not analysed yet. ", h("a", { href: "/sign-in" }, "Sign in"), " to request a computer analysis."));
      return;
    }
    const button = h("button", { type: "button", class: "primary", onclick: async () => {
      button.disabled = true;
      try {
        const answer = await accountApi(`/v1/games/${encodeURIComponent(gameId)}/analysis`, { method: "POST" });
        if (answer.status === 200) show(answer.data);
        else await follow(answer.data);
      } catch (error) {
        button.disabled = false;
        body.append(h("p", { class: "inline-error", role: "alert" }, error.message));
      }
    } }, "Request analysis");
    body.replaceChildren(h("p", {}, "Not analysed yet. ", button));
  }

  async function load() {
    if (summary.status !== "finished") {
      element.dataset.state = "running-game";
      body.replaceChildren(h("p", { class: "muted" }, "A game is analysed once it is over."));
      return null;
    }
    try {
      show((await api(`/v1/games/${encodeURIComponent(gameId)}/analysis`)).data);
    } catch (error) {
      if (error.status === 404 && error.code === "ANALYSIS_NOT_FOUND") offer();
      else if (error.code === "NOT_ANALYSABLE") { element.hidden = true; }
      else body.replaceChildren(h("p", { class: "inline-error" }, error.message));
    }
    return null;
  }

  // The move that made event `version`, if analysed: its judgement and the best move found.
  function at(version) {
    current = version;
    if (cursor) { cursor.setAttribute("x1", x(version)); cursor.setAttribute("x2", x(version)); }
    const row = byEvent.get(version);
    if (!row) { note.textContent = byEvent.size ? "No analysed decision made this event." : ""; note.className = "analysis-note"; return; }
    const verdict = row.judgement ? `${WORD[row.judgement]} (−${pct(row.loss)}). ` : "";
    const best = row.best_text === row.played_text ? "It was the best move found." : `Best was ${row.best_text} (${pct(row.best)}).`;
    note.className = `analysis-note ${row.judgement || "good"}`;
    note.textContent = `${name(row.seat)} played ${row.played_text}: ${verdict}Chance to win ${pct(row.before)} before, ${pct(row.after)} after. ${best}`;
  }

  return { element, at, ready: load() };
}

function signed(value) {
  const rounded = Math.round(value * 100);
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded)}%`;
}
