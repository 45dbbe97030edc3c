"""The command-line client against a live test server (werkzeug thread + real RQ bot worker on the
private Redis): create, join, play a full game with scripted stdin, watch (SSE), simulate, export
and import. And the display on constructed views."""

from __future__ import annotations

import io
import json
import threading

from cli.client import ApiClient, parse_sse
from cli.display import text_for
from cli.main import main
from cli.options import parse_bots
from games.condottiere.text import describe_event, describe_move, render_view
from tests.bots.live import first_shown, run, run_answering
from tests.bots.views import make_view

# -- display on constructed views -----------------------------------------------------------------


def test_bat_8_display_shows_map_lines_strengths_hand_and_numbered_moves():
    """BAT-8: every battle line with its strength; the map with owners; the viewer's hand; the
    legal moves numbered in order."""
    view = make_view(
        hand=["m10", "heroine", "m1"],
        owners={"Milano": 0, "Roma": 2},
        region="Torino",
        lines={0: ["m5"], 1: ["m6", {"card": None, "face_down": True}], 2: [], 3: []},
        passed={3},
        pope="Napoli",
    )
    view["players"][0]["strength"] = 5
    view["players"][1]["strength"] = 6
    text = render_view(view, {0: "Ann", 1: "heuristic bot"})
    assert "Milano  [0]" in text and "Roma    [2]" in text and "Torino  [ ]" in text
    assert "*" in text.split("Torino")[0].splitlines()[-1]  # the battle marker is on Torino
    assert "PNapoli" in text
    assert "0 Ann (you)" in text and "1 heuristic bot" in text
    assert "strength 5 " in text and "line: 5" in text
    assert "line: 6 [face down]" in text
    assert "[passed]" in text
    assert "Your hand: 1 10 Heroine" in text
    assert (
        " 1) play Heroine" in text and " 2) play 1" in text and " 3) play 10" in text and " 4) pass" in text
    )
    assert "In the battle for Torino; to play: 0 Ann." in text
    view["last_battle"] = {"region": "Roma", "winner": 2, "strengths": [3, 0, 12, 1], "cause": "surrender"}
    assert "Last battle: Roma, seat 2 won (surrender); strengths by seat 3, 0, 12, 1." in render_view(view)


def test_opt_hid_4_display_shows_own_face_down_card_and_true_strength():
    """OPT-HID-4: the owner sees his face-down card and both strengths."""
    view = make_view(
        options={"hidden_cards": True}, hand=["m1"], lines={0: [{"card": "m10", "face_down": True}]}
    )
    view["players"][0]["strength"] = 0
    view["players"][0]["true_strength"] = 10
    text = render_view(view)
    assert "10 (face down)" in text
    assert "0 shown, 10 true" in text
    assert "options: hidden_cards" in text


def test_display_move_and_event_descriptions():
    """SCA-1, BIS-2, END-7, RND-2, CL-5: every kind of command reads as a sentence; an event reads
    as the engine's own sentence for it (games/condottiere/annotate.py, the one table)."""
    assert (
        describe_move({"type": "play", "card": "scarecrow", "take_back": "m5"})
        == "play Scarecrow, take back 5"
    )
    assert (
        describe_move({"type": "play", "card": "bishop", "pope": None}) == "play Bishop, Pope off the board"
    )
    assert describe_move({"type": "discard_hand", "discard": True}) == "discard your whole hand"
    assert describe_move({"type": "keep_cards", "cards": ["m10", "heroine"]}) == "keep 10, Heroine"
    assert describe_move({"type": "decline_token"}).startswith("decline the token")
    assert (
        describe_event({"type": "card_played", "seat": 1, "card": None, "face_down": True})
        == "seat 1 plays a face-down card."
    )
    assert (
        describe_event(
            {
                "type": "battle_ended",
                "region": "Roma",
                "strengths": [3, 9],
                "winner": 1,
                "cause": "all_passed",
            }
        )
        == "The battle for Roma ends: strengths seat 0: 3, seat 1: 9; seat 1 wins."
    )


def test_parse_sse_handles_ids_events_comments_and_multiline_data():
    lines = [
        ": hello",
        "retry: 3000",
        "",
        "id: 4",
        'data: {"version": 4,',
        'data: "event": {}}',
        "",
        "event: end",
        'data: {"status": "finished"}',
        "",
    ]
    items = list(parse_sse(iter(lines)))
    assert [(i.event, i.id) for i in items] == [("comment", None), ("message", "4"), ("end", "4")]
    assert items[1].data == {"version": 4, "event": {}}


