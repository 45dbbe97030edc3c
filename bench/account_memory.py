"""Redis memory of an account and of an account-bound seat.

    .venv/bin/python bench/account_memory.py [--accounts 50] [--games 20] [--seed 1]

On a private, throw-away redis-server, through the services (the API's code path; the real
Argon2id parameters):

* ``--accounts`` accounts are created, each signs in once (one session) and makes one personal
  access token, which is used once (its last use is written): ``MEMORY USAGE`` summed over every
  key of the account (``acct:{a:<id>}:*``) and its handle key, per account.
* ``--games`` two-player Condottiere games are played to the end with random legal moves, each
  seat claimed by one of the accounts, and the same games (same seeds, same moves) with anonymous
  seats: per bound seat, what the account's keys grew by (its games entry, its finished set and
  statistics, its capped feed: three events a game here, at most ``FEED_LENGTH`` kept), the
  archive's ``by:account`` index entry, and the difference of the game's own metadata.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["COMPACT_DELAY_MS"] = "0"

from api import create_app  # noqa: E402
from store.accounts import FEED_LENGTH, handle_key  # noqa: E402
from store.archive_keys import index_key  # noqa: E402
from store.keys import game_keys  # noqa: E402
from tests.redis_server import PrivateRedis  # noqa: E402


def account_bytes(client, account_id: str, folded: str | None = None) -> int:
    total = 0
    for key in client.scan_iter(match=f"acct:{{a:{account_id}}}:*", count=100):
        total += client.memory_usage(key, samples=0) or 0
    if folded is not None:
        total += client.memory_usage(handle_key(folded), samples=0) or 0
    return total


def commands(client) -> int:
    """Commands Redis has run so far (INFO commandstats), this bench's reads included."""
    return sum(int(v["calls"]) for k, v in client.info("commandstats").items())


def play(games_service, accounts, seed: int, bound: list[str] | None) -> str:
    rng = random.Random(seed)
    game_id = games_service.create_game("condottiere", {"players": 2, "seed": seed})["id"]
    tokens = []
    for seat, name in enumerate(("Ann", "Bob")):
        account = bound[seat] if bound else None
        tokens.append(games_service.claim_seat(game_id, name=name, account=account).token)
    while True:
        view = games_service.get_view(game_id).view
        if view is None or view.get("result") is not None:
            return game_id
        seat = rng.choice(view["awaiting"])
        legal = games_service.get_view(game_id, tokens[seat]).view["legal_moves"]
        games_service.submit_command(game_id, tokens[seat], rng.choice(legal))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=50)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    server = PrivateRedis()
    try:
        app = create_app({"REDIS_URL": server.url, "RATE_LIMITS_ENABLED": False})
        accounts = app.extensions["account_service"]
        games = app.extensions["game_service"]
        client = games.store.redis
        ids = []
        sizes = []
        for n in range(args.accounts):
            handle = f"player{n:04d}"
            accounts.create_account(handle, "correct horse battery")
            session = accounts.sign_in(handle, "correct horse battery")["token"]
            who = accounts.identify(session)
            made = accounts.create_token(who, "bot", ["play", "read"])
            accounts.identify(made["token"])
            accounts.flush_uses(force=True)
            ids.append(who.account_id)
            sizes.append(account_bytes(client, who.account_id, handle))
        print(
            "account (1 session, 1 personal token used once, handle key): "
            f"median {statistics.median(sizes):.0f} B"
        )
        pairs = [(ids[2 * g % len(ids)], ids[(2 * g + 1) % len(ids)]) for g in range(args.games)]
        involved = sorted({a for pair in pairs for a in pair})
        before = {a: account_bytes(client, a) for a in involved}
        seats = 0
        meta_delta = []
        spent = {"bound": 0, "anonymous": 0}
        moves = 0
        for g, pair in enumerate(pairs):
            at = commands(client)
            bound = play(games, accounts, args.seed + g, list(pair))
            spent["bound"] += commands(client) - at
            at = commands(client)
            anonymous = play(games, accounts, args.seed + g, None)
            spent["anonymous"] += commands(client) - at
            moves += int(client.hget(game_keys(anonymous).meta, "version") or 0)
            seats += 2
            meta_delta.append(
                (client.memory_usage(game_keys(bound).meta, samples=0) or 0)
                - (client.memory_usage(game_keys(anonymous).meta, samples=0) or 0)
            )
        grown = sum(account_bytes(client, a) - before[a] for a in involved)
        feeds = sum(client.memory_usage(f"acct:{{a:{a}}}:feed", samples=0) or 0 for a in involved)
        archive_index = sum(client.memory_usage(index_key("account", a), samples=0) or 0 for a in involved)
        feed_entries = sum(client.xlen(f"acct:{{a:{a}}}:feed") for a in involved)
        print(
            f"bound seats: {seats} over {len(involved)} accounts; "
            f"feed entries {feed_entries} (cap {FEED_LENGTH} each)"
        )
        print(
            f"  the account's keys grew by {grown / seats:.0f} B per bound seat "
            "(games entry, finished set, stats, feed)"
        )
        print(
            f"  of which the feed {feeds / seats:.0f} B ({feeds / max(1, feed_entries):.0f} B an entry; "
            f"at most {FEED_LENGTH} entries, so at most "
            f"~{FEED_LENGTH * feeds / max(1, feed_entries) / 1024:.0f} KiB "
            "an account), the rest "
            f"{(grown - feeds) / seats:.0f} B per bound seat, kept"
        )
        print(
            f"  archive by:account index: {archive_index / seats:.0f} B per bound seat (small sets: listpack)"
        )
        print(
            f"  the game's metadata: {statistics.mean(meta_delta) / 2:+.0f} B per bound seat (account:<seat>)"
        )
        print(
            f"Redis commands per event (the bench's own view reads included, same games and moves): "
            f"anonymous {spent['anonymous'] / moves:.2f}, both seats bound {spent['bound'] / moves:.2f}"
        )
        games.live.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
