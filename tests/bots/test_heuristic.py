"""The Condottiere heuristic bot on constructed seat views: each test sets up a situation where one
move is clearly right and checks the bot finds it (rule IDs name the card or rule involved)."""

from __future__ import annotations

import random

import pytest

from bots import choose_move
from games.condottiere.bot_model import Thresholds, largest_group
from games.condottiere.bots import HEURISTIC
from tests.bots.views import make_view


def choose(view, seed=0):
    return choose_move("condottiere", "heuristic", view, random.Random(seed), strict=True)


def test_map_2_largest_group_counts_chains():
    """MAP-2: a chain counts as connected; separate regions do not."""
    assert largest_group({"Torino", "Milano", "Venezia"}) == 3
    assert largest_group({"Torino", "Venezia", "Roma"}) == 1


def test_vic_1_vic_2_cl_2_opt_big_1_thresholds():
    """VIC-1, VIC-2, CL-2, OPT-BIG-1: the thresholds the bot aims at follow the configuration."""
    assert Thresholds.of({"players": 4}) == Thresholds(3, 5)
    assert Thresholds.of({"players": 3}) == Thresholds(4, 6)
    assert Thresholds.of({"players": 4, "ruleset": "classic"}) == Thresholds(3, None)
    assert Thresholds.of({"players": 5, "options": {"bigger_kingdoms": True}}) == Thresholds(4, 5)


def test_set_4_token_builds_adjacency():
    """SET-4/END-5, MAP-2: holding Milano and Genova, the bot fights where a third adjacent region
    wins the game (a neighbour of Milano or Genova), not in a far-away region."""
    view = make_view(
        phase="place_token",
        hand=["m10", "m6", "heroine", "m5", "m4"],
        owners={"Milano": 0, "Genova": 0, "Roma": 1, "Napoli": 2},
    )
    move = choose(view)
    assert move["type"] == "place_token"
    assert move["region"] in {"Torino", "Parma", "Modena", "Mantova", "Venezia"}


def test_bat_1_token_denies_an_opponent_close_to_winning():
    """BAT-1, VIC-1: with a strong hand and no region of its own that matters, the bot fights where
    an opponent holding Roma and Siena would complete three adjacent regions."""
    view = make_view(
        phase="place_token",
        hand=["m10", "m10", "heroine", "m6", "m5", "bishop"],
        owners={"Roma": 1, "Siena": 1},
    )
    move = choose(view)
    assert move["region"] in {"Firenze", "Spoleto", "Napoli"}


def test_sur_1_surrender_when_ahead_in_a_battle_that_matters():
    """SUR-1: the bot is ahead in the battle that wins it the game: Surrender ends it at once."""
    view = make_view(
        hand=["surrender", "m1", "m2"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: ["m10", "m5"], 1: ["m3"], 2: ["m2"], 3: []},
    )
    assert choose(view) == {"type": "play", "card": "surrender"}


def test_sur_1_no_surrender_when_behind():
    """SUR-1: Surrender would hand the region to the strongest line: never when behind."""
    view = make_view(
        hand=["surrender", "m10", "m2"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: ["m3"], 1: ["m10", "m6"], 2: ["m2"], 3: []},
    )
    assert choose(view)["card"] != "surrender"


def test_bis_1_bishop_when_opponents_highest_mercenary_outweighs_own_losses():
    """BIS-1, BIS-2: an opponent leads with two 10s; the bot has small mercenaries: the Bishop
    discards the 10s and puts the bot ahead; the Pope goes where the bot does not need it."""
    moves = [{"type": "play", "card": "m1"}, {"type": "pass"}]
    moves += [{"type": "play", "card": "bishop", "pope": p} for p in (None, "Roma", "Napoli", "Venezia")]
    view = make_view(
        hand=["bishop", "m1"],
        owners={"Milano": 0, "Genova": 0, "Roma": 1, "Siena": 1},
        region="Torino",
        lines={0: ["m4", "m3"], 1: ["m10", "m10"], 2: ["m2"], 3: []},
        legal_moves=moves,
    )
    move = choose(view)
    assert move["card"] == "bishop"
    assert move["pope"] != "Venezia" or True  # Venezia touches the bot's Milano: never the best
    assert move["pope"] in {"Napoli", "Roma"}  # regions the leading opponent (Roma, Siena) needs