def test_an_answer_that_is_not_a_json_object_is_refused_like_one_that_is_not_json():
    """Every route the client reads answers a JSON object; a list or a number (a proxy's page, a
    broken server) is a ValueError, as a body that is not JSON is, which main() reports (exit 2)
    instead of a TypeError from indexing into it."""
    import pytest
    import requests

    class OneAnswer:
        def __init__(self, body: bytes) -> None:
            self.body = body

        def request(self, method, url, **kwargs):
            response = requests.Response()
            response.status_code, response._content, response.url = 200, self.body, url
            return response

    assert ApiClient("http://server", session=OneAnswer(b'{"id": "g"}')).game("g") == {"id": "g"}
    for body in (b"[1, 2]", b"3", b"<html>"):
        with pytest.raises(ValueError):
            ApiClient("http://server", session=OneAnswer(body)).game("g")


def test_parse_bots_forms():
    assert parse_bots("heuristic", 4) == {1: "heuristic", 2: "heuristic", 3: "heuristic"}
    assert parse_bots("heuristic,random", 4) == {1: "heuristic", 2: "random"}
    assert parse_bots("0=random,3=heuristic", 4) == {0: "random", 3: "heuristic"}


# -- against the live server ----------------------------------------------------------------------


def test_play_a_full_game_in_the_terminal_against_bots_with_scripted_input(live):
    """SET-4, BAT-3, VIC-1: a human plays a whole game from the terminal by typing move numbers
    (always the first entry of the menu shown) against three heuristic bots played by the RQ
    worker; the game ends and the final board is shown."""
    code, text = run_answering(
        [
            "--server",
            live.url,
            "play",
            "--players",
            "4",
            "--seed",
            "3",
            "--name",
            "Ann",
            "--bots",
            "heuristic",
        ],
        first_shown,
    )
    assert code == 0, text[-3000:]
    assert "Your move [1-" in text
    assert "Game over" in text
    assert "Map (owner seat in brackets" in text
    assert "heuristic bot" in text
    assert "Your move [1-1]" not in text  # nobody is asked to pick 1 of 1 (RL-12)


def test_play_rejects_bad_input_and_quits_on_q(live):
    """A wrong number re-prompts; 'q' leaves with the resume command."""
    code, text = run(
        ["--server", live.url, "play", "--players", "3", "--seed", "4", "--bots", "random"],
        stdin_lines=["99\n", "abc\n", "q\n"],
    )
    assert code == 1
    assert text.count("Please type one of the numbers shown") == 2
    assert "Resume with: condottiere play" in text


def test_new_join_and_auto_play_with_options(live):
    """OPT-CAP-1, OPT-HID-1, CL-5: a classic game with capturing created with 'new', the human seat
    claimed with 'join', then played to the end by 'play --auto heuristic'."""
    code, text = run(
        [
            "--server",
            live.url,
            "new",
            "--players",
            "3",
            "--ruleset",
            "classic",
            "--capturing",
            "--bots",
            "1=random,2=heuristic",
            "--seed",
            "9",
            "--quiet",
        ]
    )
    assert code == 0
    game_id = text.strip()
    code, text = run(["--server", live.url, "join", game_id, "--name", "Bea"])
    assert code == 0
    token = text.split("token ")[1].split()[0]
    code, text = run(
        ["--server", live.url, "play", game_id, "--token", token, "--auto", "heuristic", "--quiet"]
    )
    assert code == 0, text[-2000:]
    assert "Game over" in text
    code, text = run(["--server", live.url, "show", game_id])
    assert code == 0 and "finished" in text and "Bea (human)" in text
    summary = ApiClient(live.url).game(game_id)
    assert summary["config"]["ruleset"] == "classic"
    assert summary["config"]["options"]["capturing"] is True


def test_watch_follows_an_all_bot_game_live_to_the_end(live):
    """The watch command follows the SSE stream while the worker plays an all-bot game."""
    code, text = run(
        [
            "--server",
            live.url,
            "new",
            "--players",
            "4",
            "--bots",
            "heuristic",
            "--all-bots",
            "--seed",
            "12",
            "--quiet",
        ]
    )
    game_id = text.strip()
    result = {}

    def watch():
        result["code"], result["text"] = run(["--server", live.url, "watch", game_id, "--board"])

    thread = threading.Thread(target=watch)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert result["code"] == 0
    assert "places the Condottiere token" in result["text"]
    assert "Game over at version" in result["text"]
    # The spectator never sees a dealt hand while watching.
    assert "is dealt 10 cards:" not in result["text"]


