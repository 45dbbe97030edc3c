"""Deleting an account: the part after its credentials are gone, and the janitor's
finishing of deletions a dead process left half done.

``service.accounts.AccountService.delete`` removes the credentials and webhooks at once
(``store.account_deletion``) and then calls :func:`finish_deletion`: what points at the account
from other slots unhooked, every seat of a started, unfinished game handed to the bot (the seat
left: last place in the ratings), every seat of the account renamed to :data:`PLACEHOLDER_NAME` (its games
stay) and unbound, then its data removed and its handle freed. Every step is idempotent, so the
janitor's :func:`finish_deletions` can rerun one that a killed process left.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from games import game_names
from service import aggregates
from service.faults import fault_point
from store import parts

if TYPE_CHECKING:
    from service.ports import GameAccess

PLACEHOLDER_NAME = "deleted player"


def finish_deletion(games: GameAccess, account_id: str) -> None:
    """The rest of a deletion whose credentials are gone: every seat renamed and unbound (each game
    forgotten once done, so a rerun does only what is left), then every key and the handle."""
    store = parts.accounts(games.store)
    archive = parts.archive(games.store)
    fault_point("after_account_deletion_begun")  # tests/faults: credentials and webhooks gone, no more
    # What points at the account from other slots (the delivery loop, game watcher sets): its
    # webhooks went with the credentials, these only name it.
    parts.account_deletion(games.store).unhook(account_id)
    for game_id, entry in store.games(account_id).items():
        seat = int(entry["seat"])
        # Out of its old name's statistics first (once: a marker), then renamed: a rerun after a
        # crash between the two finds the marker; a game entering the archive after the rename is
        # counted under no name at all (aggregates.seats_of).
        meta = parts.load_meta(games.store, game_id)  # the entry's status may lag behind the game's
        if meta is not None and not meta.finished and meta.meta.get(f"account:{seat}") == account_id:
            # Leaving a started game: the bot finishes it for the others, and the ratings count the
            # seat last (replays.ratings); done before the unbinding, so a rerun still finds the seat.
            games.leave_to_bot(game_id, seat)
        if meta is not None and meta.finished and meta.meta.get(f"account:{seat}") == account_id:
            log = parts.load_log(games.store, game_id)
            if log is not None:
                aggregates.forget_seat(archive, log, seat, account_id)
        store.rename_seat(game_id, seat, account_id, PLACEHOLDER_NAME)
        games.cache.drop(game_id)
        store.forget_game(account_id, game_id)
    parts.challenges(games.store).forget_account(account_id)  # its pending challenges' index
    store.finish_delete(account_id, game_names())


# A deletion older than this was left by a dead process (a live one takes milliseconds).
DELETION_GRACE_MS = 30_000


def finish_deletions(games: GameAccess, grace_ms: int = DELETION_GRACE_MS) -> list[str]:
    """The janitor's part: finish the deletions begun more than ``grace_ms`` ago (idempotent)."""
    store = parts.accounts(games.store)
    done = store.deletions_begun_before(int(time.time() * 1000) - grace_ms)
    for account_id in done:
        finish_deletion(games, account_id)
    return done