def test_cl_3_classic_bishop_stops_an_opponent_winning_the_game():
    """CL-3: in the classic rules the Bishop ends the battle with no victor: worth it when an
    opponent is about to take the region that wins him the game."""
    view = make_view(
        ruleset="classic",
        hand=["bishop", "m1"],
        owners={"Roma": 1, "Siena": 1},
        region="Firenze",
        lines={0: ["m2"], 1: ["m10", "m6"], 2: [], 3: []},
        hand_sizes={1: 6},
    )
    assert choose(view) == {"type": "play", "card": "bishop"}


def test_win_1_winter_when_opponents_have_big_mercenaries_and_bot_has_heroine():
    """WIN-1, HER-1: opponents lead with big mercenaries; the bot's line holds a Heroine: Winter
    makes every mercenary count 1 and the Heroine keeps her 10."""
    view = make_view(
        hand=["winter", "m1"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: ["heroine", "m2"], 1: ["m10", "m6"], 2: ["m5"], 3: []},
    )
    assert choose(view) == {"type": "play", "card": "winter"}


def test_spr_1_spring_when_holding_the_highest_mercenary_in_play():
    """SPR-1, STR-2: the bot's 10 is the highest mercenary in play; Spring adds 3 to it only."""
    view = make_view(
        hand=["spring", "m1"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: ["m10"], 1: ["m6", "m5"], 2: ["m2"], 3: []},
        passed={2, 3},
        hand_sizes={1: 1},
    )
    assert choose(view) == {"type": "play", "card": "spring"}


def test_dru_1_drummer_on_a_line_with_big_mercenaries():
    """DRU-1: the bot's line has 10 and 6 against 20: a Drummer doubles them to 32."""
    view = make_view(
        hand=["drummer", "m1"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: ["m10", "m6"], 1: ["m10", "m10"], 2: [], 3: []},
    )
    assert choose(view) == {"type": "play", "card": "drummer"}


def test_sca_1_scarecrow_recovers_a_big_mercenary_from_a_lost_battle():
    """SCA-1: the battle is lost (30 against 10) and the region matters little: the Scarecrow takes
    the 10 back into the hand for a later battle."""
    moves = [{"type": "play", "card": "scarecrow", "take_back": c} for c in (None, "m10")]
    moves += [{"type": "play", "card": "m1"}, {"type": "pass"}]
    view = make_view(
        hand=["scarecrow", "m1"],
        region="Napoli",
        lines={0: ["m10"], 1: ["heroine", "m10", "m10"], 2: [], 3: []},
        legal_moves=moves,
    )
    assert choose(view) == {"type": "play", "card": "scarecrow", "take_back": "m10"}


def test_bat_3_keeps_heroine_and_tens_for_battles_that_matter():
    """BAT-3: a far-away region of no use to anyone and an opponent already ahead: the bot does not
    throw its Heroine or its 10 in."""
    view = make_view(
        hand=["heroine", "m10", "m6"],
        region="Napoli",
        owners={},
        lines={0: [], 1: ["m6", "m5"], 2: [], 3: []},
    )
    assert choose(view)["type"] == "pass" or choose(view)["card"] not in {"heroine", "m10"}


def test_bat_3_fights_hard_for_the_winning_region():
    """BAT-3, VIC-1: the region wins the game for the bot: it plays its strength."""
    view = make_view(
        hand=["heroine", "m10", "m1"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: [], 1: ["m10", "m5"], 2: [], 3: []},
    )
    assert choose(view)["card"] in {"heroine", "m10"}


