"""Rio de la Plata at a real terminal (issue 28): the ``condottiere`` command runs in a pseudo-terminal
(the standard library's ``pty``: no system package needed) against a live test server with two
random bots, and a script reads the screen and types like a person: it builds the city walls and
the roads when it can (so that sections stand in the city), ends its turns, passes in battles, and
plays two whole rounds. The screen must show the major buildings' space VP, the characters' prices
and VP requirements, and the walls and roads on their edges. Rule IDs: RIO-MAJOR-1, RIO-CHAR-3,
RIO-WALL-1, RIO-ROAD-1."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

from tests.bots.live import ROOT

PROMPT = re.compile(r"\((?:q to quit|q to quit, b to go back)\): $")
MENU_LINE = re.compile(r"^\s+(\d+)\) (.*)$")
# What the player wants, best first (labels of the client's menu entries).
WANTED = (
    "place a person on the walls",
    "place a person on the roads",
    "place a wall or road section",
    "end your turn",
    "pass",
)
FREE = ("buy ", "write a trade offer", "add 1", "send the trade", "accept the trade", "decline the trade")


class Terminal:
    """A child process on a pseudo-terminal; the screen is everything it printed."""

    def __init__(self, argv: list[str]):
        self.master, slave = pty.openpty()
        env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120", LINES="60", TERM="xterm")
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env, close_fds=True
        )
        os.close(slave)
        self.screen = ""

    def read_until(self, condition, seconds: float) -> bool:
        """Read the screen until ``condition(screen)`` holds or ``seconds`` pass (False)."""
        deadline = time.monotonic() + seconds
        while not condition(self.screen):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.master], [], [], min(left, 1.0))
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    return condition(self.screen)
                if not data:
                    return condition(self.screen)
                self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self, seconds: float = 30) -> int | None:
        """Wait for the child to exit (it is killed after ``seconds``); its exit status, None if killed."""
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None
        finally:
            os.close(self.master)


def _menu_before_prompt(screen: str) -> list[tuple[str, str]]:
    """The numbered entries listed just above the prompt on screen."""
    lines = screen.splitlines()
    entries = []
    for line in reversed(lines[:-1]):
        match = MENU_LINE.match(line)
        if not match:
            break
        entries.append((match.group(1), match.group(2)))
    return entries[::-1]


def _answer(screen: str) -> str:
    entries = _menu_before_prompt(screen)
    if screen.rstrip().endswith("b to go back):"):
        return entries[0][0] if entries else "b"
    for wanted in WANTED:
        for number, label in entries:
            if label.startswith(wanted):
                return number
    for number, label in entries:
        if not label.startswith(FREE):
            return number
    return entries[0][0] if entries else "q"


def test_rio_two_rounds_at_a_pseudo_terminal_show_vp_costs_and_sections(live):
    """RIO-MAJOR-1, RIO-CHAR-3, RIO-WALL-1, RIO-ROAD-1: two rounds played by typing at the terminal;
    the screen shows each major building space's VP, each character's price and VP requirement,
    and the wall and road sections where they stand."""
    argv = [sys.executable, "-m", "cli.main", "--server", live.url, "play", "--game", "rio_de_la_plata"]
    argv += ["--players", "3", "--seed", "7", "--name", "Ann", "--bots", "random"]
    terminal = Terminal(argv)
    answered = 0
    try:
        while True:
            assert answered < 400, terminal.screen[-3000:]
            seen = len(terminal.screen)
            prompted = terminal.read_until(
                lambda screen, seen=seen: "year 1582" in screen[seen:] or bool(PROMPT.search(screen[seen:])),
                seconds=120,
            )
            assert prompted, terminal.screen[-3000:]
            if "year 1582" in terminal.screen:
                break
            terminal.type(_answer(terminal.screen))
            answered += 1
        terminal.read_until(lambda screen: bool(PROMPT.search(screen[-200:])), seconds=120)
        terminal.type("q")
        terminal.read_until(lambda screen: "Resume with: condottiere play" in screen, seconds=30)
    except BaseException:
        terminal.close(seconds=0)
        raise
    code = terminal.close()
    screen = terminal.screen
    assert code == 1 and "Resume with: condottiere play" in screen, screen[-3000:]
    assert "year 1581" in screen and "year 1582" in screen  # two rounds were played
    # Each major building space's VP (then who is on it), on the board and in the menus.
    assert re.search(r"palace +\[5:[.\d] 5:[.\d] 4:[.\d] 4:[.\d]\]", screen)
    assert re.search(r"place a person on the \w+ space \d \(\d VP\)", screen)
    # The characters' prices and VP requirements.
    assert "shipowner (8 silver, needs 15 VP)" in screen or "shipowner (" in screen
    assert re.search(r"artillerist \(5 silver, needs 7 VP\)", screen)
    # Walls and roads where they stand: listed by edge, and drawn on the city's edges.
    walls = re.findall(r"Walls \((\d+)\): ([^\n]*)\.", screen)
    roads = re.findall(r"Roads \((\d+)\): ([^\n]*)\.", screen)
    between = r"between \(\d+, \d+\) and \(\d+, \d+\)"  # a section by its two corners, never "1,2-1,3"
    assert walls and int(walls[-1][0]) >= 1 and re.match(between, walls[-1][1]), walls[-1:]
    assert roads and int(roads[-1][0]) >= 1 and re.match(between, roads[-1][1]), roads[-1:]
    last_board = screen[screen.rindex("The city (") :]
    city = last_board[: last_board.index("  Buildings:")]
    assert "====" in city or re.search(r"^ {3}\d? #|#\s*$", city, re.M) or "#" in city.split("\n", 2)[2]
    assert "----" in city or "|" in city
