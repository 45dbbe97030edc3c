"""Bot-against-bot games, in-process (engine only) or through the HTTP API.

In-process games call the engine directly: no Redis, no HTTP, as fast as the rules allow; they are
what the win-rate figures and the engine's soak use. HTTP games (``simulate_http``) drive a running
server as ordinary clients would (claim seats, read views, post moves), which makes them a soak test
of the whole stack; with ``server_bots=True`` the server's own bot seats (RQ worker) play instead.

Reproducibility: a game's configuration seed and every bot's ``random.Random`` derive from the
simulation seed and the game's index, so the same call plays the same games.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bots import choose_move, get_bot, seeded_rng
from games import get_game
from games.base import fold

if TYPE_CHECKING:
    # Only for annotations: the in-process simulator (bench/, the engine soak) needs no HTTP client.
    from cli.client import ApiClient


@dataclass
class GameRecord:
    index: int
    config: dict[str, Any]
    levels: list[str]  # bot level per seat
    winners: list[int]
    reason: str | None
    moves: int
    events: list[dict[str, Any]] | None = None
    game_id: str | None = None  # HTTP games: the server's id
    seconds: float = 0.0

    def winning_levels(self) -> list[str]:
        return [self.levels[seat] for seat in self.winners]


def rotated(lineup: Sequence[str], index: int) -> list[str]:
    """The lineup shifted by ``index`` seats, so over n games every level sits in every seat."""
    shift = index % len(lineup)
    return list(lineup[-shift:]) + list(lineup[:-shift]) if shift else list(lineup)


def game_config(base: Mapping[str, Any], players: int, seed: int) -> dict[str, Any]:
    config = dict(base)
    config["players"] = players
    config["seed"] = seed
    return config


def play_game(
    game_name: str,
    config: Mapping[str, Any],
    levels: Sequence[str],
    seed: Any,
    *,
    keep_events: bool = False,
    strict: bool = True,
    max_moves: int = 50_000,
    index: int = 0,
) -> GameRecord:
    """Play one game in-process between bots ``levels[seat]`` and return its record.

    ``strict``: a bot that fails or answers an illegal move raises (instead of the random fallback
    a server uses), so a measurement never silently measures the fallback.
    """
    game = get_game(game_name)
    for level in levels:
        get_bot(game_name, level)  # fail early on an unknown level
    normalised = game.configure(config)
    if game.seat_count(normalised) != len(levels):
        raise ValueError(f"{len(levels)} bots for {game.seat_count(normalised)} seats")
    rngs = [seeded_rng("simulate", seed, index, seat) for seat in range(len(levels))]
    started = time.perf_counter()
    events = game.start(normalised)
    log = list(events) if keep_events else None
    state = fold(game, events)
    moves = 0
    while not game.is_over(state):
        awaiting = game.awaiting(state)
        if not awaiting:
            raise RuntimeError("the game is not over but awaits nobody")
        seat = awaiting[0]
        view = game.view(state, seat)
        command = choose_move(game_name, levels[seat], view, rngs[seat], strict=strict, state=state)
        new_events = game.decide(state, seat, command)
        state = fold(game, new_events, state)
        if log is not None:
            log.extend(new_events)
        moves += 1
        if moves > max_moves:
            raise RuntimeError(f"game did not end within {max_moves} moves")
    result = game.result(state) or {}
    return GameRecord(
        index=index,
        config=dict(normalised),
        levels=list(levels),
        winners=list(result.get("winners") or []),
        reason=result.get("reason"),
        moves=moves,
        events=log,
        seconds=time.perf_counter() - started,
    )


def simulate(
    game_name: str,
    base_config: Mapping[str, Any],
    lineup: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    rotate: bool = True,
    keep_events: bool = False,
    strict: bool = True,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """``games`` in-process games of ``lineup`` (one bot level per seat), seats rotated per game."""
    records = []
    for index in range(games):
        levels = rotated(lineup, index) if rotate else list(lineup)
        config = game_config(base_config, len(lineup), seed_for(seed, index))
        record = play_game(
            game_name, config, levels, seed, keep_events=keep_events, strict=strict, index=index
        )
        records.append(record)
        if on_game:
            on_game(record)
    return records


def seed_for(seed: int, index: int) -> int:
    return seeded_rng("config", seed, index).getrandbits(48)


# -- statistics -----------------------------------------------------------------------------------


@dataclass
class WinRate:
    level: str
    games: int  # games in which this level sat at least once
    seats: int  # seat-games played by this level
    wins: int  # seat-games won (a shared victory counts as a win)
    shared: int  # of which shared victories
    low: float = field(default=0.0)
    high: float = field(default=0.0)

    @property
    def rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default): well-behaved near 0 and 1
    and for modest sample sizes, unlike the normal approximation."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def win_rates(records: Sequence[GameRecord]) -> dict[str, WinRate]:
    """Per level: the share of its seats that won. With one heuristic against three random bots
    the seats of the heuristic are independent games, so the Wilson interval applies directly."""
    rates: dict[str, WinRate] = {}
    for record in records:
        seen = set()
        for seat, level in enumerate(record.levels):
            rate = rates.setdefault(level, WinRate(level, 0, 0, 0, 0))
            rate.seats += 1
            if level not in seen:
                rate.games += 1
                seen.add(level)
            if seat in record.winners:
                rate.wins += 1
                if len(record.winners) > 1:
                    rate.shared += 1
    for rate in rates.values():
        rate.low, rate.high = wilson_interval(rate.wins, rate.seats)
    return rates


def format_rates(
    rates: Mapping[str, WinRate], records: Sequence[GameRecord], wall_seconds: float | None = None
) -> str:
    """The figures as text. ``wall_seconds``: elapsed time of the whole run (games played at once
    overlap, so the sum of their durations would understate the rate)."""
    lines = []
    no_winner = sum(1 for r in records if not r.winners)
    moves = sum(r.moves for r in records)
    seconds = wall_seconds if wall_seconds is not None else sum(r.seconds for r in records)
    lines.append(
        f"{len(records)} games, {moves} moves, {no_winner} without a winner"
        + (f", {moves / seconds:,.0f} moves/s" if seconds else "")
    )
    for level, rate in sorted(rates.items()):
        lines.append(
            f"  {level:<10} won {rate.wins:>5} of {rate.seats:>5} seats = {rate.rate:6.1%} "
            f"(95% CI {rate.low:.1%} .. {rate.high:.1%}; shared victories {rate.shared})"
        )
    reasons: dict[str, int] = {}
    for record in records:
        reasons[record.reason or "none"] = reasons.get(record.reason or "none", 0) + 1
    lines.append("  endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return "\n".join(lines)


# -- through the HTTP API -------------------------------------------------------------------------


def play_http_game(
    client: ApiClient,
    game_name: str,
    config: Mapping[str, Any],
    levels: Sequence[str],
    seed: Any,
    *,
    index: int = 0,
    server_bots: bool = False,
    verify: bool = True,
    timeout: float = 600.0,
) -> GameRecord:
    """One game through the API. Client-side bots (default): the simulator claims every seat as a
    player named after its bot and plays each seat in a thread of its own from that seat's view
    stream (``/view/stream``) with its own token, exactly as a third-party client would.
    ``server_bots``: the seats are the server's bot seats and the server's RQ worker plays them; the
    simulator only follows the SSE stream to the end.

    ``verify``: the finished game's full log must replay through the rules (``verify_log``) and its
    fold must give the view the server shows for the finished game.
    """
    from cli.client import ApiError
    from games.base import FULL

    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    game = get_game(game_name)
    moves = 0
    if server_bots:
        summary = client.create_game(config, game=game_name, bots=dict(enumerate(levels)))
        game_id = summary["id"]
        for item in client.stream(game_id, read_timeout=timeout):
            if item.event == "end" or time.monotonic() > deadline:
                break
        final = client.view(game_id)
        moves = sum(
            1 for e in client.all_events(game_id) if "seat" in e["event"] and not e["event"].get("auto")
        )
    else:
        summary = client.create_game(config, game=game_name)
        game_id = summary["id"]
        tokens = {}
        for seat, level in enumerate(levels):
            tokens[seat] = client.claim_seat(game_id, name=f"{level} {seat}", seat=seat)["token"]
        rngs = [seeded_rng("simulate-http", seed, index, seat) for seat in range(len(levels))]
        counts = [0] * len(levels)
        failures: list[BaseException] = []

        def play_seat(seat: int) -> None:
            # Each seat learns every change from its own view stream (no polling) and moves when awaited.
            try:
                for current in client.follow_views(game_id, tokens[seat], read_timeout=timeout):
                    if failures:  # another seat failed: the game cannot finish, stop at once
                        return
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"game {game_id} not finished after {timeout} s")
                    if current is None or current["status"] == "finished":
                        continue
                    if seat not in current["view"]["awaiting"]:
                        continue
                    command = choose_move(game_name, levels[seat], current["view"], rngs[seat], strict=True)
                    try:
                        client.move(
                            game_id, tokens[seat], command, expected_version=current["version"], minimal=True
                        )
                    except ApiError as error:
                        if error.status != 409:  # a conflict: the stream brings the newer view
                            raise
                        continue
                    counts[seat] += 1
            except BaseException as error:  # reported by the caller's thread
                failures.append(error)

        threads = [threading.Thread(target=play_seat, args=(seat,), daemon=True) for seat in tokens]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()) + 5)
        if failures:
            raise failures[0]
        if any(thread.is_alive() for thread in threads):
            raise TimeoutError(f"game {game_id} not finished after {timeout} s")
        moves = sum(counts)
        final = client.view(game_id)
    events = [item["event"] for item in client.all_events(game_id)]
    if verify:
        problem = game.verify_log(events)
        if problem is not None:
            raise AssertionError(f"game {game_id}: log does not verify: {problem.to_dict()}")
        folded = fold(game, events)
        if json.loads(json.dumps(game.view(folded, FULL))) != final["view"]:
            raise AssertionError(f"game {game_id}: fold of the log differs from the server's view")
    result = final["view"].get("result") or {}
    winners = final["view"].get("winners") or result.get("winners") or []
    return GameRecord(
        index=index,
        config=dict(config),
        levels=list(levels),
        winners=list(winners),
        reason=result.get("reason"),
        moves=moves,
        events=events,
        game_id=game_id,
        seconds=time.perf_counter() - started,
    )


def simulate_http(
    server: str | None,
    game_name: str,
    base_config: Mapping[str, Any],
    lineup: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    rotate: bool = True,
    concurrency: int = 1,
    server_bots: bool = False,
    verify: bool = True,
    timeout: float = 600.0,
    on_game: Callable[[GameRecord], None] | None = None,
    client_factory: Callable[[], Any] | None = None,
) -> list[GameRecord]:
    """``games`` games through the API at ``server``, ``concurrency`` at a time (threads, one HTTP
    client each; ``client_factory`` builds them, e.g. with response hooks for a soak test)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from cli.client import ApiClient

    local = threading.local()

    def one(index: int) -> GameRecord:
        if not hasattr(local, "client"):
            local.client = client_factory() if client_factory else ApiClient(server)
        levels = rotated(lineup, index) if rotate else list(lineup)
        config = game_config(base_config, len(lineup), seed_for(seed, index))
        return play_http_game(
            local.client,
            game_name,
            config,
            levels,
            seed,
            index=index,
            server_bots=server_bots,
            verify=verify,
            timeout=timeout,
        )

    records: list[GameRecord] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for record in pool.map(one, range(games)):
            records.append(record)
            if on_game:
                on_game(record)
    return records
