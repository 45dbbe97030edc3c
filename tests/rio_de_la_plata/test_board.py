"""The board model (section 21, schema version 2 of 21.1): loading, refusal, and use of its data."""

from __future__ import annotations

import copy

import pytest

from games.base import ConfigError
from games.rio_de_la_plata import GAME
from games.rio_de_la_plata.board import Board, BoardError, default_board, default_document

from .helpers import new_game, play


def test_default_board_loads_and_reports_provisional_values():
    """RIO-COMP-1: the package's board holds the city, grids, tracks and enemy tracks; values still
    guessed are reported as provisional (section 21)."""
    board = default_board()
    assert board.provisional
    assert "city.width" in board.provisional_paths
    assert (board.width, board.height) == (16, 10)
    assert len(board.districts) == 8 and len(board.plaza) == 4
    assert len(board.cells) == 16 * 10 - 4
    assert set(board.majors) == {"palace", "cathedral", "fort", "port", "walls", "roads"}


@pytest.mark.parametrize(
    "schema, code",
    [
        ({"name": "rio-de-la-plata.board", "version": 1}, "UNKNOWN_BOARD_SCHEMA"),
        ({"name": "rio-de-la-plata.board", "version": 3}, "UNKNOWN_BOARD_SCHEMA"),
        ({"name": "something-else", "version": 2}, "UNKNOWN_BOARD_SCHEMA"),
        (None, "UNKNOWN_BOARD_SCHEMA"),
    ],
)
def test_unknown_schema_or_version_is_refused(schema, code):
    doc = default_document()
    doc["schema"] = schema
    with pytest.raises(BoardError) as err:
        Board(doc)
    assert err.value.code == code
    assert "schema" in err.value.message


def _broken(mutate) -> str:
    doc = default_document()
    mutate(doc)
    with pytest.raises(BoardError) as err:
        Board(doc)
    return err.value.message


def test_untagged_datum_is_refused():
    def mutate(doc):
        doc["city"]["width"] = 16

    assert "untagged" in _broken(mutate)


def test_tag_inside_tag_and_unknown_source_are_refused():
    def nested(doc):
        doc["city"]["width"]["v"] = {"v": 16, "src": "board"}

    def source(doc):
        doc["city"]["width"]["src"] = "guess"

    assert "inside a tagged value" in _broken(nested)
    assert "guess" in _broken(source)


def test_validation_rules_of_section_21_1():
    """Section 21.1 checks 1-11, one broken document each."""

    def rows(doc):  # 1
        doc["city"]["cells"]["v"][0] = doc["city"]["cells"]["v"][0][:-1]

    def plaza(doc):  # 2
        doc["city"]["cells"]["v"][0] = "P" + doc["city"]["cells"]["v"][0][1:]

    def centre(doc):  # 3
        doc["city"]["district_centres"]["v"]["A"] = {"vertex": [15, 9]}

    def start(doc):  # 4
        doc["city"]["start_zone"]["v"].append([7, 4])

    def edge(doc):  # 5
        doc["city"]["printed_walls"]["v"] = [[[0, 0], [2, 0]]]

    def min_players(doc):  # 6
        doc["spaces"]["mine"]["track"][0]["min_players"]["v"] = 6

    def enemy(doc):  # 7
        doc["enemies"]["natives"]["start_index"]["v"] = 99

    def marks(doc):  # 8
        doc["round_track"]["marks"][1]["v"]["to"] = 1581

    def minors(doc):  # 9
        del doc["minor_buildings"]["garden"]

    def characters(doc):  # 10
        del doc["characters"]["bishop"]

    def reduction(doc):  # 11
        del doc["enemies"]["bonus_reduction"]["v"]["4"]

    def vocabulary(doc):
        doc["minor_buildings"]["square"]["requires"]["v"] = "surrounded_5"

    messages = [
        _broken(f)
        for f in (rows, plaza, centre, start, edge, min_players, enemy, marks, minors, characters, reduction)
    ]
    assert "rows" in messages[0]
    assert "2x2" in messages[1]
    assert "centre" in messages[2]
    assert "start_zone" in messages[3]
    assert "unit" in messages[4]
    assert "min_players" in messages[5]
    assert "start_index" in messages[6]
    assert "round_track" in messages[7]
    assert "minor_buildings" in messages[8]
    assert "characters" in messages[9]
    assert "bonus_reduction" in messages[10]
    assert "requires" in _broken(vocabulary)


