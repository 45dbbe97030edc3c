// The replay viewer (/replay/<id>): a slider over versions, step buttons, arrow keys, autoplay at a
// chosen speed, a jump to the start of each chapter (battle, year), a clickable list of every move,
// the state at that version as the reader may see it, and each event's sentence; the computer
// analysis once the game is over (replay-analysis.js). `?event=N` opens the replay at event N.
import { api, h, loadGame, pageData, seatName, seats, serialized, setApp, showError, withNames } from "/web/static/app.js";
import { analysisPanel } from "/web/static/replay-analysis.js";
import { notKnown, seatControls } from "/web/static/seat-view.js";

const gameId = pageData.data.game_id;
const claim = seats.get(gameId); // a seat of a running game sees its own view; none once it is over
const token = claim ? claim.token : null;

async function main() {
  const summary = (await api(`/v1/games/${gameId}`)).data;
  const { module: game, board } = await loadGame(summary.game);
  const ctx = { board, names: (seat) => seatName(summary, seat) };
  const [battles, sentences] = await Promise.all([api(`/v1/games/${gameId}/battles`, { token }), readAnnotations()]);
  const last = battles.data.version;
  document.getElementById("title").textContent = `${summary.title}: replay of ${summary.seats.map((s) => seatName(summary, s.seat)).join(", ")}`;

  const slider = h("input", { id: "version", type: "range", min: 0, max: last, value: last, "aria-valuetext": "" });
  const label = h("output", { for: "version", class: "version" });
  const step = (delta) => () => go(Number(slider.value) + delta);
  const controls = h("div", { class: "replay-controls" },
    h("button", { type: "button", onclick: () => go(0), "aria-label": "First version" }, "Start"),
    h("button", { type: "button", onclick: step(-1), "aria-label": "Previous event" }, "◀"),
    h("label", { for: "version", class: "visually-hidden" }, "Version"), slider,
    h("button", { type: "button", onclick: step(1), "aria-label": "Next event" }, "▶"),
    h("button", { type: "button", onclick: () => go(last), "aria-label": "Last version" }, "End"), label);
  // A chapter's button goes to its first event (jumping to its end showed it already over).
  const chapterButtons = battles.data.chapters.map((chapter) => h("button", {
    type: "button",
    dataset: { end: String(chapter.end), start: String(chapter.start + 1) },
    title: chapter.title,
    onclick: () => go(chapter.start + 1),
  }, chapter.title));
  const speed = h("select", { id: "speed" }, [["1500", "slow"], ["700", "normal"], ["250", "fast"]].map(([ms, label]) =>
    h("option", { value: ms, selected: ms === "700" ? true : null }, label)));
  let playing = null;
  const play = h("button", { type: "button", class: "primary", onclick: () => toggle() }, "▶ Play");
  function toggle(stop = false) {
    if (playing || stop) {
      clearTimeout(playing);
      playing = null;
      play.textContent = "▶ Play";
      return;
    }
    if (Number(slider.value) >= last) go(0);
    play.textContent = "⏸ Pause";
    const tick = () => {
      if (Number(slider.value) >= last) { toggle(true); return; }
      go(Number(slider.value) + 1);
      playing = setTimeout(tick, Number(speed.value));
    };
    playing = setTimeout(tick, 0);
  }
  const moveList = h("ol", { class: "move-list-replay", "aria-label": "Every event; choose one to go there" },
    sentences.map((text, i) => h("li", { value: i + 1 }, h("button", { type: "button", class: "link", dataset: { version: String(i + 1) },
      onclick: () => { toggle(true); go(i + 1); } }, withNames(text || "", summary)))));
  const annotation = h("p", { class: "annotation", "aria-live": "polite" });
  const viewer = h("p", { class: "muted viewer" });
  const area = h("div", { class: "table" });
  const seeAs = summary.status === "finished" ? seatControls(summary, () => go(Number(slider.value))) : null;
  const analysis = analysisPanel({ gameId, summary, last, go: (version) => { toggle(true); go(version); }, moveList });
  setApp(
    h("section", { "aria-label": "Step through the game" }, controls,
      h("div", { class: "autoplay" }, play, h("label", { for: "speed" }, "Speed"), speed),
      h("p", { class: "muted keys-help" }, "Arrow keys step one event; Page Up/Down jump between chapters; Home/End go to the start/end."),
      annotation),
    analysis.element,
    h("section", { "aria-labelledby": "chapters-title" }, h("h2", { id: "chapters-title" }, "Jump to the start of"),
      h("div", { class: "chapters" }, chapterButtons)),
    seeAs ? seeAs.element : "", h("p", { class: "status", role: "status" }), h("div", { class: "replay-grid" }, area,
      h("section", { class: "log-box", "aria-labelledby": "moves-title" }, h("h2", { id: "moves-title" }, "Every move"),
        h("div", { class: "replay-moves", tabindex: "0", role: "region", "aria-label": "Every move" }, moveList))), viewer);
  game.mount(area, ctx);

  let target = last;
  const show = serialized(async () => {
    const version = target;
    const as = seeAs && seeAs.seat() !== null ? `&as=${seeAs.seat()}` : "";
    const { data } = await api(`/v1/games/${gameId}/replay?version=${version}${as}`, { token });
    game.render(data.state, ctx);
    if (seeAs) {
      const full = seeAs.marking() ? (await api(`/v1/games/${gameId}/replay?version=${version}`)).data.state : null;
      seeAs.show(full ? notKnown(full, data.state, { summary, cardName: game.cardName || String }) : []);
    }
    document.querySelector(".status").textContent = game.status(data.state, ctx);
    document.getElementById("app").dataset.version = String(data.version);
    const everything = data.finished && data.viewer === "full" ? " (the game is over: everything is public)" : "";
    viewer.textContent = `Shown ${viewerWords(data.viewer)}${everything}.`;
  });

  // Who the page shows the game as (the replay's `viewer`), in words.
  function viewerWords(viewer) {
    if (viewer === "full") return "whole: every card";
    if (viewer === "spectator") return "as a spectator saw it";
    const seat = /^seat (\d+)$/.exec(String(viewer));
    return seat ? `as ${seatName(summary, Number(seat[1]))} saw it (seat ${seat[1]})` : `as ${viewer}`;
  }

  function go(version) {
    target = Math.max(0, Math.min(last, version));
    slider.value = String(target);
    const text = target === 0 ? "Before the first event." : withNames(sentences[target - 1] || "", summary);
    annotation.textContent = target ? `${target}. ${text}` : text;
    analysis.at(target);
    label.textContent = target === 0 ? `The start, before event 1 of ${last}` : `Event ${target} of ${last}${target === last ? ", the last" : ""}`;
    slider.setAttribute("aria-valuetext", label.textContent);
    for (const button of chapterButtons) {
      const chapter = battles.data.chapters.find((c) => String(c.end) === button.dataset.end);
      button.setAttribute("aria-current", String(chapter.start < target && target <= chapter.end));
    }
    const current = moveList.querySelector("[aria-current]");
    if (current) current.removeAttribute("aria-current");
    const here = moveList.querySelector(`button[data-version="${target}"]`);
    if (here) {
      here.setAttribute("aria-current", "step");
      const box = moveList.parentElement;
      const top = here.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 30) box.scrollTop = top - box.clientHeight / 2;
    }
    show().catch(showError);
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target !== slider && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    const ends = battles.data.chapters.map((c) => c.start + 1);
    const current = Number(slider.value);
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowUp") next = current + 1;
    else if (event.key === "ArrowLeft" || event.key === "ArrowDown") next = current - 1;
    else if (event.key === "PageDown") next = ends.find((end) => end > current) ?? last;
    else if (event.key === "PageUp") next = [...ends].reverse().find((end) => end < current) ?? 0;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = last;
    if (next === null) return;
    event.preventDefault();
    go(next);
  });
  const asked = Number(new URLSearchParams(location.search).get("event"));
  go(Number.isInteger(asked) && asked > 0 ? asked : last);
  await analysis.ready;
}

async function readAnnotations() {
  const texts = [];
  let after = 0;
  while (true) {
    const { data } = await api(`/v1/games/${gameId}/annotations?after=${after}&limit=1000`, { token });
    for (const entry of data.annotations) texts[entry.version - 1] = entry.text;
    if (data.next_after === null) return texts;
    after = data.next_after;
  }
}

main().catch(showError);
