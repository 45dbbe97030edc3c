"""The command-line client plays Rio de la Plata (issue 16): the text board drawn by the game's own
``games.base.TextHooks`` (city grid, tracks, stocks, the decision awaited), the two-step menu of legal
moves, a game played from the terminal against the server's bots over the public API, and the
simulator running Rio. Rule IDs: shared/rules/rio-de-la-plata.md."""

from __future__ import annotations

import io
import json
import random

from cli.client import ApiClient
from cli.display import text_for
from cli.play import ask_move
from games.base import SPECTATOR
from games.rio_de_la_plata import GAME
from tests.bots.live import first_shown, run, run_answering
from tests.rio_de_la_plata.helpers import new_game, play

TEXT = text_for("rio_de_la_plata")


def as_json(view):
    return json.loads(json.dumps(view))  # what the API sends: no tuples, string keys


def _grid_rows(text: str) -> dict[int, tuple[str, str, str]]:
    """Row y of the drawn city -> (the edge line above it, its building line, its people line)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("The city")) + 2
    rows = {}
    for i in range(start, len(lines) - 1):
        head = lines[i]
        if head[:3].strip().isdigit():
            rows[int(head[:3])] = (lines[i - 1], head, lines[i + 1])
        elif head and not head.startswith("    "):
            break
    return rows


def _column(line: str, x: int) -> str:
    """What the line shows in cell column x (a cell is 4 characters after its left edge)."""
    return line[5 + 5 * x : 5 + 5 * x + 4].strip()


def _left_edge(line: str, x: int) -> str:
    return line[4 + 5 * x : 5 + 5 * x] if len(line) > 4 + 5 * x else " "


def test_rio_city_3_text_board_draws_people_buildings_stocks_and_the_decision():
    """RIO-CITY-3, RIO-BUILD-1: after a person is placed on a start-zone cell and a hut is built
    there, the text board shows the hut (code and owner) and the person in that cell's column and
    row, each player's VP and stocks, the Plaza Mayor, and whose decision it is."""
    state, _ = new_game(players=3, seed=11)
    seat = state["order"][0]
    cell = next(m for m in GAME.legal_moves(state, seat) if m.get("space") == "cell")["cell"]
    state = play(state, seat, {"type": "place", "space": "cell", "cell": cell})
    view = as_json(GAME.view(state, SPECTATOR))
    text = TEXT.render_text(view, {seat: "Ann"})
    rows = _grid_rows(text)
    x, y = cell
    assert _column(rows[y][2], x) == str(seat)  # one person of this seat
    assert "::" in rows[4][1]  # the Plaza Mayor of the package's board (x 7-8, y 4-5)
    assert f"> {seat} Ann" in text  # awaited: the pointer is on the placing player
    assert "phase A: placing people" in text
    assert "Waiting for: " + f"{seat} Ann." in text
    # A hut of this seat on the cell: its code and owner in the building line.
    view["city"][f"{x},{y}"]["b"] = "hut"
    view["city"][f"{x},{y}"]["own"] = seat
    view["p"][seat]["silver"] = 17
    text = TEXT.render_text(view, {seat: "Ann"})
    assert _column(_grid_rows(text)[y][1], x) == f"Hu{seat}*"  # a hut in the start zone
    ann = next(line for line in text.splitlines() if f"{seat} Ann" in line and "17" in line)
    assert ann.split()[4] == "17"  # pointer, seat, name, VP, then silver


def test_rio_place_1_menu_offers_every_legal_move_once_and_keeps_the_first_menu_short():
    """RIO-PLACE-1, RIO-ACT-2, RIO-RL-69: over a random game, every legal move is in the menu exactly
    once (a placement on one of many cells, a major building's space, a battle group's destination
    are one entry and a second question), and the first menu never lists a move that has variants
    beside it (so it stays short even with fifty placements)."""
    state, _ = new_game(players=4, seed=3)
    rng = random.Random(3)
    longest = 0
    most_moves = 0
    kinds = set()
    while not GAME.is_over(state):
        seat = GAME.awaiting(state)[0]
        view = as_json(GAME.view(state, seat))
        menu = TEXT.move_menu(view["legal_moves"], view)
        flat = [option["move"] for entry in menu for option in entry.get("options") or [entry]]
        # ... and the undo the view names beside them (RIO-UNDO-2), once, only then.
        undo = [{"type": "undo"}] if "undo" in view else []
        assert sorted(map(json.dumps, flat)) == sorted(map(json.dumps, view["legal_moves"] + undo))
        for entry in menu:
            assert entry["label"] and all(o["label"] for o in entry.get("options") or [])
        longest = max(longest, len(menu))
        most_moves = max(most_moves, len(view["legal_moves"]))
        kinds.update(m["type"] for m in view["legal_moves"])
        state = play(state, seat, rng.choice(view["legal_moves"]))
    assert {"place", "build", "end_turn"} <= kinds
    assert most_moves > 40 and longest < most_moves / 2, (longest, most_moves)


