// The table's players: each seat's name, who "you" are (or were), its rating note and, in a timed
// game, its time left, counted down here from the view's figures.
import { chip, h, seatName } from "/web/static/app.js";
import { tableNote } from "/web/static/rating-bits.js";

// `table`: the page's state (web/static/play.js: summary, claim, former, formerLost, clock, ...).
export function seatsList(table) {
  const el = h("ul", { class: "players", "aria-label": "Players" });

  const timeLeft = (seat) => {
    const entry = table.clock && table.clock.seats.find((c) => c.seat === seat);
    if (!entry || entry.remaining_ms === null || table.finished) return "";
    const ms = Math.max(0, entry.remaining_ms - (Date.now() - table.clockRead)) + (entry.bank_ms || 0);
    const seconds = Math.floor(ms / 1000);
    return ` · ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")} left`;
  };

  function youNote(s) {
    const mine = table.claim && table.claim.seat === s.seat;
    const was = !mine && table.former === s.seat;
    if (!mine && !was) return "";
    if (s.kind === "bot" || (was && table.formerLost === "seat_handed_to_bot")) return " · was you, now a bot plays";
    return mine ? " · you" : " · was you here, now played elsewhere";
  }

  function draw() {
    const { summary } = table;
    el.replaceChildren(...summary.seats.map((s) => h("li", { dataset: { seat: String(s.seat) } }, chip(s.seat),
      s.name ? seatName(summary, s.seat) : `Player ${s.seat + 1} (free)`,
      s.kind === "bot" && !/bot/i.test(s.name || "") ? ` (${s.bot} bot)` : "",
      youNote(s), tableNote(s.seat), h("span", { class: "clock" }, timeLeft(s.seat)))));
  }

  setInterval(() => { if (table.clock && !table.finished) draw(); }, 1000);
  return { el, draw };
}
