"""Ratings (issue 32): who is rated, the Plackett-Luce update entered with the archive entry in one
atomic step and once, the compare-and-set against ratings that moved, and the recount."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from games import get_game
from replays import ratings as model
from replays.ratings import Rating
from service import ratings as service_ratings
from service.aggregates import enter_archive
from store.archive import Archive
from store.game_logs import load_log
from store.keys import game_keys
from store.ratings import RatingsMoved, RatingStore
from tests.random_play import play_out

GAME = get_game("condottiere")


def store_finished(
    client: Any,
    game_id: str,
    seats: list[tuple[str, str | None]],  # per seat: ("bot", level) or ("account", account id)
    seed: int,
    finished: str,
    **meta_extra: Any,
) -> Any:
    """A finished Condottiere game played out at random, stored as the service stores one (its
    metadata and its event stream), not yet in the archive. Returns its GameLog."""
    rng = random.Random(seed)
    config = GAME.configure({"players": len(seats), "seed": seed})
    events, state = play_out(GAME, config, rng)
    keys = game_keys(game_id)
    meta: dict[str, Any] = {
        "game": "condottiere",
        "title": "Condottiere",
        "status": "finished",
        "version": len(events),
        "seat_count": len(seats),
        "config": orjson.dumps({k: v for k, v in config.items() if k != "seed"}),
        "prearranged": "false",
        "awaiting": "[]",
        "result": orjson.dumps(GAME.result(state)),
        "created": finished,
        "started": finished,
        "updated": finished,
        "finished": finished,
    }
    for seat, (kind, who) in enumerate(seats):
        meta[f"name:{seat}"] = who or f"Seat {seat}"
        if kind == "bot":
            meta[f"kind:{seat}"], meta[f"bot:{seat}"] = "bot", who
        else:
            meta[f"kind:{seat}"], meta[f"bot:{seat}"] = "human", ""
            if who:
                meta[f"account:{seat}"] = who
    meta.update(meta_extra)
    client.hset(keys.meta, mapping=meta)
    for version, event in enumerate(events, start=1):
        client.xadd(keys.events, {"e": orjson.dumps(event)}, id=f"{version}-1")
    return load_log(client, game_id)


PLAYERS = ["a1", "a2", "a3", "a4", "a5", "a6"]


def fill(client: Any, count: int, seed: int = 7) -> list[str]:
    """``count`` rated games of 3-5 seats among six accounts and the random bot, entered in turn."""
    rng = random.Random(seed)
    archive = Archive(client)
    ids = []
    for i in range(count):
        size = rng.choice([3, 4, 5])
        people = rng.sample(PLAYERS, size - 1)
        seats: list[tuple[str, str | None]] = [("account", p) for p in people] + [("bot", "random")]
        rng.shuffle(seats)
        game_id = f"rt{seed}x{i:03d}"
        log = store_finished(client, game_id, seats, seed * 1000 + i, f"2026-11-{1 + i % 28:02d}T12:00:00Z")
        enter_archive(archive, log)
        ids.append(game_id)
    return ids


def snapshot_of_ratings(client: Any) -> dict[str, Any]:
    """Every rating key's content, for exact comparisons."""
    found: dict[str, Any] = {}
    for key in sorted(client.scan_iter(match="archive:{archive}:*rat*", count=1000)):
        kind = client.type(key).decode()
        name = key.decode()
        if kind == "hash":
            found[name] = client.hgetall(key)
        elif kind == "zset":
            found[name] = client.zrange(key, 0, -1, withscores=True)
        elif kind == "list":
            found[name] = client.lrange(key, 0, -1)
    for key in sorted(client.scan_iter(match="archive:{archive}:h2h:*", count=1000)):
        found[key.decode()] = client.hgetall(key)
    return found


def history_of(client: Any, rater: str) -> list[dict[str, Any]]:
    """``rater``'s Condottiere history entries, oldest first, rebuilt from the kept game records."""
    store = RatingStore(client)
    ids = store.history("condottiere", rater)
    records = store.records("condottiere", ids)
    return [model.history_entry(g, "condottiere", rater, r) for g, r in zip(ids, records, strict=True)]


