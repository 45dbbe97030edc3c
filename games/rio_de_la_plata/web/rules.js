// Rio de la Plata's rules as a player reads them at the table: the goal in one line (always shown)
// and a short rules panel. Written for players, from shared/rules/rio-de-la-plata.md (the rule IDs
// in the comments say where each sentence comes from); the protocol's rulings stay in the docs.

export const FIRST_YEAR = 1580; // RIO-ROUND-1: 20 years, 1580 to 1599
export const YEARS = 20;

// RIO-ROUND-1, RIO-END-1..7
export function goalSentence(year) {
  const n = Number.isInteger(year) ? year - FIRST_YEAR + 1 : null;
  const when = n !== null && n >= 1 && n <= YEARS ? ` It is ${year}: year ${n} of ${YEARS}.` : "";
  return `To win: have the most VP (victory points) when the game ends after ${YEARS} years, ${FIRST_YEAR} to ${FIRST_YEAR + YEARS - 1}.${when}`;
}

const SECTIONS = [
  ["The goal", (year) => [goalSentence(year),
    "Ties go to the player with the most money left, then the most luxury, then the most stone and wood."]],
  ["A year", () => [
    "Phase A: in turn order, each player places up to 5 people, one placement at a time: on city cells, on the spaces of a major building, on the mine or forest, on the fields, the craftsmen, the dock, the turn-order track or a character.",
    "Phase B: in turn order, each player acts with the people they placed: builds, uses buildings, collects from the mine and forest, claims characters.",
    "Phase C: two dice decide whether the natives or the pirates attack the city; then the turn order is set and the year ends.",
  ]],
  ["The city", () => [
    "In 1580 you place only in the Start zone (blue dashes); later, next to your own huts and houses.",
    "Two of your people on an empty cell build a hut; a hut becomes a house later. Other buildings cost resources and bring resources, silver or VP.",
    "You may use a building only if it stands next to one of your houses.",
  ]],
  ["Where VP come from", () => [
    "During the game: the spaces of major buildings (palace, cathedral, fort, port, walls, roads) when they are completed; noble buildings when built (square, statue, garden, church, barracks); using a church; the ship; defending in battles.",
    "At the end: each house scores its district's value (2, more with noble buildings, a road, the palace or cathedral; less with many production buildings); 1 VP for every 3 silver; the end-of-game VP of your characters.",
    "A character you cannot pay for (silver and VP needed) costs a penalty of silver and VP instead.",
  ]],
  ["Money and trade", () => [
    "You may buy stone or wood at any time: 1 silver for the first each year, then 2, 3 and so on. Luxury cannot be bought.",
    "Players may trade resources, money and characters on any terms both accept.",
  ]],
];

export function rulesSections(year) {
  return SECTIONS.map(([heading, text]) => [heading, text(year)]);
}