def test_rio_ask_move_walks_a_two_step_menu_to_the_exact_legal_move():
    """RIO-CITY-3: choosing "place a person on a city cell" then the second cell answers exactly
    that legal placement."""
    state, _ = new_game(players=3, seed=5)
    seat = GAME.awaiting(state)[0]
    view = as_json(GAME.view(state, seat))
    cells = [m for m in view["legal_moves"] if m.get("space") == "cell"]
    menu = TEXT.move_menu(view["legal_moves"], view)
    entry = next(i for i, e in enumerate(menu) if "city cell" in e["label"])
    answers = iter([f"{entry + 1}\n", "2\n"])
    out = io.StringIO()
    assert ask_move(view, lambda: next(answers, ""), out, TEXT) == cells[1]
    assert "Which cell?" in out.getvalue()
    assert f"2) place a person on cell ({cells[1]['cell'][0]}, {cells[1]['cell'][1]})" in out.getvalue()


def test_a_game_without_text_hooks_is_shown_as_json():
    generic = text_for("no_such_game")
    assert json.loads(generic.render_text({"a": 1, "awaiting": [0]}).split("\nWaiting")[0]) == {
        "a": 1,
        "awaiting": [0],
    }
    assert generic.move_menu([{"type": "x", "n": 1}]) == [
        {"label": '{"n": 1, "type": "x"}', "move": {"type": "x", "n": 1}}
    ]


# -- against the live server ----------------------------------------------------------------------


def test_rio_play_from_the_terminal_against_server_bots(live):
    """RIO-PLACE-1, RIO-ACT-2: `condottiere play --game rio_de_la_plata` creates a Rio game with two
    random bots (played by the RQ worker), shows the text board and the numbered menu, and the moves
    typed (always the first entry shown, then its first variant) reach the server as the seat's
    moves; when the input ends the client leaves with the resume command."""
    code, text = run_answering(
        [
            "--server",
            live.url,
            "play",
            "--game",
            "rio_de_la_plata",
            "--players",
            "3",
            "--seed",
            "7",
            "--name",
            "Ann",
            "--bots",
            "random",
        ],
        first_shown,
        limit=60,
    )
    assert code == 1, text[-3000:]
    assert "Rio de la Plata, 3 players: year 1580" in text
    assert "The city (a.. districts" in text and "Your move [1-" in text
    assert "Which cell?" in text  # the two-step menu was used
    game_id = text.split("Game ")[1].split(":")[0]
    client = ApiClient(live.url)
    summary = client.game(game_id)
    assert summary["game"] == "rio_de_la_plata"
    mine = [e["event"] for e in client.all_events(game_id) if e["event"].get("seat") == 0]
    assert sum(1 for e in mine if e["type"] == "placed") >= 3
    assert any(e["type"] == "turn_ended" for e in mine)
    assert "Resume with: condottiere play" in text

    code, shown = run(["--server", live.url, "show", game_id])
    assert code == 0 and "Rio de la Plata, 3 players" in shown and "random bot" in shown


def test_rio_simulate_in_process(live):
    """The simulator runs Rio de la Plata games in-process between the game's bots."""
    code, text = run(
        [
            "--server",
            live.url,
            "simulate",
            "--game",
            "rio_de_la_plata",
            "--games",
            "2",
            "--players",
            "3",
            "--lineup",
            "heuristic,random,random",
            "--seed",
            "4",
        ]
    )
    assert code == 0, text
    assert "2 games" in text and "rio_de_la_plata" in text and "heuristic" in text


