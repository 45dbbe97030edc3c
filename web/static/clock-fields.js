// The API's time control (any game), as a form's fields: the lobby's create form and the
// tournament form give a clock the same way. No move time means an untimed game.
import { h } from "/web/static/app.js";

export const CLOCK_FIELDS = [
  { key: "move_seconds", label: "Seconds per decision (empty: untimed)", type: "number", min: 1 },
  { key: "bank_seconds", label: "Reserve per seat, seconds", type: "number", min: 0 },
  { key: "increment_seconds", label: "Added to the reserve per move, seconds", type: "number", min: 0 },
  { key: "timeouts_to_bot", label: "Timeouts before a bot takes the seat", type: "number", min: 1, max: 1000 },
];

// A fieldset of the clock's fields, their ids `${idPrefix}-<key>`.
export function clockFieldset(idPrefix, legend = "Time control") {
  return h("fieldset", { class: "clock" }, h("legend", {}, legend),
    CLOCK_FIELDS.map((spec) => {
      const id = `${idPrefix}-${spec.key.replace(/\W/g, "-")}`;
      return h("div", { class: "field" }, h("label", { for: id }, spec.label),
        h("input", { id, name: spec.key, type: "number", min: spec.min, max: spec.max, inputmode: "numeric" }));
    }));
}

// The clock a fieldset holds (only the fields filled in), or null when none is.
export function readClock(box) {
  const clock = {};
  for (const spec of CLOCK_FIELDS) {
    const value = box.querySelector(`[name="${spec.key}"]`).value;
    if (value !== "") clock[spec.key] = Number(value);
  }
  return Object.keys(clock).length ? clock : null;
}
