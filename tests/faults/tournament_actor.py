"""A process the tournament fault tests kill at a named point (``FAULT_POINT``, ``service.faults``).

python -m tests.faults.tournament_actor <redis url> play <game id>
    play a table game whose seats are all server bots to its end (``bot_turns.play_bot_turns``, as
    the bots queue does); the last move's follow-ups write the table's result and bring the
    tournament forward in this process
python -m tests.faults.tournament_actor <redis url> start <tournament id> <organiser's token>
    the organiser's start: round 1 recorded, then its tables started in this process
python -m tests.faults.tournament_actor <redis url> join <tournament id> <account's token>
    an account's join: past an open tournament's start time, with enough entrants, it records the
    start with the entrant and runs it in this process
python -m tests.faults.tournament_actor <redis url> withdraw <tournament id> <account's token>
    an account's withdrawal from a running tournament: recorded with the follow-up that hands its
    seat at its running table to the bot, which it runs in this process
python -m tests.faults.tournament_actor <redis url> sweep
    one sweep of the follow-ups due (as the janitor's tick makes): a tournament's start time's
    follow-up records round 1 and starts its tables in this process
"""

from __future__ import annotations

import os
import sys

from service import bot_turns, composition
from store import queue_url


def main(url: str, action: str, *args: str) -> None:
    settings = composition.Settings(redis_url=url, queue_url=queue_url(url, os.environ.get("RQ_REDIS_URL")))
    if action == "play":
        games = composition.build(settings).games
        (game_id,) = args
        print(bot_turns.play_bot_turns(games, game_id), flush=True)
    elif action == "start":
        tournament_id, token = args
        services = composition.build(settings)
        print(services.tournaments.start(tournament_id, services.accounts.identify(token)), flush=True)
    elif action == "join":
        tournament_id, token = args
        services = composition.build(settings)
        print(
            services.tournaments.join(tournament_id, services.accounts.identify(token), "Joiner"), flush=True
        )
    elif action == "withdraw":
        tournament_id, token = args
        services = composition.build(settings)
        print(services.tournaments.withdraw(tournament_id, services.accounts.identify(token)), flush=True)
    elif action == "sweep":
        print(composition.build(settings).games.followups.sweep(30_000), flush=True)
    else:
        raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