def test_the_client_waits_out_the_move_rate_limit_instead_of_failing(redis_server):
    """A Rio seat makes many small moves (one placement per command, RIO-PLACE-1), faster than a
    server's per-token move limit when a bot plays it: the client answers 429 by waiting the
    server's Retry-After and sending the same move again (a refused request changed nothing), so a
    simulated game is not lost to the limit (it was: `simulate --game rio_de_la_plata --http`)."""
    import threading

    from werkzeug.serving import make_server

    from api import create_app

    app = create_app(
        {
            "REDIS_URL": redis_server.url,
            "TESTING": True,
            "RATE_LIMITS_ENABLED": True,
            "RATE_LIMIT_MOVE": "3/second",
        }
    )
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        client = ApiClient(f"http://127.0.0.1:{http.server_port}")
        game_id = client.create_game({"players": 3, "seed": 2}, game="rio_de_la_plata")["id"]
        tokens = {s: client.claim_seat(game_id, name=f"P{s}", seat=s)["token"] for s in range(3)}
        refused_first = []
        real_request = client.session.request

        def counting(method, url, **kwargs):
            response = real_request(method, url, **kwargs)
            refused_first.append(response.status_code == 429)
            return response

        seat = client.view(game_id)["view"]["awaiting"][0]
        client.session.request = counting
        field = {"type": "place", "space": "field"}
        for _ in range(4):  # four people on the field, back to back: more than 3 moves in a second
            client.move(game_id, tokens[seat], field)
        assert any(refused_first), "the limit was never reached: the test proves nothing"
        assert client.view(game_id)["view"]["field"][seat] == 4
    finally:
        http.shutdown()
        app.extensions["game_service"].live.close()


# -- issue 28: what a person needs to read the table -------------------------------------------------


def _view_with_sections():
    state, _ = new_game(players=3, seed=11)
    state = state.copy()
    state["walls"] = ["0,0-1,0", "0,0-0,1"]  # the top and the left side of cell (0, 0)
    state["roads"] = ["2,3-2,4", "5,5-6,5"]  # the left side of (2, 3), the top of (5, 5)
    seat = GAME.awaiting(state)[0]
    return as_json(GAME.view(state, seat)), seat


def test_rio_wall_1_road_1_walls_and_roads_are_drawn_on_the_edges_where_they_stand():
    """RIO-WALL-1, RIO-ROAD-1, RIO-RL-56: each wall and road section is drawn on its cell edge (walls
    as = and #, roads as - and |) and listed by edge, not counted."""
    view, _ = _view_with_sections()
    text = TEXT.render_text(view)
    rows = _grid_rows(text)
    above0, top0, people0 = rows[0]
    assert _column(above0, 0) == "====" and above0[4] == "+"  # the wall on top of (0, 0)
    assert _left_edge(top0, 0) == "#" and _left_edge(people0, 0) == "#"
    assert _column(above0, 1) == "" and _left_edge(top0, 1) == " "
    _, top3, people3 = rows[3]
    assert _left_edge(top3, 2) == "|" and _left_edge(people3, 2) == "|"
    assert _column(rows[5][0], 5) == "----" and _column(rows[5][0], 6) == ""
    assert "Walls (2): between (0, 0) and (0, 1); between (0, 0) and (1, 0)." in text
    assert "Roads (2): between (2, 3) and (2, 4); between (5, 5) and (6, 5)." in text


def test_rio_city_3_start_zone_is_marked_and_codes_do_not_collide():
    """RIO-CITY-3, RIO-SETUP-7: start-zone cells carry a "*"; building codes (two letters, a capital
    first) can never be read as a district's letter (a hut of seat 0 was "h0" beside district h)."""
    view, _ = _view_with_sections()
    from games.rio_de_la_plata.board import default_board
    from games.rio_de_la_plata.text import CODES

    rows = _grid_rows(TEXT.render_text(view))
    for x, y in default_board().start_zone:
        assert _column(rows[y][1], x).endswith("*"), (x, y)
    assert _column(rows[0][1], 0) == "a"
    districts = {d.lower() for d in default_board().district.values()}
    assert all(len(code) == 2 and code[0].isupper() for code in CODES.values())
    assert all(len(d) == 1 and d.islower() for d in districts) and not districts & set(CODES.values())
    assert len(set(CODES.values())) == len(CODES)


