"""Statistics and chapters on constructed Condottiere games whose answers are known (computed by
hand from the moves in tests/archive/scenarios.py, never by the code under test)."""

from __future__ import annotations

from games import get_game
from replays import core, stats
from tests.archive.scenarios import three_adjacent_game

GAME = get_game("condottiere")


def test_chapters_are_the_four_battles_end_1_to_end_4():
    """BAT-1/END-1..END-4: one chapter per battle, ending after its conclusion events."""
    log = three_adjacent_game()
    chapters = core.chapters(GAME, log)
    assert [c["title"] for c in chapters] == [
        "Battle 1: Torino",
        "Battle 2: Milano",
        "Battle 3: Genova",
        "Battle 4: Milano",
    ]
    assert [c["winner"] for c in chapters] == [0, None, 0, 0]
    assert [c["strengths"] for c in chapters] == [[10, 4, 0, 2], [6, 6, 1, 0], [10, 4, 0, 1], [5, 0, 0, 0]]
    for chapter in chapters:
        assert log[chapter["start"]]["type"] == "token_placed"
        assert log[chapter["end"] - 1]["type"] in ("token_passed", "game_won")
    assert chapters[-1]["end"] == len(log)
    assert chapters[1]["cards"] == {"0": ["m6"], "1": ["m3", "drummer"], "2": ["m1"]}
    # The state at a chapter's end shows the conquest: Torino is seat 0's after battle 1.
    after_first = core.replay_at(GAME, log, chapters[0]["end"], None)["state"]
    assert after_first["regions"]["Torino"] == 0 and after_first["regions"]["Milano"] is None


def test_per_game_facts_of_the_three_adjacent_game():
    """END-2 (tie), END-3 (courtesan takes the token), VIC-1 (3 adjacent) as statistics."""
    facts = stats.per_game(GAME, three_adjacent_game(), ["Ann", "Bob", "Cid", "Dee"])
    assert facts["seats"] == 4 and facts["first_seat"] == 0
    assert facts["winners"] == [0] and facts["outcome"] == "adjacent" and facts["chapters"] == 4
    assert facts["seat_counters"][0] == {
        "regions_taken": {"Torino": 1, "Genova": 1, "Milano": 1},
        "cards_played": {"m10": 1, "m6": 1, "heroine": 1, "m5": 1},
    }
    assert facts["seat_counters"][1]["cards_played"] == {"m4": 2, "m3": 1, "drummer": 1}
    assert facts["seat_counters"][3]["cards_played"] == {"m2": 1, "courtesan": 1}
    assert [t["battles_won"] for t in facts["seat_totals"]] == [3, 0, 0, 0]
    assert [t["battles"] for t in facts["seat_totals"]] == [4, 4, 4, 4]
    assert [t["cards_played"] for t in facts["seat_totals"]] == [4, 4, 1, 2]
    assert [t["regions_held_at_end"] for t in facts["seat_totals"]] == [3, 0, 0, 0]
    assert facts["counters"]["contested_regions"] == {"Torino": 1, "Milano": 2, "Genova": 1}
    assert facts["counters"]["battle_endings"] == {"all_passed": 4}
    assert facts["counters"]["game_endings"] == {"adjacent": 1}
    assert facts["counters"]["captured_regions"] == {}
    battles = facts["detail"]["battles"]
    assert [(b["region"], b["winner"], b["winning_strength"]) for b in battles] == [
        ("Torino", 0, 10),
        ("Milano", None, None),
        ("Genova", 0, 10),
        ("Milano", 0, 5),
    ]
    assert [b["chooser"] for b in battles] == [0, 0, 1, 3]
    cards = facts["detail"]["cards"]
    # m4: seat 1 played one in battle 1 and one in battle 3, both won by seat 0.
    assert cards["m4"] == {"played": 2, "battles": 2, "won": 0, "lost": 2, "no_winner": 0}
    assert cards["drummer"] == {"played": 1, "battles": 1, "won": 0, "lost": 0, "no_winner": 1}
    assert cards["heroine"] == {"played": 1, "battles": 1, "won": 1, "lost": 0, "no_winner": 0}
    assert cards["courtesan"] == {"played": 1, "battles": 1, "won": 0, "lost": 1, "no_winner": 0}
    assert facts["players"][2] == {"seat": 2, "name": "Cid"}


