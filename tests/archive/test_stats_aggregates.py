"""Statistics kept as aggregates (issue 13, item 6): updated once per archived game, the same figures
as a computation over every archived log, counted once however often a game enters, and rebuilt from
scratch to the same figures."""

from __future__ import annotations

import random

import pytest

from games import get_game
from replays import stats
from service import aggregates
from service.summaries import summary_of
from store.archive import Archive
from store.game_logs import events_of, load_log
from tests.random_play import import_played, play_out

GAME = get_game("condottiere")
# Case variants of one player ("Ann", "ann") and a name that sits twice at one table.
NAMES = ["Ann", "ann", "Bob", "Cid", "Dee", "Eve", "Bob"]


def random_game(rng: random.Random, capturing: float = 0.3) -> tuple[list[dict], object]:
    players = rng.choice([2, 3, 4, 5])
    options = {"capturing": rng.random() < capturing}
    config = GAME.configure(
        {
            "players": players,
            "ruleset": rng.choice(["2006", "classic"]),
            "options": options,
            "seed": rng.getrandbits(40),
        }
    )
    return play_out(GAME, config, rng)


def archive_games(client, count: int, seed: int = 1, capturing: float = 0.3) -> list[str]:
    rng = random.Random(seed)
    ids = []
    for i in range(count):
        events, state = random_game(rng, capturing)
        players = [rng.choice(NAMES) for _ in range(GAME.seat_count(events[0]["config"]))]
        summary = import_played(
            client,
            GAME,
            events,
            state,
            game_id=f"agg{seed}x{i:03d}",
            players=players,
            now=f"2026-11-{1 + i % 28:02d}T12:00:00Z",  # equal finish times too: ties ordered by id
        )
        ids.append(summary["id"])
    return ids


def from_every_log(client) -> tuple[dict, dict]:
    """The figures as the statistics jobs computed them before aggregates: every archived log read,
    its facts computed, the aggregators fed newest first."""
    archive = Archive(client)
    ids = archive.ids(newest_first=True)
    summaries = {game_id: summary_of(archive.record(game_id)) for game_id in ids}
    logs = dict(events_of(client, ids))
    players, overall = stats.PlayerStats(), stats.GlobalStats()
    by_name: dict[str, stats.PlayerStats] = {}
    spelling: dict[str, str] = {}
    for game_id in ids:
        names = summaries[game_id]["players"]
        facts = stats.game_facts(GAME, logs[game_id])
        players.add(names, facts)
        overall.add(facts)
        for folded in {n.casefold() for n in names if n}:
            spelling.setdefault(folded, next(n for n in names if n and n.casefold() == folded))
            by_name.setdefault(folded, stats.PlayerStats()).add(
                [folded if n and n.casefold() == folded else None for n in names], facts
            )
    table = players.result()
    leaders = sorted(table.items(), key=lambda item: (-item[1]["wins"], -item[1]["games"], item[0]))[:20]
    body = overall.result()
    body["game"] = GAME.name
    body["leaders"] = [
        {"name": n, "games": row["games"], "wins": row["wins"], "win_rate": row["win_rate"]}
        for n, row in leaders
    ]
    rows = {
        folded: dict(acc.result()[folded], name=spelling[folded], game=GAME.name)
        for folded, acc in by_name.items()
    }
    return body, rows


def kept(client) -> tuple[dict, dict]:
    players = {name.casefold() for name in NAMES}
    return (
        aggregates.global_stats(Archive(client), GAME.name),
        {folded: aggregates.player_stats(Archive(client), GAME.name, folded) for folded in players},
    )


@pytest.fixture()
def archived(redis_client):
    return archive_games(redis_client, 30)


def test_aggregates_give_the_figures_of_every_log_read_again(redis_client, archived):
    overall, players = kept(redis_client)
    expected_overall, expected_players = from_every_log(redis_client)
    assert overall["games"] == 30
    assert overall == expected_overall
    assert players == expected_players
    assert players["ann"]["name"] in ("Ann", "ann") and players["bob"]["games"] > 0


def test_a_game_entering_again_is_counted_once(redis_client, archived):
    before = kept(redis_client)
    version = Archive(redis_client).version()
    for game_id in archived[:5]:
        added, _ = aggregates.enter_archive(Archive(redis_client), load_log(redis_client, game_id))
        assert added is False
    assert kept(redis_client) == before
    assert Archive(redis_client).version() == version


def test_a_recount_from_scratch_gives_the_same_figures(redis_client, archived):
    before = kept(redis_client)
    assert aggregates.recount(Archive(redis_client), GAME.name) == 30
    assert kept(redis_client) == before


def test_one_more_game_changes_the_figures_as_a_full_recomputation_does(redis_client, archived):
    archive_games(redis_client, 1, seed=99)
    overall, players = kept(redis_client)
    assert overall["games"] == 31
    assert (overall, players) == from_every_log(redis_client)


def test_a_counter_no_game_filled_is_listed_empty_as_a_full_recomputation_lists_it(redis_client):
    """Without the capturing option no region is ever captured: every game's facts name the
    ``captured_regions`` counter with no keys, and the kept figures list it empty too (they left
    it out, while bench/archive_stats.py's recount listed it: "same figures: False")."""
    archive_games(redis_client, 6, seed=7, capturing=0.0)
    overall, players = kept(redis_client)
    assert overall["counters"]["captured_regions"] == []
    assert (overall, players) == from_every_log(redis_client)


def test_an_unknown_player_has_no_statistics(redis_client, archived):
    assert aggregates.player_stats(Archive(redis_client), GAME.name, "Nobody") is None