def test_bat_4_passes_when_ahead_and_everyone_else_passed():
    """BAT-4, END-1: every opponent has passed and the bot leads: passing wins the region."""
    view = make_view(
        hand=["m10", "heroine"],
        owners={"Milano": 0},
        region="Torino",
        lines={0: ["m6"], 1: ["m5"], 2: [], 3: []},
        passed={1, 2, 3},
    )
    assert choose(view) == {"type": "pass"}


def test_bat_6_alone_in_battle_plays_just_enough():
    """BAT-6: every opponent has passed at 6 and the bot has 3: it plays a card that takes the lead
    and keeps the rest (not the Heroine when a 4 does)."""
    view = make_view(
        hand=["m4", "heroine", "m10"],
        owners={"Milano": 0, "Genova": 0},
        region="Torino",
        lines={0: ["m3"], 1: ["m6"], 2: [], 3: []},
        passed={1, 2, 3},
    )
    assert choose(view) == {"type": "play", "card": "m4"}


def test_end_7_discards_a_weak_hand():
    """END-7: only Scarecrows and a Courtesan, no mercenary: the bot discards its hand."""
    moves = [{"type": "discard_hand", "discard": True}, {"type": "discard_hand", "discard": False}]
    view = make_view(phase="hand_discard", hand=["scarecrow", "scarecrow", "courtesan"], legal_moves=moves)
    assert choose(view) == {"type": "discard_hand", "discard": True}


def test_end_7_keeps_a_hand_with_a_heroine():
    """END-7: a Heroine can still take a region: the bot keeps its hand."""
    moves = [{"type": "discard_hand", "discard": True}, {"type": "discard_hand", "discard": False}]
    view = make_view(phase="hand_discard", hand=["heroine", "scarecrow"], legal_moves=moves)
    assert choose(view) == {"type": "discard_hand", "discard": False}


def test_rnd_2_keeps_the_best_two_cards():
    """RND-2: the last player holding cards keeps the two most valuable (Heroine and 10)."""
    hand = ["m1", "m10", "heroine", "scarecrow"]
    moves = [{"type": "keep_cards", "cards": []}]
    moves += [{"type": "keep_cards", "cards": [c]} for c in sorted(set(hand))]
    moves += [
        {"type": "keep_cards", "cards": sorted([a, b])} for i, a in enumerate(hand) for b in hand[i + 1 :]
    ]
    view = make_view(phase="keep_cards", hand=hand, legal_moves=moves)
    assert sorted(choose(view)["cards"]) == ["heroine", "m10"]


def test_cl_5_declines_the_token_with_a_weak_hand():
    """CL-5: classic rules, a hand of 1s and nothing worth fighting for: the bot declines."""
    view = make_view(phase="place_token", ruleset="classic", hand=["m1", "m1"], hand_sizes={1: 8, 2: 8, 3: 8})
    view["legal_moves"].append({"type": "decline_token"})
    assert choose(view) == {"type": "decline_token"}


def test_cl_5_places_the_token_with_a_strong_hand():
    """CL-5: with a strong hand and a region that builds its kingdom, the bot chooses it."""
    view = make_view(
        phase="place_token",
        ruleset="classic",
        hand=["m10", "m10", "heroine", "m6", "m5"],
        owners={"Milano": 0},
    )
    view["legal_moves"].append({"type": "decline_token"})
    assert choose(view)["type"] == "place_token"


def test_opt_cap_2_defender_waits_with_a_free_pass():
    """OPT-CAP-2: the defender's pass is not final while it has played nothing: with opponents
    still fighting it waits instead of spending its 10 first."""
    view = make_view(
        options={"capturing": True},
        hand=["m10", "m6"],
        owners={"Torino": 0, "Milano": 0},
        region="Torino",
        defender=0,
        lines={0: [], 1: ["m3"], 2: [], 3: []},
    )
    assert choose(view) == {"type": "pass"}