def test_rio_major_1_char_3_build_1_menus_and_board_show_vp_costs_and_requirements():
    """RIO-MAJOR-1, RIO-CHAR-3, RIO-CHAR-7, RIO-BUILD-1: the board shows each major building space's
    VP; the menus show each space's VP, each character's price and VP requirement, and each minor
    building's people, resources, VP and site."""
    view, seat = _view_with_sections()
    text = TEXT.render_text(view)
    assert "walls      [2:. 2:.]" in text and "palace     [5:. 5:. 4:. 4:.]" in text
    assert "shipowner (8 silver, needs 15 VP)" in text
    menu = TEXT.move_menu(view["legal_moves"], view)
    options = {o["label"] for e in menu for o in e.get("options") or [e]}
    assert "place a person on the palace space 1 (5 VP)" in options
    assert "place a person on the walls space 2 (2 VP), paying 1 wood" in options
    assert "place a person on the governor (25 silver, needs 50 VP)" in options
    state, _ = new_game(players=3, seed=11)
    state = state.copy()
    state["step"], state["started"] = "B", True
    state["order"] = [seat] + [s for s in state["order"] if s != seat]
    state["turn"] = 0
    state["city"]["6,3"] = {
        "b": None,
        "own": None,
        "pool": None,
        "built": None,
        "uses": 0,
        "uy": 0,
        "ppl": [0, 0, 0],
    }
    state["city"]["6,3"]["ppl"][seat] = 1
    state["p"][seat].update(stone=5, wood=5)
    build_view = as_json(GAME.view(state, seat))
    labels = {
        o["label"]
        for e in TEXT.move_menu(build_view["legal_moves"], build_view)
        for o in e.get("options") or [e]
    }
    assert (
        "build a market on (6, 3): 1 person + 1 stone + 1 wood, 0 VP, on a cell without a building" in labels
    )
    assert (
        "build a church on (6, 3): 1 person + 2 stone + 1 wood, 3 VP, on a cell without a building" in labels
    )


def test_rio_menu_numbers_keep_their_meaning_between_two_moves_and_b_goes_back():
    """RIO-PLACE-1: the play loop's numbers stay with their entries: after a placement uses up the
    last free space of a major building (its entry leaves the menu), "end your turn" keeps its
    number and no other entry takes the freed one; from a second question, "b" returns to the first
    menu without quitting."""
    from cli.play import MenuNumbers

    state, _ = new_game(players=3, seed=5)
    seat = GAME.awaiting(state)[0]
    numbers = MenuNumbers()
    first = as_json(GAME.view(state, seat))
    before = {e["label"]: n for n, e in numbers.number(TEXT.move_menu(first["legal_moves"], first))}
    for index in (0, 1):
        state = play(
            state, seat, {"type": "place", "space": "major", "building": "roads", "grid": 0, "index": index}
        )
    second = as_json(GAME.view(state, seat))
    after = {e["label"]: n for n, e in numbers.number(TEXT.move_menu(second["legal_moves"], second))}
    roads = "place a person on the roads (choose the space)"
    assert roads in before and roads not in after
    assert after["end your turn"] == before["end your turn"]
    assert before[roads] not in after.values()
    assert all(before[label] == n for label, n in after.items() if label in before)

    view = as_json(GAME.view(new_game(players=3, seed=5)[0], seat))
    menu = TEXT.move_menu(view["legal_moves"], view)
    cells = next(i for i, e in enumerate(menu) if "city cell" in e["label"]) + 1
    end = next(i for i, e in enumerate(menu) if e["label"] == "end your turn") + 1
    answers = iter([f"{cells}\n", "b\n", f"{end}\n"])
    out = io.StringIO()
    assert ask_move(view, lambda: next(answers, ""), out, TEXT) == {"type": "end_turn"}
    assert "b to go back" in out.getvalue() and out.getvalue().count("Your moves:") == 2


