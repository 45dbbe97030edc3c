// The replay viewer (/replay/<id>): a slider over versions, step buttons, arrow keys, a jump to each
// chapter (battle), the state at that version as the reader may see it, and each event's sentence.
import { api, h, loadGame, pageData, seatName, seats, serialized, setApp, showError, withNames } from "/web/static/app.js";
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
  document.getElementById("title").textContent = `${summary.title}: replay of ${summary.seats.map((s) => s.name).join(", ")}`;

  const slider = h("input", { id: "version", type: "range", min: 0, max: last, value: last, "aria-valuetext": "" });
  const label = h("output", { for: "version", class: "version" });
  const step = (delta) => () => go(Number(slider.value) + delta);
  const controls = h("div", { class: "replay-controls" },
    h("button", { type: "button", onclick: () => go(0), "aria-label": "First version" }, "Start"),
    h("button", { type: "button", onclick: step(-1), "aria-label": "Previous event" }, "◀"),
    h("label", { for: "version", class: "visually-hidden" }, "Version"), slider,
    h("button", { type: "button", onclick: step(1), "aria-label": "Next event" }, "▶"),
    h("button", { type: "button", onclick: () => go(last), "aria-label": "Last version" }, "End"), label);
  const chapterButtons = battles.data.chapters.map((chapter) => h("button", {
    type: "button",
    dataset: { end: String(chapter.end) },
    title: chapter.title,
    onclick: () => go(chapter.end),
  }, chapter.title));
  const annotation = h("p", { class: "annotation", "aria-live": "polite" });
  const viewer = h("p", { class: "muted viewer" });
  const area = h("div", { class: "table" });
  const seeAs = summary.status === "finished" ? seatControls(summary, () => go(Number(slider.value))) : null;
  setApp(
    h("section", { "aria-label": "Step through the game" }, controls,
      h("p", { class: "muted" }, "Arrow keys step one event; Page Up/Down jump between battles; Home/End go to the start/end."),
      annotation),
    h("section", { "aria-labelledby": "chapters-title" }, h("h2", { id: "chapters-title" }, "Jump to a battle"),
      h("div", { class: "chapters" }, chapterButtons)),
    seeAs && seeAs.element, h("p", { class: "status", role: "status" }), area, viewer);
  game.mount(area, ctx);

  let target = last;
  const show = serialized(async () => {
    const version = target;
    const as = seeAs && seeAs.seat() !== null ? `&as=${seeAs.seat()}` : "";
    const { data } = await api(`/v1/games/${gameId}/replay?version=${version}${as}`, { token });
    game.render(data.state, ctx);
    if (seeAs) {
      const full = seeAs.marking() ? (await api(`/v1/games/${gameId}/replay?version=${version}`)).data.state : null;
      seeAs.show(full ? notKnown(full, data.state) : []);
    }
    document.querySelector(".status").textContent = game.status(data.state, ctx);
    document.getElementById("app").dataset.version = String(data.version);
    const everything = data.finished && data.viewer === "full" ? " (the game is over: everything is public)" : "";
    viewer.textContent = `Shown as: ${data.viewer}${everything}.`;
  });

  function go(version) {
    target = Math.max(0, Math.min(last, version));
    slider.value = String(target);
    const text = target === 0 ? "Before the first event." : withNames(sentences[target - 1] || "", summary);
    annotation.textContent = target ? `${target}. ${text}` : text;
    label.textContent = `Version ${target} of ${last}`;
    slider.setAttribute("aria-valuetext", label.textContent);
    for (const button of chapterButtons) {
      const chapter = battles.data.chapters.find((c) => String(c.end) === button.dataset.end);
      button.setAttribute("aria-current", String(chapter.start < target && target <= chapter.end));
    }
    show().catch(showError);
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target !== slider && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    const ends = battles.data.chapters.map((c) => c.end);
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
  go(last);
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
