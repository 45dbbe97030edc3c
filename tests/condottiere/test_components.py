"""Components and setup: MAP-1..2, CARD-1..3, PIECE-1..3, SET-1..4, configuration refusals."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import FULL, SPECTATOR, ConfigError, fold
from tests.condottiere.scenario import (
    BORDERS,
    DECK_2006,
    GAME,
    REGIONS,
    Table,
    build_deck,
    largest_connected,
    make_config,
)
from tests.hypothesis_profiles import examples

# -- MAP ------------------------------------------------------------------------------------------


def test_map_1_spec_table_is_consistent():
    """MAP-1: 17 regions, 34 borders, symmetric (the table copied into the tests)."""
    assert len(REGIONS) == 17
    edges = {frozenset((a, b)) for a, ns in BORDERS.items() for b in ns}
    assert len(edges) == 34
    for region, neighbours in BORDERS.items():
        assert region not in neighbours
        for other in neighbours:
            assert region in BORDERS[other], f"{region}-{other} is not symmetric"


def _engine_borders() -> dict[str, set[str]] | None:
    """The engine's adjacency, read from the data files the package ships (MAP-1: the map is
    data). Accepts a {region: [neighbours]} mapping or a list of [a, b] pairs, possibly nested
    under a key."""
    import games.condottiere as package

    root = Path(package.__file__).parent
    candidates = sorted(p for p in root.rglob("*") if p.suffix in (".json", ".yaml", ".yml", ".toml"))
    for path in candidates:
        text = path.read_text(encoding="utf-8")
        if "Torino" not in text or "Napoli" not in text:
            continue
        if path.suffix == ".json":
            data = json.loads(text)
        elif path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
        found = _find_adjacency(data)
        if found:
            return found
    return None


def _find_adjacency(data) -> dict[str, set[str]] | None:
    if isinstance(data, dict):
        if set(REGIONS) <= set(data) and all(
            isinstance(v, (list, tuple)) for k, v in data.items() if k in REGIONS
        ):
            return {k: set(data[k]) for k in REGIONS}
        for value in data.values():
            found = _find_adjacency(value)
            if found:
                return found
    if (
        isinstance(data, list)
        and data
        and all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in data
        )
    ):
        adjacency: dict[str, set[str]] = {r: set() for r in REGIONS}
        for a, b in data:
            adjacency.setdefault(a, set()).add(b)
            adjacency.setdefault(b, set()).add(a)
        return adjacency
    if isinstance(data, list):
        for value in data:
            found = _find_adjacency(value)
            if found:
                return found
    return None


def test_map_1_engine_regions_and_borders_match_the_rules():
    """MAP-1: the engine's 17 regions (from the view) and its borders (from its data) match the
    rules' table exactly."""
    table = Table([], players=3)
    assert set(table.view()["regions"]) == set(REGIONS)
    assert set(table.spectator()["regions"]) == set(REGIONS)
    engine = _engine_borders()
    assert engine is not None, "no map data file found in games/condottiere"
    assert set(engine) == set(REGIONS)
    for region in REGIONS:
        assert engine[region] == set(BORDERS[region]), region


def test_map_2_chain_counts_as_adjacent():
    """MAP-2 / VIC-1: Torino-Milano-Venezia is a chain (Torino and Venezia do not border each
    other) and wins as 3 adjacent regions with 4 players."""
    assert "Venezia" not in BORDERS["Torino"]
    assert largest_connected(["Torino", "Milano", "Venezia"]) == 3
    table = Table([], players=4)
    table.win_battle("Torino", 0)
    table.win_battle("Milano", 0)
    assert not GAME.is_over(table.state)
    table.win_battle("Venezia", 0)
    assert GAME.is_over(table.state)
    result = GAME.result(table.state)
    assert result["winners"] == [0]
    assert result["reason"] == "adjacent"


