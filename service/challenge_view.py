"""What a challenge shows its parties (and anyone with its link), and who its parties are."""

from __future__ import annotations

from typing import Any

from store.challenges import StoredChallenge


def view_of(found: StoredChallenge) -> dict[str, Any]:
    """What every party, and anyone holding the link, may read: no account id, no token hash, no
    secret configuration."""
    public = found.public
    seats = []
    for seat in sorted(found.seats):
        entry = found.seats[seat]
        seats.append(
            {
                "seat": seat,
                "kind": entry["kind"],
                "name": entry.get("name"),
                "bot": entry.get("level"),
                "bot_account": bool(entry.get("bot_account")),
                "answer": entry["answer"],
            }
        )
    return {
        **public,
        "status": found.status,
        "reason": found.record.get("reason") or None,
        "seats": seats,
        "game_id": found.id if found.status == "started" else None,
    }


def parties(found: StoredChallenge) -> list[str]:
    """The accounts a challenge concerns: the challenger, the invitees, the open seats' takers."""
    accounts = [found.record["challenger"]]
    accounts += [e["account"] for _, e in sorted(found.seats.items()) if e.get("account")]
    return list(dict.fromkeys(accounts))