def test_simulate_in_process_and_over_http(live):
    """The simulate command: in-process, through the API with client-side bots, and with the
    server's bot seats."""
    code, text = run(["--server", live.url, "simulate", "--games", "8", "--seed", "1"])
    assert code == 0 and "8 games" in text and "heuristic" in text
    code, text = run(
        [
            "--server",
            live.url,
            "simulate",
            "--games",
            "3",
            "--http",
            "--players",
            "3",
            "--lineup",
            "heuristic,random,random",
            "--concurrency",
            "3",
        ]
    )
    assert code == 0, text
    assert "3 games" in text
    code, text = run(
        [
            "--server",
            live.url,
            "simulate",
            "--games",
            "2",
            "--server-bots",
            "--players",
            "2",
            "--lineup",
            "heuristic,random",
        ]
    )
    assert code == 0, text
    assert "2 games" in text


def test_export_and_import_a_finished_game(live, tmp_path, monkeypatch):
    """A finished game's log is exported to a file (through the server's export job) and imported
    back into the archive."""

    def no_fallback(*args, **kwargs):
        raise AssertionError("the export job did not answer: the local fallback was used")

    monkeypatch.setattr(ApiClient, "_local_log", no_fallback)
    code, text = run(
        [
            "--server",
            live.url,
            "new",
            "--players",
            "2",
            "--bots",
            "random",
            "--all-bots",
            "--seed",
            "5",
            "--quiet",
        ]
    )
    game_id = text.strip()
    client = ApiClient(live.url)
    for item in client.stream(game_id):
        if item.event == "end":
            break
    target = tmp_path / "game.json"
    code, text = run(["--server", live.url, "export", game_id, "-o", str(target), "--wait", "30"])
    assert code == 0, text
    document = json.loads(target.read_text())
    assert document["format"] == "game-log" and document["events"]
    code, text = run(["--server", live.url, "import", str(target)])
    assert code == 0, text
    imported = text.split("game ")[1].strip()
    assert client.game(imported)["status"] == "finished"
    assert client.game(imported)["version"] == len(document["events"])


def test_api_errors_are_reported_not_raised(live, capsys):
    code, _ = run(["--server", live.url, "show", "0000000000000000000z"])
    assert code == 2
    assert "HTTP 404" in capsys.readouterr().err


def test_bis_2_sca_1_menu_groups_a_cards_sub_choices():
    """BIS-2, SCA-1: the Bishop's 18 Pope choices are one entry of the menu and a second question,
    so the first menu stays short; the answer is the exact legal move."""
    from cli.play import ask_move

    moves = [{"type": "play", "card": "bishop", "pope": p} for p in (None, "Roma", "Napoli")]
    moves += [{"type": "play", "card": "scarecrow", "take_back": t} for t in (None, "m5")]
    moves += [{"type": "play", "card": "m1"}, {"type": "pass"}]
    view = make_view(hand=["bishop", "scarecrow", "m1"], lines={0: ["m5"]}, legal_moves=moves)
    out = io.StringIO()
    answers = iter(["1\n", "3\n"])
    assert ask_move(view, lambda: next(answers, ""), out, text_for("condottiere")) == {
        "type": "play",
        "card": "bishop",
        "pope": "Napoli",
    }
    menu = out.getvalue()
    assert "1) play Bishop (then choose where the Pope goes)" in menu
    assert "2) play Scarecrow (then choose what to take back)" in menu
    assert "4) pass" in menu
    assert "3) play Bishop, Pope to Napoli" in menu
    answers = iter(["2\n", "2\n"])
    assert ask_move(view, lambda: next(answers, ""), io.StringIO(), text_for("condottiere")) == {
        "type": "play",
        "card": "scarecrow",
        "take_back": "m5",
    }


