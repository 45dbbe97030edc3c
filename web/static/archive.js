// The archive (/archive): every filter of GET /v1/archive, newest first, cursor pagination.
import { api, h, pageData, seatName, setApp, showError, when } from "/web/static/app.js";
import { gameTitle, words } from "/web/static/dom.js";

// Every game's outcome codes in words (the games name them: games.base.OutcomeHooks), one list.
const OUTCOMES = new Map(pageData.games.flatMap((g) => Object.entries(g.outcomes || {})));

// Rulesets and options in the games' own words: the create form's fields of each game's module
// (`configFields`: a "ruleset" select, "options.<code>" fields), the filters still sending codes.
const fieldsOf = await Promise.all(pageData.games.map((g) =>
  import(`/web/games/${encodeURIComponent(g.name)}/renderer.js`).then((m) => [g, m.configFields || []], () => [g, []])));
const several = (list) => new Set(list.map(([, , game]) => game)).size > 1;
const RULESETS = fieldsOf.flatMap(([g, fields]) => fields.filter((f) => f.key === "ruleset")
  .flatMap((f) => (f.options || []).map(([code, label]) => [code, label, g.title])));
const OPTIONS = fieldsOf.flatMap(([g, fields]) => fields.filter((f) => f.key.startsWith("options."))
  .map((f) => [f.key.slice(8), f.label.replace(/:.*$/, ""), g.title])); // "Points match: target": "Points match"
const named = (list) => list.map(([code, label, game]) => [code, several(list) ? `${label} (${game})` : label]);
const RULESET_WORDS = new Map(named(RULESETS));
const OPTION_WORDS = new Map(named(OPTIONS));

const FILTERS = [
  { key: "player", label: "Players (comma-separated: games with all of them)", list: true },
  { key: "game", label: "Game", options: pageData.games.map((g) => [g.name, g.title]) },
  { key: "ruleset", label: "Ruleset", options: [...RULESET_WORDS] },
  { key: "players", label: "Number of players", type: "number", min: 1, max: 99 },
  { key: "winner", label: "Winner" },
  { key: "outcome", label: "How it ended", wide: true, options: [...OUTCOMES].sort((a, b) => a[1].localeCompare(b[1])) },
  { key: "finished_from", label: "Finished from", type: "date" },
  { key: "finished_to", label: "Finished until", type: "date" },
  { key: "option", label: "Options that were on", checks: [...OPTION_WORDS] },
  { key: "limit", label: "Per page", type: "number", min: 1, max: 100, value: 20 },
];

function input(spec) {
  const id = `filter-${spec.key}`;
  if (spec.checks) {
    return h("fieldset", { class: "checks", id }, h("legend", {}, spec.label), spec.checks.map(([value, label]) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", name: spec.key, value }), ` ${label}`)));
  }
  const control = spec.options
    ? h("select", { id, name: spec.key }, h("option", { value: "" }, "any"), spec.options.map(([value, label]) => h("option", { value }, label)))
    : h("input", { id, name: spec.key, type: spec.type || "text", min: spec.min, max: spec.max, value: spec.value });
  return h("div", { class: spec.wide ? "field stacked wide" : "field stacked" }, h("label", { for: id }, spec.label), control);
}

function query(form, cursor) {
  const params = new URLSearchParams();
  for (const spec of FILTERS) {
    if (spec.checks) {
      for (const box of form.querySelectorAll(`input[name="${spec.key}"]:checked`)) params.append(spec.key, box.value);
      continue;
    }
    const value = form.elements[spec.key].value.trim();
    if (!value) continue;
    if (spec.list) for (const part of value.split(",").map((p) => p.trim()).filter(Boolean)) params.append(spec.key, part);
    else params.append(spec.key, value);
  }
  if (cursor) params.set("cursor", cursor);
  return params;
}

const title = (name) => gameTitle(pageData.games, name);
const outcomeWords = (code) => (code ? OUTCOMES.get(code) || words(code) : "");

async function main() {
  const form = h("form", { class: "search", role: "search", "aria-label": "Search the archive" }, FILTERS.map(input),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Search")));
  const body = h("tbody");
  const table = h("table", { class: "results" }, h("caption", { class: "visually-hidden" }, "Finished games, newest first"),
    h("thead", {}, h("tr", {}, ["Finished", "Players", "Winner", "Outcome", "Setup", ""].map((t) => h("th", { scope: "col", class: t ? null : "replay-col" }, t)))), body);
  const more = h("button", { type: "button", hidden: true }, "More games");
  const count = h("p", { class: "muted", "aria-live": "polite" });
  setApp(form, h("section", { "aria-label": "Results" }, count,
    h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Finished games" }, table), more));
  // Filters live in the page's own URL (never a token), so a search can be bookmarked and shared.
  const initial = new URLSearchParams(location.search);
  for (const spec of FILTERS) {
    const values = initial.getAll(spec.key);
    if (spec.checks) for (const box of form.querySelectorAll(`input[name="${spec.key}"]`)) box.checked = values.includes(box.value);
    else if (values.length) form.elements[spec.key].value = values.join(", ");
  }
  let cursor = null;
  let shown = 0;
  async function load(append) {
    const params = query(form, append ? cursor : null);
    const { data } = await api(`/v1/archive?${params}`);
    if (!append) { body.replaceChildren(); shown = 0; }
    for (const game of data.games) {
      // Seats of one name (three "heuristic bot"s) are told apart as at the table: "heuristic bot 2".
      const seats = { seats: game.players.map((name, seat) => ({ seat, name })) };
      const player = (seat) => (game.players[seat] ? seatName(seats, seat) : "—");
      body.append(h("tr", { dataset: { game: game.id } },
        // On a phone the replay's link sits under the date: a last column there is cut to "R".
        h("td", {}, when(game.finished), h("a", { class: "replay-inline", href: `/replay/${game.id}` }, "Replay")),
        h("td", {}, game.players.map((_, seat) => player(seat)).join(", ")),
        h("td", {}, game.winners.filter((seat) => game.players[seat]).map(player).join(", ") || "—"),
        h("td", {}, outcomeWords(game.outcome) || "—"),
        h("td", {}, `${title(game.game)}${game.ruleset ? ` (${RULESET_WORDS.get(game.ruleset) || words(game.ruleset)})` : ""} · ${game.player_count} players${game.options.length ? ` · ${game.options.map((o) => OPTION_WORDS.get(o) || words(o)).join(", ")}` : ""}`),
        h("td", { class: "replay-col" }, h("a", { href: `/replay/${game.id}` }, "Replay"))));
    }
    shown += data.games.length;
    cursor = data.next_cursor;
    more.hidden = !cursor;
    count.textContent = `${shown} game${shown === 1 ? "" : "s"} shown${cursor ? ", more available" : ""}.`;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = query(form);
    params.delete("cursor");
    history.replaceState(null, "", `/archive?${params}`);
    load(false).then(() => showError(null), showError);
  });
  more.addEventListener("click", async () => {
    if (!cursor) return; // no next page: nothing to append (never page 1 again)
    more.disabled = true;
    try { await load(true); } catch (error) { showError(error, more); } finally { more.disabled = false; }
  });
  await load(false);
}

main().catch(showError);