# -- who is rated ----------------------------------------------------------------------------------
def _raters(**changes: Any) -> model.Raters:
    base: dict[str, Any] = {
        "seat_count": 3,
        "kinds": {0: "human", 1: "human", 2: "bot"},
        "bots": {0: "", 1: "", 2: "heuristic"},
        "accounts": {0: "acc0", 1: "acc1"},
        "result": {"winners": [1], "reason": "regions"},
        "prearranged": False,
        "imported": False,
        "events": [{"type": "game_started"}],
    }
    base.update(changes)
    return model.raters(**base)


def test_bound_seats_and_server_bots_are_rated_each_bot_level_as_one_pseudo_account():
    assert _raters().seats == ("acc0", "acc1", "bot:heuristic")


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"result": {"winners": [], "reason": "aborted", "rated": False}}, "unrated_result"),
        ({"prearranged": True}, "prearranged"),
        ({"imported": True}, "imported"),
        ({"minimum": 5, "played": {0: 5, 1: 4, 2: 9}}, "too_little_play"),
        ({"minimum": 1, "played": {}}, "too_little_play"),
        (
            {
                "events": [{"type": "seat_handed_to_bot", "seat": 1, "level": "random"}],
                "accounts": {0: "acc0"},
            },
            "anonymous_seat",
        ),
        ({"accounts": {0: "acc0"}}, "anonymous_seat"),
    ],
)
def test_games_that_must_not_count_are_not_rated(changes, reason):
    found = _raters(**changes)
    assert not found.rated and found.reason == reason


# -- the update ------------------------------------------------------------------------------------
def test_a_seat_handed_to_a_bot_is_rated_as_its_account_in_last_place_and_the_game_counts():
    """Board Game Arena's rule: leaving (too many timeouts, account deleted) is last place."""
    handed = [{"type": "game_started"}, {"type": "seat_handed_to_bot", "seat": 1, "level": "random"}]
    found = _raters(events=handed, kinds={0: "human", 1: "bot", 2: "bot"}, bots={1: "random", 2: "heuristic"})
    assert found.rated and found.seats == ("acc0", "acc1", "bot:heuristic") and found.left == {1}
    # the bot that took seat 1 won, yet the seat that left is last and the others rank above it
    assert model.ranks_of(3, [1], found.left) == [2, 3, 2]
    after = model.rate(found.seats, {}, [1], found.left)
    assert after["acc1"].mu < after["acc0"].mu and after["acc1"].mu < model.DEFAULT_MU
    deleted = _raters(events=handed, accounts={0: "acc0"}, deleted={1: True})
    assert deleted.rated and deleted.seats == ("acc0", "gone:1", "bot:heuristic")
    assert model.head_to_head(deleted.seats, [1], deleted.left) == {("acc0", "bot:heuristic"): (0, 0)}


def test_a_leaver_s_decisions_are_counted_only_before_it_left():
    """The minimum of play: Condottiere's own count (RatingHooks.rated_decisions) of a played log."""
    rng = random.Random(5)
    config = GAME.configure({"players": 2, "seed": 5})
    events, _ = play_out(GAME, config, rng)
    minimum, played = model.play_counted(GAME, config, events)
    assert minimum == GAME.rated_decisions(config) >= 1 and min(played.values()) >= minimum
    first = next(index for index, seat, _ in GAME.decisions(events) if seat == 1)
    handed = [*events[:first], {"type": "seat_handed_to_bot", "v": 1, "seat": 1, "level": "random"}]
    handed += events[first:]
    _, counted = model.play_counted(GAME, config, handed)
    assert counted.get(1, 0) == 0 and counted[0] >= minimum


