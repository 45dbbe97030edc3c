// The reasons a challenge is declined with: the API's codes (Lichess's), in plain words.
export const REASONS = [
  ["generic", "Not now"],
  ["later", "Later, please"],
  ["tooFast", "Too fast for me"],
  ["tooSlow", "Too slow for me"],
  ["timeControl", "Not this time control"],
  ["rated", "Rated games only"],
  ["casual", "Casual games only"],
  ["noBot", "No bots, please"],
  ["onlyBot", "Bots only"],
];

export const reasonWords = (code) => (REASONS.find(([c]) => c === code) || [code, code || "no reason given"])[1].toLowerCase();