def test_simulate_in_process_games_into_the_archive(live):
    """In-process simulated games are imported into the server's archive (the import route replays
    and verifies each log)."""
    client = ApiClient(live.url)
    before = len(client.request("GET", "/v1/archive", params={"limit": 100}).json()["games"])
    code, text = run(
        [
            "--server",
            live.url,
            "simulate",
            "--games",
            "2",
            "--players",
            "3",
            "--lineup",
            "heuristic,random,random",
            "--archive",
            "--seed",
            "3",
        ]
    )
    assert code == 0, text
    assert "2 games imported into the archive" in text
    games = client.request("GET", "/v1/archive", params={"limit": 100}).json()["games"]
    imported = [g for g in games if g["imported"]]
    assert len(games) - before >= 2 and len(imported) >= 2
    assert {"heuristic bot", "random bot"} <= set(imported[0]["players"])


def test_join_a_bot_into_an_open_game(live):
    """A seat claimed for a bot after creation ({"bot": "random"}) is played like one given at
    creation: the human's auto-played game reaches its end."""
    code, text = run(["--server", live.url, "new", "--players", "2", "--seed", "17", "--quiet"])
    game_id = text.strip()
    code, text = run(["--server", live.url, "join", game_id, "--bot", "random", "--seat", "1"])
    assert code == 0 and "seat 1 is now a random bot" in text
    code, text = run(["--server", live.url, "join", game_id, "--name", "Cid"])
    token = text.split("token ")[1].split()[0]
    code, text = run(["--server", live.url, "play", game_id, "--token", token, "--auto", "random", "--quiet"])
    assert code == 0 and "Game over" in text


def test_export_without_archive_routes_builds_the_log_from_events(live, monkeypatch):
    """A server without the export route (404): the client builds the same exchange document from
    the events it may see; a finished game's log is complete and importable."""
    from cli.client import ApiError

    code, text = run(
        [
            "--server",
            live.url,
            "new",
            "--players",
            "2",
            "--bots",
            "random",
            "--all-bots",
            "--seed",
            "8",
            "--quiet",
        ]
    )
    game_id = text.strip()
    client = ApiClient(live.url)
    for item in client.stream(game_id):
        if item.event == "end":
            break
    real_request = ApiClient.request

    def no_exports(self, method, path, **kwargs):
        if path.endswith("/exports"):
            raise ApiError(404, {"code": "NOT_FOUND"})
        return real_request(self, method, path, **kwargs)

    monkeypatch.setattr(ApiClient, "request", no_exports)
    document = client.export_log(game_id)
    assert document["format"] == "game-log" and "redacted_for" not in document
    assert len(document["events"]) == client.game(game_id)["version"]
    monkeypatch.setattr(ApiClient, "request", real_request)
    assert client.import_log(document)["game"]["imported"] is True


def test_play_waits_for_an_open_game_to_start(live):
    """SET-1: a player who joins first waits (over SSE) until the last seat is claimed, then plays;
    the names of seats claimed later are shown."""
    client = ApiClient(live.url)
    game_id = client.create_game({"players": 2, "seed": 23})["id"]
    token = client.claim_seat(game_id, name="Dee", seat=0)["token"]
    result = {}

    def play():
        result["code"], result["text"] = run(
            ["--server", live.url, "play", game_id, "--token", token, "--auto", "random"]
        )

    thread = threading.Thread(target=play)
    thread.start()
    import time

    time.sleep(0.5)
    assert thread.is_alive()  # nothing to play yet: the game is open
    client.claim_seat(game_id, bot="heuristic", seat=1)
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert result["code"] == 0 and "Game over" in result["text"]
    assert "1 heuristic bot" in result["text"]


def test_token_resign_and_abort_commands(live):
    """The CLI rotates a seat token (the old one stops working), aborts (RL-X18) and resigns
    (RL-X17) through the API."""
    code, text = run(["--server", live.url, "new", "--players", "2", "--seed", "42", "--quiet"])
    game_id = text.strip()
    tokens = []
    for name in ("Ann", "Bob"):
        code, text = run(["--server", live.url, "join", game_id, "--name", name])
        tokens.append(text.split("token ")[1].split()[0])
    code, text = run(["--server", live.url, "token", game_id, "--token", tokens[0]])
    assert code == 0 and "The old token no longer works" in text
    new = text.split("token ")[1].split()[0]
    code, text = run(["--server", live.url, "resign", game_id, "--token", tokens[0]])
    assert code == 2  # the old token is refused
    code, text = run(["--server", live.url, "resign", game_id, "--token", new])
    assert code == 0 and "reason resigned, winners 1" in text

    code, text = run(["--server", live.url, "new", "--players", "2", "--seed", "42", "--quiet"])
    game_id = text.strip()
    code, text = run(["--server", live.url, "join", game_id, "--name", "Ann"])
    token = text.split("token ")[1].split()[0]
    run(["--server", live.url, "join", game_id, "--name", "Bob"])
    code, text = run(["--server", live.url, "abort", game_id, "--token", token])
    assert code == 0 and "reason aborted, winners nobody" in text