def test_the_winner_gains_and_losers_who_tie_by_equal_rank_change_alike():
    after = model.rate(["a", "b", "c"], {}, winners=[0])
    assert after["a"].mu > model.DEFAULT_MU > after["b"].mu
    assert after["b"] == after["c"]  # equal ranks, equal priors: the same change
    assert all(r.games == 1 and r.sigma < model.DEFAULT_SIGMA for r in after.values())


def test_two_seats_of_one_bot_level_add_their_evidence():
    together = model.rate(["bot:random", "bot:random", "x"], {}, winners=[2])
    alone = model.rate(["bot:random", "y", "x"], {}, winners=[2])
    loss = alone["bot:random"].mu - model.DEFAULT_MU
    assert together["bot:random"].mu - model.DEFAULT_MU == pytest.approx(2 * loss, rel=0.2)
    assert together["bot:random"].sigma < alone["bot:random"].sigma
    assert together["bot:random"].games == 1


def test_predict_win_favours_the_higher_rating_and_sums_to_one():
    chances = model.predict_win([Rating(30, 2), Rating(25, 2), Rating(20, 2)])
    assert chances[0] > chances[1] > chances[2] and sum(chances) == pytest.approx(1)


# -- in the archive, once ----------------------------------------------------------------------------
def test_a_rated_game_entering_the_archive_updates_every_seat_with_its_history(redis_client):
    log = store_finished(
        redis_client,
        "g1",
        [("account", "a1"), ("account", "a2"), ("bot", "random")],
        1,
        "2026-11-01T12:00:00Z",
    )
    added, _ = enter_archive(Archive(redis_client), log)
    assert added
    store = RatingStore(redis_client)
    stored = store.ratings("condottiere", ["a1", "a2", "bot:random"])
    assert {r: s.games for r, s in stored.items()} == {"a1": 1, "a2": 1, "bot:random": 1}
    winners = log.result["winners"]
    expected = model.rate(["a1", "a2", "bot:random"], {}, winners)
    assert stored["a1"].mu == expected["a1"].mu and stored["a1"].sigma == expected["a1"].sigma
    (entry,) = history_of(redis_client, "a1")
    assert entry["game_id"] == "g1" and entry["before"]["games"] == 0 and entry["after"]["games"] == 1
    assert sorted(o["rater"] for o in entry["against"]) == ["a2", "bot:random"]
    board = dict(store.board("condottiere", 10))
    assert board["a1"] == pytest.approx(expected["a1"].ordinal)


def test_retrying_the_archive_step_never_rates_a_game_twice(redis_client):
    """The follow-up, the janitor and the verify job may all enter one game: it is rated once."""
    archive = Archive(redis_client)
    log = store_finished(
        redis_client,
        "g2",
        [("account", "a1"), ("account", "a2"), ("account", "a3")],
        2,
        "2026-11-01T12:00:00Z",
    )
    assert enter_archive(archive, log)[0]
    once = snapshot_of_ratings(redis_client)
    for _ in range(3):
        assert enter_archive(archive, load_log(redis_client, "g2"))[0] is False
    assert snapshot_of_ratings(redis_client) == once
    assert RatingStore(redis_client).ratings("condottiere", ["a1"])["a1"].games == 1


def test_an_update_computed_from_ratings_that_moved_writes_nothing(redis_client):
    """Compare-and-set: a game computed against a1's rating before another game of a1 entered is
    refused whole (not entered, not counted), and entering it again recomputes from the new rating."""
    archive = Archive(redis_client)
    first = store_finished(
        redis_client,
        "g3",
        [("account", "a1"), ("account", "a2"), ("account", "a3")],
        3,
        "2026-11-01T12:00:00Z",
    )
    second = store_finished(
        redis_client,
        "g4",
        [("account", "a1"), ("account", "a4"), ("account", "a5")],
        4,
        "2026-11-01T12:05:00Z",
    )
    stale = service_ratings.rating_write(second, {})  # computed before g3 entered
    enter_archive(archive, first)
    before = snapshot_of_ratings(redis_client)
    from service.summaries import index_entry, summary_of

    with pytest.raises(RatingsMoved):
        archive.enter(index_entry(summary_of(second)), (), stale)
    assert snapshot_of_ratings(redis_client) == before and archive.record("g4") is None
    assert enter_archive(archive, second)[0]
    (entry,) = history_of(redis_client, "a1")[1:]
    assert entry["before"]["games"] == 1  # rated from the rating g3 left