def test_map_2_three_scattered_regions_do_not_win():
    """MAP-2: three regions that are not connected are not "3 adjacent regions"."""
    table = Table([], players=4)
    for region in ("Torino", "Venezia", "Napoli"):
        table.win_battle(region, 0)
    assert largest_connected(table.regions_of(0)) == 1
    assert table.regions_of(0) == ["Napoli", "Torino", "Venezia"]
    assert not GAME.is_over(table.state)
    assert table.phase in ("place_token", "hand_discard")


# -- CARDS ----------------------------------------------------------------------------------------


def _all_cards_full(view) -> Counter:
    cards: Counter = Counter()
    for player in view["players"]:
        cards.update(player["hand"])
    deck = view.get("deck")
    assert isinstance(deck, list), "the FULL view shows the deck order"
    cards.update(deck)
    return cards


def test_card_1_card_2_2006_deck_composition_from_a_seeded_shuffle():
    """CARD-1, CARD-2: 58 mercenaries (1 x10; 2,3,4,5,6,10 x8) and 52 specials, 110 cards."""
    config = make_config(4, seed=99, first=None)
    state = fold(GAME, GAME.start(config))
    cards = _all_cards_full(GAME.view(state, FULL))
    assert cards == Counter(DECK_2006)
    assert sum(cards.values()) == 110
    assert sum(n for c, n in cards.items() if c.startswith("m")) == 58


def test_card_1_deck_order_with_wrong_counts_is_refused():
    """CARD-1 / CARD-2: a deck_order that is not a permutation of the 110 cards is refused."""
    deck = build_deck([], players=2)
    bad = deck[:-1] + ["m10"]  # one card too many of a kind, one missing
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": 2, "seed": 1, "deck_order": bad})
    assert info.value.code == "INVALID_DECK_ORDER"
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": 2, "seed": 1, "deck_order": deck[:-1]})
    assert info.value.code == "INVALID_DECK_ORDER"
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": 2, "seed": 1, "deck_order": deck[:-1] + ["dragon"]})
    assert info.value.code == "INVALID_DECK_ORDER"
    # the classic deck is not a 2006 deck
    classic = build_deck([], ruleset="classic", players=2)
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": 2, "seed": 1, "deck_order": classic})
    assert info.value.code == "INVALID_DECK_ORDER"


def test_card_3_courtesan_and_heroine_are_not_mercenaries():
    """CARD-3: Winter and Drummer leave Courtesan (1) and Heroine (10) alone; a Bishop with only
    a Heroine and Courtesans on the table discards nothing of them."""
    table = Table([["heroine", "courtesan", "drummer", "winter", "bishop"], ["m3"]])
    table.place("Torino")
    table.play_lines({0: ["heroine", "courtesan", "drummer"], 1: ["m3"]})
    assert table.strengths() == [11, 3]
    table.card(0, "winter")
    assert table.strengths() == [11, 1]
    table.card(0, "bishop", pope=None)
    # only the m3 was a mercenary: Heroine and Courtesan stay
    assert sorted(c for c in table.line(0)) == ["courtesan", "drummer", "heroine", "winter"]
    assert table.line(1) == []
    assert table.strengths() == [11, 0]


# -- PIECES ---------------------------------------------------------------------------------------


def test_piece_1_token_holder_chooses_and_acts_first():
    """PIECE-1: the token holder chooses the region and plays first there."""
    table = Table([], players=3, first=2)
    view = table.view()
    assert view["condottiere"] == 2
    assert table.awaiting == [2]
    assert [m["type"] for m in table.legal(2)] and all(m["type"] == "place_token" for m in table.legal(2))
    assert table.legal(0) == [] and table.legal(1) == []
    table.place("Siena")
    view = table.view()
    assert view["battle"]["region"] == "Siena"
    assert view["turn"] == 2
    assert table.awaiting == [2]


