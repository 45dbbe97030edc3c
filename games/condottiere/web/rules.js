// Condottiere's rules as a player reads them at the table: the goal in one line (always shown) and
// a short rules panel. Written for players, from shared/rules/condottiere.md (the rule IDs in the
// comments say where each sentence comes from); the protocol's rulings stay in the docs.

// How many regions win, for this game's configuration: VIC-1 (4-6 players: 5 in total or 3
// adjacent), VIC-2 (2-3 players: 6 or 4), OPT-BIG-1 (bigger kingdoms: one more adjacent),
// CL-2 (classic: adjacent regions only).
export function goal(config) {
  const players = Number((config && config.players) || 4);
  const few = players <= 3;
  const classic = config && config.ruleset === "classic";
  const bigger = Boolean(config && config.options && config.options.bigger_kingdoms);
  const adjacent = (few ? 4 : 3) + (bigger ? 1 : 0);
  const total = classic ? null : few ? 6 : 5;
  return { total, adjacent };
}

export function goalSentence(config) {
  const { total, adjacent } = goal(config);
  const target = config && config.options && config.options.points_target;
  const how = total === null
    ? `hold ${adjacent} adjacent regions (regions joined by a border on the map)`
    : `hold ${total} regions, or ${adjacent} adjacent ones (joined by borders on the map)`;
  const end = "If every region is taken first, the player with the most regions wins.";
  const match = target ? ` This is a match: each game scores 1 point per region (5 more for a win through adjacent regions), first to ${target} points wins.` : "";
  return `To win: be the first to ${how}. ${end}${match}`;
}

const SECTIONS = [
  ["The goal", (config) => [goalSentence(config),
    "A region is won in a battle: the strongest battle line takes it, and its player puts a marker there."]],
  ["A battle", () => [
    "The holder of the Condottiere token (♞) chooses the region to fight for and plays first.",
    "On your turn you play one card face up into your battle line, or pass. A pass is final for this battle, but your line still counts.",
    "When everyone has passed (or someone plays a Surrender), the single strongest line wins the region. A tie for the highest strength wins nothing.",
    "The token then goes to the player with the most Courtesans in their line, else to the winner, else to the left neighbour of its last holder.",
  ]],
  ["Strength", () => [
    "A line's strength is the sum of its mercenaries (1 to 10), plus 10 per Heroine and 1 per Courtesan.",
    "Winter: every mercenary counts 1. Spring: the highest mercenaries in play get +3. Each cancels the other.",
    "Drummer: doubles the mercenaries in its own line.",
    "Bishop: discards the highest mercenaries from every line, then you may move the Pope: no battle can be fought where he stands.",
    "Scarecrow: take one of your own mercenaries back into your hand.",
  ]],
  ["Rounds and cards", () => [
    "You are dealt 10 cards, plus 1 per region you hold. Cards are not drawn between battles: spend them with care.",
    "After a battle, a player whose hand has no mercenary may discard it all; everyone is asked, so nobody learns who could.",
    "A round ends when at most one player still holds cards: that player keeps up to 2 of them, and everyone is dealt again.",
  ]],
];

// The rules panel's sections as [heading, [sentence, ...]] for this game's configuration.
export function rulesSections(config) {
  return SECTIONS.map(([heading, text]) => [heading, text(config)]);
}