def test_unrated_games_enter_the_archive_without_touching_any_rating(redis_client):
    archive = Archive(redis_client)
    anonymous = store_finished(
        redis_client,
        "g5",
        [("account", "a1"), ("account", None), ("bot", "random")],
        5,
        "2026-11-01T12:00:00Z",
    )
    prearranged = store_finished(
        redis_client,
        "g6",
        [("account", "a1"), ("account", "a2"), ("bot", "random")],
        6,
        "2026-11-01T12:00:00Z",
        prearranged="true",
    )
    assert enter_archive(archive, anonymous)[0] and enter_archive(archive, prearranged)[0]
    assert snapshot_of_ratings(redis_client) == {}


def test_the_recount_rebuilds_the_same_figures_as_the_incremental_updates(redis_client):
    ids = fill(redis_client, 30)
    incremental = snapshot_of_ratings(redis_client)
    assert service_ratings.recount(Archive(redis_client), "condottiere") == len(ids)
    assert snapshot_of_ratings(redis_client) == incremental
    # and it does rebuild: a damaged rating comes back
    redis_client.hset("archive:{archive}:rating:condottiere:a1", "mu", "99")
    service_ratings.recount(Archive(redis_client), "condottiere")
    assert snapshot_of_ratings(redis_client) == incremental


def test_head_to_head_counts_who_finished_ahead(redis_client):
    fill(redis_client, 20)
    store = RatingStore(redis_client)
    together = store.head_to_head("condottiere", "a1", "a2")
    reverse = store.head_to_head("condottiere", "a2", "a1")
    assert together["games"] == reverse["games"] > 0
    assert together["first_ahead"] == reverse["second_ahead"]
    # computed from the histories: games where both sat, and a1's rank below a2's
    history = history_of(redis_client, "a1")
    both = [e for e in history if any(o["rater"] == "a2" for o in e["against"])]
    ahead = [e for e in both if e["rank"] < next(o["rank"] for o in e["against"] if o["rater"] == "a2")]
    assert together["games"] == len(both) and together["first_ahead"] == len(ahead)


def test_a_game_whose_player_was_rated_meanwhile_is_rated_again_from_the_new_rating(
    redis_client, monkeypatch
):
    """The race: g8's entry reads a1's rating, then g7 (a1's other game) enters before g8's script.
    The script refuses g8 (compare-and-set), enter_rated reads again and rates it from g7's result."""
    archive = Archive(redis_client)
    g7 = store_finished(
        redis_client,
        "g7",
        [("account", "a1"), ("account", "a2"), ("account", "a3")],
        7,
        "2026-11-01T12:00:00Z",
    )
    g8 = store_finished(
        redis_client,
        "g8",
        [("account", "a1"), ("account", "a4"), ("account", "a5")],
        8,
        "2026-11-01T12:01:00Z",
    )
    real = RatingStore.ratings
    reads = []

    def racing(self, game, raters):
        found = real(self, game, raters)
        reads.append(found)
        if len(reads) == 1:  # between g8's read and its script, g7 enters
            monkeypatch.setattr(RatingStore, "ratings", real)
            enter_archive(archive, g7)
            monkeypatch.setattr(RatingStore, "ratings", racing)
        return found

    monkeypatch.setattr(RatingStore, "ratings", racing)
    assert enter_archive(archive, g8)[0]
    assert len(reads) == 2 and "a1" not in reads[0] and reads[1]["a1"].games == 1
    first, second = history_of(redis_client, "a1")
    assert (first["game_id"], second["game_id"]) == ("g7", "g8")
    assert second["before"] == first["after"]
    assert RatingStore(redis_client).ratings("condottiere", ["a1"])["a1"].games == 2