def test_configuration_refuses_a_bad_board_with_a_config_error():
    doc = default_document()
    doc["schema"]["version"] = 99
    with pytest.raises(ConfigError) as err:
        GAME.configure({"players": 3, "board": doc})
    assert err.value.code == "UNKNOWN_BOARD_SCHEMA"


def _small_board_doc() -> dict:
    doc = default_document()
    city = doc["city"]
    width, height = 8, 6
    rows = ["AAAABBBB", "AAAABBBB", "AAAPPBBB", "CCCPPDDD", "CCCCDDDD", "CCCCDDDD"]
    city["width"]["v"], city["height"]["v"] = width, height
    city["cells"]["v"] = rows
    city["district_centres"]["v"] = {
        "A": {"vertex": [2, 1]},
        "B": {"vertex": [6, 1]},
        "C": {"cell": [1, 4]},
        "D": {"vertex": [6, 5]},
    }
    ring = [[2, 1], [3, 1], [4, 1], [5, 1], [2, 2], [5, 2], [2, 3], [5, 3], [2, 4], [3, 4], [4, 4], [5, 4]]
    city["start_zone"]["v"] = [[2, 1], [3, 1]]
    city["plaza_adjacent"]["v"] = ring
    walls, roads = [], []
    for y in range(height + 1):
        for x in range(width):
            a = rows[y - 1][x] if y > 0 else None
            b = rows[y][x] if y < height else None
            edge = [[x, y], [x + 1, y]]
            (walls if (a is None) != (b is None) else roads).append(edge) if not (a == b == "P") else None
    for x in range(width + 1):
        for y in range(height):
            a = rows[y][x - 1] if x > 0 else None
            b = rows[y][x] if x < width else None
            edge = [[x, y], [x, y + 1]]
            (walls if (a is None) != (b is None) else roads).append(edge) if not (a == b == "P") else None
    city["wall_slots"]["v"] = walls
    city["road_slots"]["v"] = roads
    city["plaza_vertices"]["v"] = [[x, y] for x in (3, 4, 5) for y in (2, 3, 4)]
    for track in ("mine", "forest"):
        doc["spaces"][track]["track"] = [
            {"people": {"v": 2, "src": "board"}, "min_players": {"v": 3, "src": "board"}},
            {"people": {"v": 3, "src": "board"}, "min_players": {"v": 3, "src": "board"}},
        ]
    doc["supply"]["start_stock"]["v"] = {"stone": 5, "wood": 0, "silver": 7}
    return doc


def test_a_different_board_document_changes_the_game():
    """RIO-GAP-1, RIO-GAP-4, RIO-GAP-10 read from the board document, none hard-coded: a smaller city,
    another start zone, other mine/forest tracks and start stocks change what players may do."""
    doc = _small_board_doc()
    board = Board(copy.deepcopy(doc))
    assert (board.width, board.height, len(board.cells)) == (8, 6, 44)
    small, _ = new_game(3, seed=5, board=doc)
    big, _ = new_game(3, seed=5)
    assert small["config"]["board"] is not None and big["config"]["board"] is None
    assert small["config"]["board_hash"] != big["config"]["board_hash"]
    assert small["p"][0]["silver"] == 7 and small["p"][0]["stone"] in (5, 6)
    assert big["p"][0]["silver"] == 2
    seat = GAME.awaiting(small)[0]
    cells = {tuple(m["cell"]) for m in GAME.legal_moves(small, seat) if m.get("space") == "cell"}
    assert cells == {(2, 1), (3, 1)}
    assert len(small["track"]["mine"]) == 2 and len(big["track"]["mine"]) == 4
    small = play(small, seat, {"type": "place", "space": "mine"})
    assert small["p"][seat]["placed"] == 2  # the first space of this board takes 2 people


def _paths(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node[:3]):
            yield from _paths(value, path + (i,))
    if path:
        yield path


def test_any_malformed_value_is_a_board_error_never_a_crash():
    """Whatever value of whatever shape replaces any part of the document, loading it fails with a
    BoardError (a ConfigError: a 4xx for the API) or succeeds; nothing else escapes."""
    original = default_document()
    paths = list(_paths(original))
    paths = paths[:: max(1, len(paths) // 120)]  # a spread sample: the whole set takes minutes
    for index, path in enumerate(paths):
        for junk in (5, "x", None, [], {"v": 1, "src": "board"}):
            doc = copy.deepcopy(original)
            node = doc
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = junk
            try:
                Board(doc)
            except BoardError:
                pass
        if index > 3000:
            break
