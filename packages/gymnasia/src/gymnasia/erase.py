"""Erasing one user: every row of theirs, in the app's tables and in the harness's (journal,
ledger, approvals, diagnostics), in one transaction; then no copy of the bytes is left in a
SQLite file. Other users' rows are untouched."""

from __future__ import annotations

from typing import Final

from surefoot.sql import erase_user, reclaim

from .store import USER_TABLES, GymStore

ROUTINE_PARTS: Final = (
    ("routine_exercises", "gym_routine_exercises"),
    ("routine_series", "gym_routine_series"),
)
"""Rows that belong to a user through their routine (removed with it by ``ON DELETE
CASCADE``), counted before it goes."""


def erase_user_data(store: GymStore) -> dict[str, int]:
    """Delete all of ``store.user``'s data in one transaction; how many rows of each kind
    (an app table's name, a routine part, or the harness's ``conversations``, ``messages``,
    ``writes``, ``approvals``, ``diagnostics``) were removed."""
    counts: dict[str, int] = {}
    with store.db.transaction() as tx:
        for name, table in ROUTINE_PARTS:
            rows = tx.execute(
                f"SELECT COUNT(*) FROM {table} WHERE routine_id IN "
                "(SELECT id FROM gym_routines WHERE user_id = ?)",
                (store.user,),
            )
            counts[name] = int(rows[0][0])
        harness = erase_user(tx, store.user)  # first: it turns on SQLite's secure_delete
        for table in USER_TABLES:
            tx.execute(f"DELETE FROM {table} WHERE user_id = ?", (store.user,))
            counts[table] = max(tx.rowcount, 0)
        counts.update(harness)
    reclaim(store.db)
    return counts