def test_rio_char_5_a_held_character_says_when_it_starts_working():
    """RIO-CHAR-5, RIO-RL-58: until its benefits apply, the board says from when a held character
    works (phase B of the round after it came)."""
    state, _ = new_game(players=3, seed=11)
    state = state.copy()
    state["chars"]["shipowner"] = {"owner": 1, "from": 1581}
    text = TEXT.render_text(as_json(GAME.view(state, SPECTATOR)))
    assert "characters: shipowner (works from phase B of 1581)" in text
    state["year"], state["step"] = 1581, "B"
    text = TEXT.render_text(as_json(GAME.view(state, SPECTATOR)))
    assert "characters: shipowner" in text and "works from" not in text


def test_rio_city_3_rl_55_a_cell_or_an_edge_may_be_typed_instead_of_its_number():
    """RIO-CITY-3, RIO-RL-55: in the second question a cell ("6,3") or a section's edge may be typed
    instead of finding its number among hundreds; each such option carries its key."""
    state, _ = new_game(players=3, seed=5)
    seat = GAME.awaiting(state)[0]
    view = as_json(GAME.view(state, seat))
    menu = TEXT.move_menu(view["legal_moves"], view)
    cells = next(i for i, e in enumerate(menu) if "city cell" in e["label"])
    target = menu[cells]["options"][-1]
    assert target["key"] == "{},{}".format(*target["move"]["cell"])
    answers = iter([f"{cells + 1}\n", " " + target["key"].replace(",", ", ") + "\n"])
    out = io.StringIO()
    assert ask_move(view, lambda: next(answers, ""), out, TEXT) == target["move"]
    assert f"or one as {menu[cells]['options'][0]['key']}" in out.getvalue()
    edges = TEXT.move_menu(
        [{"type": "place_section", "edge": "0,0-1,0"}, {"type": "place_section", "edge": "0,0-0,1"}]
    )
    assert [o["key"] for o in edges[0]["options"]] == ["0,0-1,0", "0,0-0,1"]


def test_rio_rl_55_rio_battle_8_a_section_or_an_attacker_is_read_between_two_corners_never_as_an_edge_key():
    """RIO-RL-55, RIO-BATTLE-8: the terminal names a section's or an attacker's place by its two
    corners ("a road section between (10, 9) and (10, 10)"), never as "edge 10,9-10,10"; the raw
    key stays what a reader may type."""
    view = {"due": [{"seat": 0, "kind": "section", "what": "road", "left": 1}], "config": {}, "city": {}}
    moves = [
        {"type": "place_section", "edge": "10,9-10,10"},
        {"type": "place_attacker", "edge": "0,0-1,0"},
        {"type": "remove_attacker", "edge": "0,0-1,0"},
        {"type": "split", "edge": "0,0-1,0", "size": 2},
    ]
    said = [TEXT.describe_move(m) for m in moves]
    assert said[0] == "place a section between (10, 9) and (10, 10)"
    assert said[1] == "place an attacker between (0, 0) and (1, 0)"
    assert said[3] == "take a group of 2 off the stack between (0, 0) and (1, 0)"
    menu = TEXT.move_menu(moves[:1], view)
    assert menu[0]["label"].startswith("place a road section between (10, 9) and (10, 10), the ")
    text = " ".join(said) + " " + " ".join(str(e) for e in TEXT.move_menu(moves))
    assert "edge 10" not in text and "at edge" not in text and "on edge" not in text


def test_rio_undo_2_the_terminal_offers_to_take_back_the_last_placement():
    """RIO-UNDO-2: after a placement the terminal's menu begins with "undo: take back 'place on the
    field'" (from the view's ``undo``, beside the legal moves), which sends ``{"type": "undo"}``."""
    state, _ = new_game(players=3, seed=5)
    seat = GAME.awaiting(state)[0]
    for event in GAME.decide(state, seat, {"type": "place", "space": "field"}):
        state = GAME.evolve(state, event)
    view = as_json(GAME.view(state, seat))
    menu = TEXT.move_menu(view["legal_moves"], view)
    assert menu[0] == {"label": "undo: take back 'place on the field'", "move": {"type": "undo"}}
    fresh = as_json(GAME.view(new_game(players=3, seed=5)[0], seat))
    assert all(entry.get("move") != {"type": "undo"} for entry in TEXT.move_menu(fresh["legal_moves"], fresh))
