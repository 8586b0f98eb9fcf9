"""Gymnasia's data: one database (SQLite file by default, or PostgreSQL), real schema,
migrations, per-user rows. The surefoot journal and ledger live in the same database, so a
write and its ledger record commit in one transaction (``Tx`` is shared with the handler).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from surefoot import Database, Tx

MEASUREMENT_FIELDS: Final = (
    "weight_kg",
    "body_fat_pct",
    "neck_cm",
    "chest_cm",
    "waist_cm",
    "hips_cm",
    "biceps_cm",
    "quadriceps_cm",
    "calf_cm",
    "height_cm",
)

MIGRATIONS: Final = [
    """
    CREATE TABLE gym_measurements (
        user_id TEXT NOT NULL,
        date TEXT NOT NULL,
        weight_kg {real}, body_fat_pct {real}, neck_cm {real}, chest_cm {real},
        waist_cm {real}, hips_cm {real}, biceps_cm {real}, quadriceps_cm {real},
        calf_cm {real}, height_cm {real},
        updated_at {real} NOT NULL,
        PRIMARY KEY (user_id, date)
    );
    CREATE TABLE gym_memory (
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        description TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at {real} NOT NULL,
        PRIMARY KEY (user_id, key)
    )
    """,
]


def measurement_json(row: tuple[Any, ...]) -> dict[str, Any]:
    """A measurement row (date first, then the fields in order) as the tools return it."""
    out: dict[str, Any] = {"date": row[0]}
    for name, value in zip(MEASUREMENT_FIELDS, row[1:], strict=True):
        out[name] = None if value is None else float(value)
    return out


USER_TABLES: list[str] = ["gym_measurements", "gym_memory"]
"""Tables holding per-user rows (``delete_all`` clears them); later migrations add theirs."""

_COLUMNS: Final = "date, " + ", ".join(MEASUREMENT_FIELDS)


@dataclass
class GymStore:
    """Reads and writes one user's data."""

    db: Database
    user: str = "default"

    def __post_init__(self) -> None:
        self.db.migrate("gymnasia", MIGRATIONS)

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A write transaction on the shared database."""
        with self.db.transaction() as tx:
            yield tx

    # -- measurements ------------------------------------------------------------------------

    def read_measurement(self, date: dt.date) -> dict[str, Any] | None:
        """The record for ``date``, or None."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM gym_measurements WHERE user_id = ? AND date = ?",
            (self.user, date.isoformat()),
        )
        return measurement_json(rows[0]) if rows else None

    def list_measurements(
        self, date_from: dt.date | None = None, date_to: dt.date | None = None
    ) -> list[dict[str, Any]]:
        """Records in ``[date_from, date_to]`` (either end open when None), by date."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM gym_measurements WHERE user_id = ? "
            "AND date >= ? AND date <= ? ORDER BY date",
            (
                self.user,
                date_from.isoformat() if date_from else "0000-00-00",
                date_to.isoformat() if date_to else "9999-99-99",
            ),
        )
        return [measurement_json(r) for r in rows]

    def upsert_measurement(self, tx: Tx, date: dt.date, values: dict[str, float]) -> dict[str, Any]:
        """Given fields replace, omitted fields keep their value; returns the saved row."""
        names = [n for n in MEASUREMENT_FIELDS if n in values]
        insert_cols = ", ".join(["user_id", "date", *names, "updated_at"])
        marks = ", ".join(["?"] * (len(names) + 2) + ["{now}"])
        updates = ", ".join([f"{n} = excluded.{n}" for n in names] + ["updated_at = {now}"])
        tx.execute(
            f"INSERT INTO gym_measurements ({insert_cols}) VALUES ({marks}) "
            f"ON CONFLICT (user_id, date) DO UPDATE SET {updates}",
            (self.user, date.isoformat(), *(values[n] for n in names)),
        )
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM gym_measurements WHERE user_id = ? AND date = ?",
            (self.user, date.isoformat()),
        )
        return measurement_json(rows[0])

    # -- everything ----------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """All of this user's data, as JSON-ready values."""
        return {
            "user": self.user,
            "measurements": self.list_measurements(),
            "memory": [self.read_memory(key) for key in self.memory_keys()],
        }

    def delete_all(self) -> int:
        """Delete all of this user's rows; returns how many."""
        removed = 0
        with self.db.transaction() as tx:
            for table in USER_TABLES:
                tx.execute(f"DELETE FROM {table} WHERE user_id = ?", (self.user,))
                removed += max(tx.rowcount, 0)
        return removed

    # -- memory ------------------------------------------------------------------------------

    def memory_keys(self) -> list[str]:
        """Saved note keys, sorted."""
        rows = self.db.query(
            "SELECT key FROM gym_memory WHERE user_id = ? ORDER BY key", (self.user,)
        )
        return [r[0] for r in rows]

    def read_memory(self, key: str) -> dict[str, str] | None:
        """The note ``key``, or None."""
        rows = self.db.query(
            "SELECT key, description, value FROM gym_memory WHERE user_id = ? AND key = ?",
            (self.user, key),
        )
        return {"key": rows[0][0], "description": rows[0][1], "value": rows[0][2]} if rows else None

    def save_memory(self, tx: Tx, key: str, description: str, value: str) -> dict[str, str]:
        """Upsert one note; other notes are untouched."""
        tx.execute(
            "INSERT INTO gym_memory (user_id, key, description, value, updated_at) "
            "VALUES (?, ?, ?, ?, {now}) ON CONFLICT (user_id, key) DO UPDATE SET "
            "description = excluded.description, value = excluded.value, updated_at = {now}",
            (self.user, key, description, value),
        )
        return {"key": key, "description": description, "value": value}

    def delete_memory(self, tx: Tx, key: str) -> bool:
        """Delete one note; False if it did not exist."""
        tx.execute("DELETE FROM gym_memory WHERE user_id = ? AND key = ?", (self.user, key))
        return tx.rowcount == 1