def test_piece_2_pope_region_cannot_be_chosen():
    """PIECE-2 / BIS-2: after a Bishop puts the Pope on Roma, Roma cannot be chosen."""
    table = Table([["bishop", "m1"], ["m2"]])
    table.place("Torino")
    table.card(0, "bishop", pope="Roma")
    assert table.view()["pope"] == "Roma"
    assert table.spectator()["pope"] == "Roma"
    table.play_lines({0: ["m1"]}, then_pass=True)
    assert table.phase == "place_token"
    seat = table.holder
    assert {"type": "place_token", "region": "Roma"} not in table.legal(seat)
    assert table.refuse_code(seat, {"type": "place_token", "region": "Roma"}) == "REGION_NOT_ALLOWED"


def test_piece_2_no_pope_in_the_classic_edition():
    """PIECE-2 / CL-1: the Pope token exists in the 2006 edition only."""
    table = Table([["bishop"], ["m2"]], ruleset="classic")
    assert table.view().get("pope") is None
    table.place("Torino")
    assert all("pope" not in m for m in table.legal(0))


def test_piece_3_one_marker_per_region():
    """PIECE-3: a region shows one owner; a controlled region cannot be fought over again."""
    table = Table([], players=2)
    table.win_battle("Parma", 1)
    assert table.owner("Parma") == 1
    assert table.view()["players"][1]["regions"] == ["Parma"]
    assert table.view()["players"][0]["regions"] == []
    holder = table.holder
    assert table.refuse_code(holder, {"type": "place_token", "region": "Parma"}) == "REGION_NOT_ALLOWED"
    owners = table.view()["regions"]
    assert sum(1 for o in owners.values() if o is not None) == 1


# -- SETUP ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 7, 8, "4", None, 2.5, True])
def test_set_1_player_count_out_of_range_is_refused(players):
    """SET-1: 2 to 6 players."""
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": players, "seed": 1})
    assert info.value.code == "INVALID_PLAYER_COUNT"


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_set_1_set_3_every_player_count_starts_with_ten_cards_each(players):
    """SET-1, SET-3: 2..6 players; each is dealt 10 cards, the rest stays in the deck."""
    config = make_config(players, seed=5)
    assert GAME.seat_count(config) == players
    state = fold(GAME, GAME.start(config))
    view = GAME.view(state, FULL)
    assert [p["hand_size"] for p in view["players"]] == [10] * players
    assert view["deck_size"] == 110 - 10 * players
    assert view["discard_size"] == 0


def test_set_3_deal_follows_the_deck_order_contract():
    """SET-3: seat s receives deck_order[10s:10s+10]; the deal is recorded in the log (RL-10)."""
    table = Table([["m10"] * 5 + ["winter"], ["spring", "heroine"], ["bishop"]])
    for seat in range(3):
        assert sorted(table.hand(seat)) == sorted(table.deck_order[10 * seat : 10 * seat + 10])
        dealt = [e for e in table.log if e["type"] == "cards_dealt" and e["seat"] == seat]
        assert len(dealt) == 1 and sorted(dealt[0]["cards"]) == sorted(table.hand(seat))
    deck = table.view()["deck"]
    assert deck == table.deck_order[30:]


def test_set_2_first_condottiere_from_configuration():
    """SET-2: a configured first Condottiere is used and recorded as not drawn."""
    table = Table([], players=5, first=3)
    chosen = table.last("first_condottiere_chosen")
    assert chosen["seat"] == 3 and chosen["drawn"] is False
    assert table.holder == 3


def test_set_2_first_condottiere_drawn_from_the_seed():
    """SET-2 / RL-10: without a configured first Condottiere it is drawn from the seed,
    reproducibly, recorded in the log."""
    firsts = []
    for seed in range(30):
        config = make_config(4, seed=seed, first=None)
        events = GAME.start(config)
        assert events == GAME.start(config), "start is not deterministic for a seed"
        chosen = [e for e in events if e["type"] == "first_condottiere_chosen"]
        assert len(chosen) == 1 and chosen[0]["drawn"] is True
        assert chosen[0]["seat"] in range(4)
        state = fold(GAME, events)
        assert GAME.view(state, FULL)["condottiere"] == chosen[0]["seat"]
        firsts.append(chosen[0]["seat"])
    assert len(set(firsts)) >= 3, f"the draw is not spread over the seats: {firsts}"


