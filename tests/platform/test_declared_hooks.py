"""A game is one object that declares every optional hook it provides (games/base.py, the plug-in
kit): its class subclasses each hook protocol and defines every member of it in its own body, mypy
checks the members against the protocol, and nothing assigns a hook onto a game object afterwards."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import pytest

from games import base, game_names, get_game
from games.base import HOOK_NAMES, HOOK_PROTOCOLS, declared_hooks, protocol_members
from tests.api.toy_game import GAME as TOY
from tests.test_import_cycles import PRODUCT_PACKAGES

ROOT = Path(__file__).resolve().parents[2]


def _games() -> list[Any]:
    return [get_game(name) for name in game_names() if name != TOY.name] + [TOY]


# -- nothing is attached --------------------------------------------------------------------------


def _hook_assignments(source: str, *, engine: bool = True) -> list[str]:
    """Each place ``source`` assigns a hook's name onto an object (``x.chapters = ...``,
    ``setattr(x, "chapters", ...)``) or calls ``setattr`` on a game (``setattr(game, name, ...)``).
    Outside an engine (``engine=False``) an object's own attribute (``self.timeout``) is no game's."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                own = isinstance(part, ast.Attribute) and ast.unparse(part.value) == "self"
                if isinstance(part, ast.Attribute) and part.attr in HOOK_NAMES and (engine or not own):
                    found.append(f"{node.lineno}: {ast.unparse(part)} = ...")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and len(node.args) >= 2:
            what, name = node.args[0], node.args[1]
            named_hook = isinstance(name, ast.Constant) and name.value in HOOK_NAMES
            if named_hook or "game" in ast.unparse(what).lower():
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_product_module_assigns_a_hook_onto_a_game_object():
    places = {}
    for package in PRODUCT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found = _hook_assignments(path.read_text(encoding="utf-8"), engine=package == "games")
            if found:
                places[str(path.relative_to(ROOT))] = found
    assert places == {}


def test_the_assignment_scan_sees_each_way_of_attaching_a_hook():
    source = textwrap.dedent(
        """
        GAME.chapters = chapters
        game.render_css += "x"
        setattr(GAME, "summarize", summarize)
        setattr(game, name, value)
        setattr(state, "hand", hand)
        state.hand = hand
        self.timeout = timeout
        """
    )
    engine = sorted(line.split(":")[0] for line in _hook_assignments(source))
    assert engine == ["2", "3", "4", "5", "8"]
    elsewhere = sorted(line.split(":")[0] for line in _hook_assignments(source, engine=False))
    assert elsewhere == ["2", "3", "4", "5"]


# -- everything provided is declared --------------------------------------------------------------


@pytest.mark.parametrize("game", _games(), ids=lambda game: game.name)
def test_every_hook_a_game_provides_is_declared(game):
    provided = {name for name in HOOK_NAMES if hasattr(game, name)}
    assert provided - declared_hooks(game) == set()


@pytest.mark.parametrize("game", _games(), ids=lambda game: game.name)
def test_every_declared_hook_is_defined_in_the_games_own_class_not_inherited_or_attached(game):
    """A declared protocol's member left to the protocol's stub would answer None at run time."""
    cls = type(game)
    own = set().union(*(vars(k) for k in cls.__mro__ if k not in HOOK_PROTOCOLS and k is not object))
    assert declared_hooks(game) - own == set()
    assert set(vars(game)) & HOOK_NAMES == set()


def test_the_engines_declare_the_hooks_the_platform_relies_on():
    condottiere, rio = get_game("condottiere"), get_game("rio_de_la_plata")
    for game in (condottiere, rio):
        for protocol in (base.ArchiveHooks, base.WebHooks, base.TextHooks, base.ContractHooks):
            assert protocol_members(protocol) <= declared_hooks(game), protocol.__name__
    assert protocol_members(base.SeatHooks) <= declared_hooks(condottiere)
    # SET-2: a configuration names the first Condottiere; Rio draws its turn order (RIO-SETUP-4)
    assert base.first_seat_hooks(condottiere) is not None and base.first_seat_hooks(rio) is None
    assert declared_hooks(TOY) == frozenset()


def test_a_typed_accessor_answers_only_for_a_declared_hook():
    class Undeclared:
        def chapters(self, events):
            return []

    class Declared(base.ChanceHooks):
        def rederive_chance(self, events):
            return iter(())

    assert base.archive_hooks(Undeclared()) is None
    assert base.chance_hooks(Declared()) is not None
    assert base.archive_hooks(Declared()) is None


def test_every_hook_protocol_has_its_typed_accessor():
    """The platform reaches each protocol's hooks through one accessor, typed by the protocol."""
    for protocol in HOOK_PROTOCOLS:
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", protocol.__name__).lower()
        accessor = getattr(base, name)
        assert typing.get_type_hints(accessor)["return"] == protocol | None


# -- mypy checks a declared hook against its protocol ---------------------------------------------

PLUGIN = """
from collections.abc import Mapping, Sequence
from typing import Any
from games.base import TextHooks


class Plugin(TextHooks):
    def render_text(self, view: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        return ""

    def describe_event(self, event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        return ""

    def describe_move(self, move: Mapping[str, Any]) -> str:
        return ""
{extra}

GAME = Plugin()
"""

MENU = """
    def move_menu(
        self, moves: Sequence[Mapping[str, Any]], view: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        return []
"""


def _mypy(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    module = tmp_path / "plugin_game.py"
    module.write_text(source)
    mypy = Path(sys.executable).parent / "mypy"
    return subprocess.run(
        [str(mypy), "--strict", "--no-incremental", "--config-file", "/dev/null", str(module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_mypy_checks_a_plug_ins_declared_hooks_against_the_kit(tmp_path):
    """The kit is typed (``games/py.typed``): a plug-in that declares TextHooks and defines every
    member passes mypy strict; one member left out, or one of the wrong type, fails it."""
    complete = _mypy(PLUGIN.format(extra=MENU), tmp_path)
    assert complete.returncode == 0, complete.stdout
    missing = _mypy(PLUGIN.format(extra=""), tmp_path)
    assert missing.returncode != 0 and "move_menu" in missing.stdout
    wrong_menu = MENU.replace("list[dict[str, Any]]", "int").replace("[]", "0")
    wrong = _mypy(PLUGIN.format(extra=wrong_menu), tmp_path)
    assert wrong.returncode != 0 and "move_menu" in wrong.stdout
    assert (ROOT / "games" / "py.typed").is_file()


KIT = {"games.base", "games.contract_schema"}


def test_the_toy_plug_in_game_uses_only_the_kit():
    """A game from outside the repository needs nothing of the platform but the plug-in kit."""
    tree = ast.parse((ROOT / "tests" / "api" / "toy_game.py").read_text(encoding="utf-8"))
    product = set(PRODUCT_PACKAGES)
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    ours = {name for name in imported if name.split(".")[0] in product}
    assert ours - {"games"} <= KIT and "games.base" in ours