def test_player_and_global_statistics_over_two_archived_games():
    """The same game twice with the names rotated: Ann wins the first from seat 0, Bob the second."""
    log = three_adjacent_game()
    games = [(["Ann", "Bob", "Cid", "Dee"], log), (["Bob", "Cid", "Dee", "Ann"], log)]
    players, overall = stats.aggregate(GAME, games)
    table = players.result()
    assert table["Ann"]["games"] == 2 and table["Ann"]["wins"] == 1 and table["Ann"]["win_rate"] == 0.5
    assert table["Ann"]["by_seat"] == {
        "0": {"games": 1, "wins": 1, "win_rate": 1.0},
        "3": {"games": 1, "wins": 0, "win_rate": 0.0},
    }
    assert table["Ann"]["by_player_count"] == {"4": {"games": 2, "wins": 1, "win_rate": 0.5}}
    assert table["Ann"]["counters"]["regions_taken"] == {"Genova": 1, "Milano": 1, "Torino": 1}
    # Ann played seat 0's cards once and seat 3's once: m10, m6, heroine, m5 + m2, courtesan.
    assert table["Ann"]["counters"]["cards_played"] == {
        "courtesan": 1,
        "heroine": 1,
        "m10": 1,
        "m2": 1,
        "m5": 1,
        "m6": 1,
    }
    assert table["Bob"]["totals"]["battles_won"] == 3 and table["Cid"]["wins"] == 0
    assert table["Bob"]["counters"]["cards_played"]["m4"] == 2  # seat 1 in game 1
    assert table["Ann"]["favourites"]["regions_taken"] == [
        {"key": "Genova", "count": 1},
        {"key": "Milano", "count": 1},
        {"key": "Torino", "count": 1},
    ]

    result = overall.result()
    assert result["games"] == 2
    assert result["first_seat_advantage"] == {
        "games": 2,
        "wins": 2,
        "win_rate": 1.0,
        "expected_win_rate": 0.25,
        "advantage": 0.75,
    }
    assert result["outcomes"] == {"adjacent": 2}
    assert result["counters"]["contested_regions"] == [
        {"key": "Milano", "count": 4},
        {"key": "Genova", "count": 2},
        {"key": "Torino", "count": 2},
    ]
    assert result["length"]["chapters"]["min"] == 4 == result["length"]["chapters"]["max"]
    assert result["length"]["events"]["median"] == len(log)
    assert result["win_rate_by_seat"]["0"] == {"games": 2, "wins": 2, "win_rate": 1.0}


def test_opt_cap_1_a_captured_region_counts_as_taken_by_the_winner_and_lost_by_the_defender():
    from tests.archive.scenarios import capture_game

    log = capture_game()
    facts = stats.game_facts(GAME, log)
    assert facts["seat_counters"][1]["regions_taken"] == {"Milano": 1, "Torino": 1}
    assert facts["seat_counters"][0]["regions_taken"] == {"Torino": 1}
    assert [t["regions_lost"] for t in facts["seat_totals"]] == [1, 0, 0, 0]
    assert [t["regions_taken"] for t in facts["seat_totals"]] == [1, 2, 0, 0]
    assert facts["counters"]["captured_regions"] == {"Torino": 1}
    assert facts["counters"]["contested_regions"] == {"Torino": 2, "Milano": 1}
    third = facts["detail"]["battles"][2]
    assert (third["defender"], third["winner"], third["taken_from"], third["strengths"]) == (
        0,
        1,
        0,
        [3, 10, 0, 0],
    )
    assert facts["winners"] == [] and facts["outcome"] == "unfinished"  # the game goes on
    chapters = core.chapters(GAME, log)
    assert chapters[2]["title"] == "Battle 3: Torino (defended by seat 0)"
    after = core.replay_at(GAME, log, chapters[2]["end"], None)["state"]
    assert after["regions"]["Torino"] == 1 and after["regions"]["Milano"] == 1


def test_player_names_cannot_inject_markup_into_exports():
    from games.base import fold
    from replays import export

    log = three_adjacent_game()
    names = ["<script>alert(1)</script>", "A|B", "*Cid*", "Dee"]
    doc = export.annotated_history(
        GAME, log, players=names, finished=True, game_id="g", result=GAME.result(fold(GAME, log))
    )
    page = export.to_html(GAME, doc)
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    markdown = export.to_markdown(GAME, doc)
    assert "<script" not in markdown and "| A\\|B |" in markdown and "\\*Cid\\*" in markdown