@pytest.mark.parametrize("first", [-1, 4, "0", 1.0])
def test_set_2_invalid_first_condottiere_is_refused(first):
    """SET-2: the first Condottiere must be a seat."""
    with pytest.raises(ConfigError) as info:
        GAME.configure({"players": 4, "seed": 1, "first_condottiere": first})
    assert info.value.code == "INVALID_SEAT"


def test_set_4_first_condottiere_places_the_token():
    """SET-4: the game opens with the first Condottiere choosing the first battle's region."""
    table = Table([], players=4, first=1)
    view = table.view()
    assert view["phase"] == "place_token"
    assert view["battle"] is None
    assert table.awaiting == [1]
    legal = table.legal(1)
    assert sorted(m["region"] for m in legal) == sorted(REGIONS)
    assert table.refuse_code(0, {"type": "place_token", "region": "Milano"}) == "NOT_YOUR_TURN"
    assert table.refuse_code(1, {"type": "play", "card": "m1"}) == "NOT_YOUR_TURN"
    events = table.place("Milano")
    placed = [e for e in events if e["type"] == "token_placed"]
    assert placed == [
        {"type": "token_placed", "v": placed[0]["v"], "seat": 1, "region": "Milano", "defender": None}
    ]


# -- configuration --------------------------------------------------------------------------------


def test_configuration_defaults_are_filled():
    """SET-1 / RL-10: configure normalises: 2006 ruleset, every option off, the seed kept."""
    config = GAME.configure({"players": 3, "seed": 11})
    assert config["ruleset"] == "2006"
    assert config["players"] == 3 and config["seed"] == 11
    options = config["options"]
    assert options["draw_after_battle"] is False and options["bigger_kingdoms"] is False
    assert options["capturing"] is False and options["hidden_cards"] is False
    assert options["points_target"] is None
    assert GAME.configure(config) == config


@pytest.mark.parametrize(
    "raw, code",
    [
        ({"players": 4, "seed": 1, "ruleset": "1999"}, "INVALID_RULESET"),
        (
            {"players": 4, "seed": 1, "ruleset": "classic", "options": {"draw_after_battle": True}},
            "OPTION_NOT_IN_RULESET",
        ),
        (
            {"players": 4, "seed": 1, "ruleset": "classic", "options": {"hidden_cards": True}},
            "OPTION_NOT_IN_RULESET",
        ),
        ({"players": 4, "seed": 1, "options": {"points_target": 0}}, "INVALID_TARGET"),
        ({"players": 4, "seed": 1, "options": {"points_target": -5}}, "INVALID_TARGET"),
        ({"players": 4, "seed": 1, "options": {"points_target": "20"}}, "INVALID_TARGET"),
        ({"players": 4, "seed": "1"}, "INVALID_SEED"),
        ({"players": 4, "seed": 1, "colour": "red"}, "INVALID_CONFIG"),
        ({"players": 4, "seed": 1, "options": {"fog_of_war": True}}, "INVALID_OPTION"),
        ({"players": 4, "seed": 1, "options": {"capturing": "yes"}}, "INVALID_OPTION"),
        (["players", 4], "INVALID_CONFIG"),
    ],
)
def test_invalid_configurations_are_refused_with_codes(raw, code):
    """SET-1, OPT-POINTS-1, CL-7: invalid configurations raise ConfigError with a stable code."""
    with pytest.raises(ConfigError) as info:
        GAME.configure(raw)
    assert info.value.code == code


