"""Bot accounts, as Lichess has them: an account with no games may become a bot account, for good
(``POST /v1/me/upgrade-to-bot``), and the bot accounts online are those with an open
``/v1/me/stream`` (its lease, renewed at every heartbeat: ``store.bot_accounts``)."""

from __future__ import annotations

import time
from typing import Any

from service import errors
from service.account_tokens import Identity
from service.accounts import AccountService
from service.identity import ACCOUNT, InsufficientScope
from store import parts

MOST_LISTED = 200


class AlreadyBot(errors.ServiceError):
    status, code, title = 409, "ALREADY_BOT", "The account is a bot account already"


class AccountHasGames(errors.ServiceError):
    status, code, title = 409, "ACCOUNT_HAS_GAMES", "Only an account that has played no game may become a bot"


def upgrade_to_bot(accounts: AccountService, identity: Identity) -> dict[str, Any]:
    """Make the token's account (scope ``account``) a bot account: irreversible; refused (and
    nothing changed) when it has ever held a seat that is still listed, or finished a game."""
    if ACCOUNT not in identity.scopes:
        raise InsufficientScope(ACCOUNT)
    outcome = parts.bot_accounts(accounts.games.store).upgrade(identity.account_id)
    if outcome == "missing":
        raise errors.InvalidToken()
    if outcome == "already":
        raise AlreadyBot()
    if outcome == "has_games":
        raise AccountHasGames()
    return accounts.me(identity)


def online_bots(accounts: AccountService, most: int = MOST_LISTED) -> dict[str, Any]:
    """The bot accounts with an open stream now, the most recently seen first."""
    store = parts.bot_accounts(accounts.games.store)
    ids = store.online_ids(int(time.time() * 1000), most)
    handles = accounts.store.handles(ids)
    return {"bots": [{"handle": handle, "bot": True} for handle in handles if handle is not None]}