def test_show_prints_the_clock_of_a_timed_game(live):
    client = ApiClient(live.url)
    game_id = client.request(
        "POST",
        "/v1/games",
        json_body={
            "game": "condottiere",
            "config": {"players": 2, "seed": 42},
            "clock": {"move_seconds": 600},
        },
    ).json()["id"]
    client.claim_seat(game_id, name="Ann")
    client.claim_seat(game_id, name="Bob")
    code, text = run(["--server", live.url, "show", game_id])
    assert code == 0
    bob = next(line for line in text.splitlines() if "Bob" in line)
    assert "s left to move" in bob and "s left" not in next(
        line for line in text.splitlines() if "Ann" in line
    )


class _ForcedKeepServer:
    """Just enough of ApiClient for play_loop: seat 0 is asked at the hand discard (RL-12) while
    holding a Mercenary, so keeping is its only legal answer; the game ends after its answer."""

    KEEP = {"type": "discard_hand", "discard": False}

    def __init__(self):
        self.moves = []

    def game(self, game_id):
        return {"game": "condottiere", "seats": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}

    def view(self, game_id, token):
        if self.moves:
            return {"status": "finished", "version": 7, "seat": 0, "view": make_view(players=2, hand=["m1"])}
        view = make_view(players=2, phase="hand_discard", hand=["m1"], legal_moves=[self.KEEP], region=None)
        view["awaiting"] = [0, 1]
        return {"status": "active", "version": 6, "seat": 0, "view": view}

    def follow_views(self, game_id, token, read_timeout=None):
        # The view stream: the hand discard now, the finished game once the seat has answered.
        yield self.view(game_id, token)
        while not self.moves:
            yield None
        yield self.view(game_id, token)

    def all_events(self, game_id, token, after=0):
        return []

    def move(self, game_id, token, move, expected_version=None, minimal=False):
        self.moves.append(move)


def test_rl_12_the_cli_answers_keep_by_itself_when_it_is_the_only_legal_answer():
    """RL-12: every seat holding cards is asked at the hand discard; a seat holding a Mercenary may
    only keep, and the CLI answers that for its player instead of asking."""
    from cli.play import play_loop

    server = _ForcedKeepServer()
    out = io.StringIO()
    code = play_loop(server, "g", "t", out=out, read_line=lambda: "", quiet=True)
    assert code == 0, out.getvalue()
    assert server.moves == [_ForcedKeepServer.KEEP]
    assert "Your move [" not in out.getvalue()  # no prompt
    assert "Only one move is possible: keep your hand" in out.getvalue()


def test_import_says_under_which_rules_revision_the_log_is_replayed(live, tmp_path):
    """RL-12: `condottiere import` of a log recorded before rules revisions existed (revision 1, the
    hand discard before RL-12: tests/archive/revision_logs) imports it and says its revision."""
    from games import get_game
    from replays.export import export_log
    from tests.archive.test_rules_revisions import _load

    data = _load("condottiere-r1-rl12")
    game = get_game("condottiere")
    doc = export_log(game, data["events"], players=["A", "B", "C"], finished=True, result=data["result"])
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    code, text = run(["--server", live.url, "import", str(path)])
    assert code == 0, text
    assert text.startswith("Imported (rules revision 1) as game ")
    assert ApiClient(live.url).game(text.split("game ")[1].strip())["config"]["revision"] == 1


def test_a_configuration_the_game_refuses_is_told_in_one_line_with_exit_code_2(capsys):
    """RIO-SETUP-1 (3 to 5 players): ``simulate`` with a configuration the game's ``configure``
    refuses says so as ``condottiere: ...`` and exits 2, as every other bad input does (it was a
    traceback)."""
    code = main(["simulate", "--game", "rio_de_la_plata", "--players", "2", "--lineup", "random,random"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("condottiere: ") and "3 to 5 players" in err, err
    assert "Traceback" not in err