def test_config_deck_order_hidden_from_players_in_game_started():
    """RL-10: the configured deck order and the seed are in the log but redacted for every seat
    and spectators (either one reveals every hand)."""
    table = Table([["m10"]], players=2)
    started = table.log[0]
    assert started["type"] == "game_started"
    assert started["config"]["deck_order"] == table.deck_order
    for viewer in (0, 1, SPECTATOR):
        redacted = GAME.redact(started, viewer)
        assert redacted["config"]["deck_order"] is None
        assert redacted["config"]["seed"] is None
        assert GAME.view(table.state, viewer)["config"].get("seed") is None
        assert redacted["config"].get("deck_order_given") is True or redacted.get("deck_order_given") is True
        assert (
            "deck_order" not in GAME.view(table.state, viewer)["config"]
            or GAME.view(table.state, viewer)["config"]["deck_order"] is None
        )
    assert started["config"]["deck_order"] == table.deck_order, "redact mutated its input"


def _chain_game(a: str, b: str, x: str) -> bool:
    """Seat 0 of 4 wins a, b, x in that order; is the game over (3 adjacent, VIC-1)?"""
    table = Table([], players=4)
    for region in (a, b, x):
        assert not GAME.is_over(table.state)
        table.win_battle(region, 0)
    return GAME.is_over(table.state)


def test_map_1_every_border_of_the_table_joins_a_kingdom():
    """MAP-1 / MAP-2 / VIC-1, behaviourally: for each of the 34 borders a-b, winning a, b and a
    neighbour x of b (not of a) makes a chain of 3 and ends the game."""
    edges = sorted({tuple(sorted((a, b))) for a, ns in BORDERS.items() for b in ns})
    assert len(edges) == 34
    for a, b in edges:
        x = (
            next(r for r in BORDERS[b] if r != a and r not in BORDERS[a])
            if any(r != a and r not in BORDERS[a] for r in BORDERS[b])
            else None
        )
        if x is None:  # b's other neighbours all border a too: use a's side
            a, b = b, a
            x = next(r for r in BORDERS[b] if r != a)
        assert _chain_game(a, b, x), f"the border {a}-{b} does not count"


def test_map_1_non_neighbours_do_not_join():
    """MAP-1 / MAP-2: two regions without a border, with a neighbour of one of them, are not
    3 adjacent regions."""
    for a in REGIONS:
        for b in REGIONS:
            if a >= b or b in BORDERS[a]:
                continue
            x = next((r for r in BORDERS[b] if r not in BORDERS[a] and r != a), None)
            if x is None:
                continue
            assert not _chain_game(a, b, x), f"{a} and {b} are treated as neighbours"


@settings(max_examples=examples(150), deadline=None)
@given(
    raw=st.one_of(
        st.dictionaries(
            st.sampled_from(
                ["ruleset", "players", "options", "seed", "first_condottiere", "deck_order", "extra"]
            ),
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-2, 8),
                st.text(max_size=8),
                st.sampled_from(["2006", "classic"]),
                st.dictionaries(
                    st.sampled_from(
                        [
                            "draw_after_battle",
                            "points_target",
                            "bigger_kingdoms",
                            "capturing",
                            "hidden_cards",
                            "x",
                        ]
                    ),
                    st.one_of(st.none(), st.booleans(), st.integers(-1, 40), st.text(max_size=3)),
                ),
                st.lists(st.sampled_from(sorted(DECK_2006)), max_size=5),
            ),
        ),
        st.none(),
        st.integers(),
        st.text(max_size=4),
    )
)
def test_set_1_any_configuration_is_accepted_or_refused_with_a_code(raw):
    """SET-1 and the configuration contract: any input either normalises (idempotently, to a
    game that starts) or raises ConfigError with a stable code; never another exception."""
    try:
        config = GAME.configure(raw)
    except ConfigError as error:
        assert error.code.isupper() and error.message
        return
    assert 2 <= config["players"] <= 6 and config["ruleset"] in ("2006", "classic")
    assert GAME.configure(config) == config
    events = GAME.start(config)
    assert events[0]["type"] == "game_started"