def test_opt_hid_2_keeps_face_down_card_hidden_when_passing():
    """OPT-HID-2: passing with a face-down card, the bot does not reveal it."""
    moves = [{"type": "pass", "reveal": False}, {"type": "pass", "reveal": True}]
    view = make_view(
        options={"hidden_cards": True},
        hand=[],
        region="Napoli",
        lines={0: [{"card": "m5", "face_down": True}], 1: ["m6", "m5"]},
        legal_moves=moves,
    )
    assert choose(view) == {"type": "pass", "reveal": False}


def test_vic_4_final_battle_plays_everything_that_helps():
    """VIC-4: in the final battle the game is at stake: the bot plays its strongest card."""
    view = make_view(hand=["heroine", "m1"], final=True, lines={0: [], 1: ["m10"]}, players=2)
    assert choose(view)["card"] == "heroine"


@pytest.mark.parametrize("seed", range(5))
def test_heuristic_is_deterministic_for_a_seed(seed):
    """The same view and seed give the same move (reproducible simulations)."""
    view = make_view(
        hand=["m1", "m2", "m3", "m10", "heroine"], region="Modena", lines={0: ["m2"], 1: ["m3"], 2: [], 3: []}
    )
    assert HEURISTIC.choose(view, random.Random(seed)) == HEURISTIC.choose(view, random.Random(seed))


def test_end_2_never_lets_an_unfought_battle_end_without_winner():
    """END-2, BAT-6: every opponent has passed and nobody played: the bot takes the region with its
    cheapest card with strength, even a far-away one, so hoarding can never stall the game."""
    view = make_view(
        hand=["m10", "m10", "m4", "surrender"],
        region="Napoli",
        lines={0: [], 1: [], 2: [], 3: []},
        passed={1, 2, 3},
        hand_sizes={1: 0, 2: 1, 3: 0},
    )
    assert choose(view) == {"type": "play", "card": "m4"}


def test_end_7_discards_surrenders_without_strength():
    """END-7: Surrenders and a Bishop with no strength card cannot take a region: discard."""
    moves = [{"type": "discard_hand", "discard": True}, {"type": "discard_hand", "discard": False}]
    view = make_view(phase="hand_discard", hand=["surrender", "surrender", "bishop"], legal_moves=moves)
    assert choose(view) == {"type": "discard_hand", "discard": True}


def test_opt_cap_1_no_weak_attack_on_a_defended_region():
    """OPT-CAP-1, OPT-CAP-3: with a weak hand against a defender holding many cards, the bot fights
    for a free region instead of attacking (a failed attack gives the defender the token)."""
    view = make_view(
        phase="place_token",
        options={"capturing": True},
        hand=["m1", "m2"],
        owners={"Roma": 1, "Siena": 1, "Milano": 0},
        hand_sizes={1: 9, 2: 2, 3: 2},
    )
    view["legal_moves"] = [
        {"type": "place_token", "region": r} for r in ("Firenze", "Roma", "Napoli", "Torino")
    ]
    move = choose(view)
    assert move["region"] != "Roma"


def test_sca_1_no_scarecrow_on_the_ten_that_is_winning():
    """SCA-1: alone in the battle and ahead with a 10, the bot passes: taking the 10 back would
    waste the Scarecrow and risk the region."""
    moves = [{"type": "play", "card": "scarecrow", "take_back": c} for c in (None, "m10")]
    moves += [{"type": "play", "card": "drummer"}, {"type": "pass"}]
    view = make_view(
        hand=["scarecrow", "drummer"],
        owners={"Milano": 0},
        region="Torino",
        lines={0: ["m10"], 1: ["m4"], 2: [], 3: []},
        passed={1, 2, 3},
        legal_moves=moves,
    )
    assert choose(view) == {"type": "pass"}
