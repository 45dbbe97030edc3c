"""An account's deletion over HTTP, in a process killed at ``FAULT_POINT`` (``service.faults``).

python -m tests.faults.account_deletion_actor <redis url> <account token> <password>
"""

from __future__ import annotations

import sys

from api import create_app
from tests.api import toy_game
from tests.api.test_accounts import FAST_HASH

toy_game.register()


def main(url: str, token: str, password: str) -> None:
    app = create_app({"REDIS_URL": url, "TESTING": True, "PASSWORD_HASH_PARAMETERS": FAST_HASH})
    answer = app.test_client().delete(
        "/v1/me", json={"password": password}, headers={"Authorization": f"Bearer {token}"}
    )
    print(answer.status_code)


if __name__ == "__main__":
    main(*sys.argv[1:])
