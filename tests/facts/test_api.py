"""The statistics routes under the archive's filters, the decision explorer and the Parquet download
(api/stats.py): answered at once (200), bad filters refused with stable codes, nothing matched
answered empty, the download opened by DuckDB and pandas."""

from __future__ import annotations

import io

import duckdb
import pytest

from tests.facts.played import play_games


@pytest.fixture()
def played(svc, facts_dir):
    return play_games(svc, "condottiere", 3, seed=11, names=lambda i: ["Ann", f"Bot{i}"])


def test_filtered_global_statistics_answer_at_once(client, played):
    answer = client.get("/v1/stats/global?game=condottiere&player=ann")
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["games"] == 3 and body["filters"] == {"player": ["ann"]}
    assert sum(row["games"] for row in body["win_rate_by_seat"].values()) == 6
    assert client.get("/v1/stats/global?game=condottiere&player=Nobody").get_json()["games"] == 0
    assert client.get("/v1/stats/global?game=condottiere").status_code in (200, 202)  # no filter: the job


def test_filtered_player_statistics(client, played):
    body = client.get("/v1/stats/players/ANN?game=condottiere&players=2").get_json()
    assert body["games"] == 3 and body["name"] == "Ann"
    empty = client.get("/v1/stats/players/Ann?game=condottiere&players=5")
    assert empty.status_code == 200 and empty.get_json()["games"] == 0


@pytest.mark.parametrize(
    "query, code",
    [
        ("colour=red", "UNKNOWN_FILTER"),
        ("finished_from=2026-03-01&finished_to=2026-02-01", "DATE_RANGE_BACKWARDS"),
        ("rating_min=-5000", "RATING_BAND_OUT_OF_RANGE"),
        ("rating_min=30&rating_max=10", "RATING_BAND_OUT_OF_RANGE"),
    ],
)
def test_bad_filters_are_422_problems_with_stable_codes(client, facts_dir, query, code):
    for path in (
        "/v1/stats/global?game=condottiere&",
        "/v1/stats/condottiere/explorer?situation=opening_card&",
    ):
        answer = client.get(path + query)
        assert answer.status_code == 422, (path, answer.get_json())
        assert answer.content_type.startswith("application/problem+json")
        assert answer.get_json()["code"] == code


def test_the_explorer_lists_situations_and_counts_moves(client, played):
    listed = client.get("/v1/stats/condottiere/explorer").get_json()
    assert set(listed["situations"]) == {"first_battle_region", "opening_card", "hand_discard"}
    body = client.get("/v1/stats/condottiere/explorer?situation=first_battle_region&player=Ann").get_json()
    assert body["decisions"] == 3
    moves = [move for context in body["contexts"] for move in context["moves"]]
    assert sum(move["count"] for move in moves) == 3
    for move in moves:
        assert 1 <= len(move["examples"]) <= 3 and set(move["examples"]) <= set(played)
        assert move["wins"] <= move["count"] and 1 <= move["mean_placement"] <= 2
    refused = client.get("/v1/stats/condottiere/explorer?situation=castles")
    assert refused.status_code == 422 and refused.get_json()["code"] == "UNKNOWN_SITUATION"
    nothing = client.get("/v1/stats/condottiere/explorer?situation=opening_card&table=bots").get_json()
    assert nothing["decisions"] == 0 and nothing["contexts"] == []


def test_a_game_without_the_hook_has_no_situation_but_general_figures(client, svc, facts_dir):
    listed = client.get("/v1/stats/toy/explorer")
    assert listed.status_code == 200 and listed.get_json()["situations"] == {}
    refused = client.get("/v1/stats/toy/explorer?situation=anything")
    assert refused.get_json()["code"] == "UNKNOWN_SITUATION"


def test_the_download_is_parquet_that_duckdb_and_pandas_open(client, played):
    pandas = pytest.importorskip("pandas")
    answer = client.get("/v1/stats/condottiere/facts/seats.parquet")
    assert answer.status_code == 200 and answer.content_type == "application/vnd.apache.parquet"
    frame = pandas.read_parquet(io.BytesIO(answer.data))
    assert len(frame) == 6 and set(frame["name"]) == {"Ann", "Bot0", "Bot1", "Bot2"}
    data = answer.data
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM read_parquet(?)", [_write(data)])
    assert con.execute("SELECT count(DISTINCT game_id) FROM t").fetchone()[0] == 3
    assert client.get("/v1/stats/condottiere/facts/hands.parquet").status_code == 404
    assert client.get("/v1/stats/condottiere/facts/games.parquet?month=soon").status_code == 422


def _write(data: bytes) -> str:
    import tempfile

    handle = tempfile.NamedTemporaryFile(suffix=".parquet", delete=False)
    handle.write(data)
    handle.close()
    return handle.name


def test_the_archive_takes_the_same_grammar(client, played):
    """The archive's search: the statistics' filters (tables, rating bands) and codes too."""
    humans = client.get("/v1/archive?table=humans&limit=2").get_json()
    assert len(humans["games"]) == 2 and humans["next_cursor"]
    rest = client.get(f"/v1/archive?table=humans&limit=2&cursor={humans['next_cursor']}").get_json()
    assert [g["id"] for g in humans["games"] + rest["games"]] == list(reversed(played))
    assert rest["next_cursor"] is None
    assert client.get("/v1/archive?table=bots").get_json()["games"] == []
    assert client.get("/v1/archive?rating_min=0").get_json()["games"] == []  # nobody rated
    refused = client.get("/v1/archive?colour=red")
    assert refused.status_code == 422 and refused.get_json()["code"] == "UNKNOWN_FILTER"
    backwards = client.get("/v1/archive?finished_from=2026-02-01&finished_to=2026-01-01")
    assert backwards.get_json()["code"] == "DATE_RANGE_BACKWARDS"
    bad = client.get("/v1/archive?table=humans&cursor=nonsense")
    assert bad.get_json()["code"] == "INVALID_CURSOR"


def test_a_handle_as_player_means_that_accounts_seats_in_the_search_and_the_statistics(client, svc, played):
    """A ``player`` name that is an account's handle finds that account's seats only, whichever
    path answers: the archive's own search, its search under the analytical store's filters
    (``table``), and the filtered statistics. The anonymous seats named Ann of ``played`` came
    before the handle was taken."""
    from tests.api.test_accounts import sign_up

    assert sign_up(client, "Ann", "correct horse").status_code == 201
    account = client.application.extensions["account_service"].account_id_of("Ann")
    # Another anonymous Ann after the handle was taken (the service does not refuse the name; the
    # API does), then the account's own seat.
    [other] = play_games(svc, "condottiere", 1, seed=12, names=lambda i: ["Ann", "Cy"])
    [game_id] = play_games(
        svc, "condottiere", 1, seed=13, names=lambda i: ["Ann", "Cy"], accounts=lambda i: [account, None]
    )
    assert [g["id"] for g in client.get("/v1/archive?player=Ann").get_json()["games"]] == [game_id]
    humans = client.get("/v1/archive?player=Ann&table=humans").get_json()["games"]
    assert [g["id"] for g in humans] == [game_id]
    body = client.get("/v1/stats/global?game=condottiere&player=Ann").get_json()
    assert body["games"] == 1 and body["filters"] == {"player": ["Ann"]}, body
    # A name no account holds still finds every seat of that name.
    assert client.get("/v1/stats/global?game=condottiere&player=Cy").get_json()["games"] == 2
    assert other in {g["id"] for g in client.get("/v1/archive?player=Cy&table=humans").get_json()["games"]}
