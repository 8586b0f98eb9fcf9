"""Gymnasia's data: one database (SQLite file by default, or PostgreSQL), real schema,
migrations, per-user rows. The surefoot journal and ledger live in the same database, so a
write and its ledger record commit in one transaction (``Tx`` is shared with the handler).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # loaded by whoever opens a database; the field names load without it
    from surefoot.sql import Database, Tx

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
    """
    CREATE TABLE gym_meal_items (
        id {serial},
        user_id TEXT NOT NULL,
        date TEXT NOT NULL,
        meal TEXT NOT NULL
            CHECK (meal IN ('breakfast', 'mid_morning', 'lunch', 'afternoon', 'dinner')),
        food_id TEXT NOT NULL,
        grams {real} NOT NULL CHECK (grams > 0),
        created_at {real} NOT NULL
    );
    CREATE INDEX gym_meal_items_meal ON gym_meal_items (user_id, date, meal, id);
    CREATE TABLE gym_routines (
        id {serial},
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        category TEXT NOT NULL
            CHECK (category IN ('strength', 'hypertrophy', 'cardio', 'flexibility')),
        created_at {real} NOT NULL,
        UNIQUE (user_id, name_key)
    );
    CREATE TABLE gym_routine_exercises (
        routine_id BIGINT NOT NULL REFERENCES gym_routines (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        exercise_id TEXT NOT NULL,
        PRIMARY KEY (routine_id, position)
    );
    CREATE TABLE gym_routine_series (
        routine_id BIGINT NOT NULL,
        exercise_position INTEGER NOT NULL,
        position INTEGER NOT NULL,
        reps INTEGER NOT NULL CHECK (reps > 0),
        weight_kg {real} NOT NULL CHECK (weight_kg >= 0),
        rest_seconds INTEGER NOT NULL CHECK (rest_seconds >= 0),
        PRIMARY KEY (routine_id, exercise_position, position),
        FOREIGN KEY (routine_id, exercise_position)
            REFERENCES gym_routine_exercises (routine_id, position) ON DELETE CASCADE
    )
    """,
    """
    CREATE TABLE gym_goals (
        user_id TEXT NOT NULL,
        measure TEXT NOT NULL,
        target {real} NOT NULL,
        by_date TEXT,
        updated_at {real} NOT NULL,
        PRIMARY KEY (user_id, measure)
    )
    """,
]


class DateTaken(Exception):  # noqa: N818 - an expected condition, reported to the caller
    """A measurement cannot move to ``date``: that date has a record of its own."""

    def __init__(self, date: dt.date) -> None:
        super().__init__(date.isoformat())
        self.date = date


class DuplicateRoutine(Exception):  # noqa: N818 - an expected condition, reported to the caller
    """This user already has a routine called ``name`` (compared without case or accents)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def measurement_json(row: tuple[Any, ...]) -> dict[str, Any]:
    """A measurement row (date first, then the fields in order) as the tools return it."""
    out: dict[str, Any] = {"date": row[0]}
    for name, value in zip(MEASUREMENT_FIELDS, row[1:], strict=True):
        out[name] = None if value is None else float(value)
    return out


USER_TABLES: list[str] = ["gym_measurements", "gym_memory"]
"""Tables holding per-user rows (``delete_all`` clears them); later migrations add theirs."""
USER_TABLES += ["gym_meal_items", "gym_routines"]  # routine exercises and series cascade
USER_TABLES += ["gym_goals"]

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

    def read_measurement(self, date: dt.date, *, tx: Tx | None = None) -> dict[str, Any] | None:
        """The record for ``date`` (as ``tx`` sees it, when given), or None."""
        rows = self._rows(
            tx,
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

    def update_measurement(
        self,
        tx: Tx,
        date: dt.date,
        values: dict[str, float],
        *,
        clear: Iterable[str] = (),
        new_date: dt.date | None = None,
    ) -> dict[str, Any] | None:
        """Change the record of ``date``: given fields replace, ``clear``ed fields are emptied,
        the others keep their value, and ``new_date`` moves it. Returns the saved row, or None
        when ``date`` has no record (nothing changes). Raises ``DateTaken`` when ``new_date``
        already has a record of its own."""
        if not self._measured(tx, date):
            return None
        target = new_date or date
        if target != date and self._measured(tx, target):
            raise DateTaken(target)
        cleared = [n for n in MEASUREMENT_FIELDS if n in set(clear) and n not in values]
        names = [n for n in MEASUREMENT_FIELDS if n in values]
        sets = [f"{n} = ?" for n in names] + [f"{n} = NULL" for n in cleared]
        tx.execute(
            f"UPDATE gym_measurements SET {', '.join([*sets, 'date = ?', 'updated_at = {now}'])} "
            "WHERE user_id = ? AND date = ?",
            (*(values[n] for n in names), target.isoformat(), self.user, date.isoformat()),
        )
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM gym_measurements WHERE user_id = ? AND date = ?",
            (self.user, target.isoformat()),
        )
        return measurement_json(rows[0])

    def delete_measurement(self, tx: Tx, date: dt.date) -> dict[str, Any] | None:
        """Delete the record of ``date``; returns what it held, or None if there was none."""
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM gym_measurements WHERE user_id = ? AND date = ?",
            (self.user, date.isoformat()),
        )
        if not rows:
            return None
        tx.execute(
            "DELETE FROM gym_measurements WHERE user_id = ? AND date = ?",
            (self.user, date.isoformat()),
        )
        return measurement_json(rows[0])

    def nearest_values(
        self, date: dt.date, fields: Iterable[str], *, besides: Iterable[dt.date] = ()
    ) -> dict[str, tuple[dt.date, float]]:
        """Per field, the record nearest to ``date`` that has it (the earlier one on a tie),
        other than those of ``date`` and ``besides``: its date and value."""
        skipped = sorted({date.isoformat(), *(d.isoformat() for d in besides)})
        marks = ", ".join("?" * len(skipped))
        found: dict[str, tuple[dt.date, float]] = {}
        for field in MEASUREMENT_FIELDS:
            if field not in set(fields):
                continue
            near: list[tuple[dt.date, float]] = []
            for sign, order in (("<", "DESC"), (">", "ASC")):
                rows = self.db.query(
                    f"SELECT date, {field} FROM gym_measurements WHERE user_id = ? AND "
                    f"{field} IS NOT NULL AND date {sign} ? AND date NOT IN ({marks}) "
                    f"ORDER BY date {order} LIMIT 1",
                    (self.user, date.isoformat(), *skipped),
                )
                near += [(dt.date.fromisoformat(str(r[0])), float(r[1])) for r in rows]
            if near:
                found[field] = min(near, key=lambda item: abs((item[0] - date).days))
        return found

    def _measured(self, tx: Tx, date: dt.date) -> bool:
        rows = tx.execute(
            "SELECT 1 FROM gym_measurements WHERE user_id = ? AND date = ?",
            (self.user, date.isoformat()),
        )
        return bool(rows)

    # -- everything ----------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """All of this user's data, as JSON-ready values."""
        return {
            "user": self.user,
            "measurements": self.list_measurements(),
            "memory": [self.read_memory(key) for key in self.memory_keys()],
            "meals": self.meal_log(),
            "routines": [{k: v for k, v in r.items() if k != "id"} for r in self.routines()],
            "goals": self.goals(),
        }

    def delete_all(self) -> int:
        """Delete all of this user's rows; returns how many."""
        with self.db.transaction() as tx:
            return self.delete_all_in(tx)

    def delete_all_in(self, tx: Tx) -> int:
        """Delete all of this user's rows inside ``tx``; returns how many."""
        removed = 0
        for table in USER_TABLES:
            tx.execute(f"DELETE FROM {table} WHERE user_id = ?", (self.user,))
            removed += max(tx.rowcount, 0)
        return removed

    def has_data(self, tx: Tx | None = None) -> bool:
        """Whether this user has any row at all."""
        return any(
            self._rows(tx, f"SELECT 1 FROM {table} WHERE user_id = ? LIMIT 1", (self.user,))
            for table in USER_TABLES
        )

    def import_all(self, tx: Tx, data: dict[str, list[dict[str, Any]]]) -> int:
        """Write everything ``data`` holds for this user inside ``tx`` (the caller checked it:
        unique dates, keys and routine names); returns how many records were written."""
        for row in data["measurements"]:
            values = {n: v for n, v in row.items() if n != "date" and v is not None}
            self._insert_measurement(tx, dt.date.fromisoformat(str(row["date"])), values)
        for note in data["memory"]:
            self.save_memory(tx, note["key"], note["description"], note["value"])
        for item in data["meals"]:
            day = dt.date.fromisoformat(str(item["date"]))
            self.add_meal_item(tx, day, item["meal"], item["food_id"], float(item["grams"]))
        for routine in data["routines"]:
            plan = [
                (
                    step["exercise_id"],
                    [(s["reps"], s["weight_kg"], s["rest_seconds"]) for s in step["series"]],
                )
                for step in routine["exercises"]
            ]
            if self.create_routine(tx, routine["name"], routine["category"], plan) is None:
                raise DuplicateRoutine(routine["name"])
        for goal in data.get("goals", []):
            by_date = goal.get("by_date")
            until = dt.date.fromisoformat(str(by_date)) if by_date else None
            self.save_goal(tx, goal["measure"], float(goal["target"]), until)
        return sum(len(rows) for rows in data.values())

    def _insert_measurement(self, tx: Tx, date: dt.date, values: dict[str, Any]) -> None:
        names = [n for n in MEASUREMENT_FIELDS if n in values]
        cols = ", ".join(["user_id", "date", *names, "updated_at"])
        marks = ", ".join(["?"] * (len(names) + 2) + ["{now}"])
        tx.execute(
            f"INSERT INTO gym_measurements ({cols}) VALUES ({marks})",
            (self.user, date.isoformat(), *(float(values[n]) for n in names)),
        )

    # -- goals -------------------------------------------------------------------------------

    def save_goal(
        self, tx: Tx, measure: str, target: float, by_date: dt.date | None
    ) -> dict[str, Any]:
        """Set the goal of one measure (replacing its earlier goal); returns it."""
        day = by_date.isoformat() if by_date else None
        tx.execute(
            "INSERT INTO gym_goals (user_id, measure, target, by_date, updated_at) "
            "VALUES (?, ?, ?, ?, {now}) ON CONFLICT (user_id, measure) DO UPDATE SET "
            "target = excluded.target, by_date = excluded.by_date, updated_at = {now}",
            (self.user, measure, target, day),
        )
        return {"measure": measure, "target": target, "by_date": day}

    def goals(self) -> list[dict[str, Any]]:
        """This user's goals, in the order of the measurement fields."""
        rows = self.db.query(
            "SELECT measure, target, by_date FROM gym_goals WHERE user_id = ?", (self.user,)
        )
        found = {r[0]: {"measure": r[0], "target": float(r[1]), "by_date": r[2]} for r in rows}
        return [found[name] for name in MEASUREMENT_FIELDS if name in found]

    def delete_goal(self, tx: Tx, measure: str) -> bool:
        """Delete the goal of one measure; False if there was none."""
        tx.execute("DELETE FROM gym_goals WHERE user_id = ? AND measure = ?", (self.user, measure))
        return tx.rowcount == 1

    # -- memory ------------------------------------------------------------------------------

    def memory_keys(self) -> list[str]:
        """Saved note keys, sorted."""
        rows = self.db.query(
            "SELECT key FROM gym_memory WHERE user_id = ? ORDER BY key", (self.user,)
        )
        return [r[0] for r in rows]

    def read_memory(self, key: str, *, tx: Tx | None = None) -> dict[str, str] | None:
        """The note ``key`` (as ``tx`` sees it, when given), or None."""
        rows = self._rows(
            tx,
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

    # -- diet log ----------------------------------------------------------------------------

    def _rows(self, tx: Tx | None, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return tx.execute(sql, params) if tx is not None else self.db.query(sql, params)

    def add_meal_item(self, tx: Tx, date: dt.date, meal: str, food_id: str, grams: float) -> None:
        """Append ``grams`` of ``food_id`` to one meal of ``date`` (never merges or replaces)."""
        tx.execute(
            "INSERT INTO gym_meal_items (user_id, date, meal, food_id, grams, created_at) "
            "VALUES (?, ?, ?, ?, ?, {now})",
            (self.user, date.isoformat(), meal, food_id, grams),
        )

    def meal_items(
        self, date: dt.date, meal: str | None = None, *, tx: Tx | None = None
    ) -> list[tuple[str, str, float]]:
        """``(meal, food_id, grams)`` logged on ``date`` (one meal, or all), in the order added;
        pass ``tx`` to see the writes of that open transaction."""
        sql = "SELECT meal, food_id, grams FROM gym_meal_items WHERE user_id = ? AND date = ?"
        params: tuple[Any, ...] = (self.user, date.isoformat())
        if meal is not None:
            sql, params = sql + " AND meal = ?", (*params, meal)
        rows = self._rows(tx, sql + " ORDER BY id", params)
        return [(r[0], r[1], float(r[2])) for r in rows]

    def meal_entries(
        self, date: dt.date, meal: str | None = None, *, tx: Tx | None = None
    ) -> list[tuple[int, str, str, float]]:
        """``(item_id, meal, food_id, grams)`` logged on ``date`` (one meal, or all), in the
        order added."""
        sql = "SELECT id, meal, food_id, grams FROM gym_meal_items WHERE user_id = ? AND date = ?"
        params: tuple[Any, ...] = (self.user, date.isoformat())
        if meal is not None:
            sql, params = sql + " AND meal = ?", (*params, meal)
        rows = self._rows(tx, sql + " ORDER BY id", params)
        return [(int(r[0]), r[1], r[2], float(r[3])) for r in rows]

    def meal_item(self, item_id: int, *, tx: Tx | None = None) -> dict[str, Any] | None:
        """One logged item of this user (``item_id``, date, meal, food_id, grams), or None."""
        rows = self._rows(
            tx,
            "SELECT id, date, meal, food_id, grams FROM gym_meal_items "
            "WHERE user_id = ? AND id = ?",
            (self.user, item_id),
        )
        if not rows:
            return None
        row = rows[0]
        return {
            "item_id": int(row[0]),
            "date": row[1],
            "meal": row[2],
            "food_id": row[3],
            "grams": float(row[4]),
        }

    def update_meal_item(
        self, tx: Tx, item_id: int, changes: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Change one logged item: ``changes`` may hold ``date`` (a ``dt.date``), ``meal``,
        ``food_id`` and ``grams``; the rest keeps its value. The item keeps its place among
        the items of its meal. Returns the saved item, or None when this user has no such
        item (nothing changes)."""
        if self.meal_item(item_id, tx=tx) is None:
            return None
        allowed = ("date", "meal", "food_id", "grams")
        names = [n for n in allowed if n in changes]
        if names:
            values = [
                changes[n].isoformat() if isinstance(changes[n], dt.date) else changes[n]
                for n in names
            ]
            tx.execute(
                f"UPDATE gym_meal_items SET {', '.join(f'{n} = ?' for n in names)} "
                "WHERE user_id = ? AND id = ?",
                (*values, self.user, item_id),
            )
        return self.meal_item(item_id, tx=tx)

    def delete_meal_item(self, tx: Tx, item_id: int) -> dict[str, Any] | None:
        """Delete one logged item; returns what it was, or None if this user has no such item."""
        found = self.meal_item(item_id, tx=tx)
        if found is None:
            return None
        tx.execute("DELETE FROM gym_meal_items WHERE user_id = ? AND id = ?", (self.user, item_id))
        return found

    def meal_log(self) -> list[dict[str, Any]]:
        """Every logged item of this user, by date and order added (for export)."""
        rows = self.db.query(
            "SELECT date, meal, food_id, grams FROM gym_meal_items WHERE user_id = ? "
            "ORDER BY date, id",
            (self.user,),
        )
        return [{"date": r[0], "meal": r[1], "food_id": r[2], "grams": float(r[3])} for r in rows]

    # -- routines ----------------------------------------------------------------------------

    def create_routine(
        self,
        tx: Tx,
        name: str,
        category: str,
        exercises: list[tuple[str, list[tuple[int, float, int]]]],
    ) -> int | None:
        """Save a routine: ``exercises`` are ``(exercise_id, [(reps, weight_kg, rest_seconds)])``
        in order. Returns its id, or None when this user already has a routine of that name
        (compared without case or accents)."""
        from .catalog import fold

        key = fold(name)
        taken = tx.execute(
            "SELECT 1 FROM gym_routines WHERE user_id = ? AND name_key = ?", (self.user, key)
        )
        if taken:
            return None
        rows = tx.execute(
            "INSERT INTO gym_routines (user_id, name, name_key, category, created_at) "
            "VALUES (?, ?, ?, ?, {now}) RETURNING id",
            (self.user, name, key, category),
        )
        routine_id = int(rows[0][0])
        self._insert_exercises(tx, routine_id, exercises)
        return routine_id

    def routines(
        self, routine_id: int | None = None, *, tx: Tx | None = None
    ) -> list[dict[str, Any]]:
        """This user's routines (or just ``routine_id``) in the order created, each with its
        exercises and their series in order."""
        only = "" if routine_id is None else " AND r.id = ?"
        params: tuple[Any, ...] = (self.user,) if routine_id is None else (self.user, routine_id)
        heads = self._rows(
            tx,
            f"SELECT r.id, r.name, r.category FROM gym_routines r WHERE r.user_id = ?{only} "
            "ORDER BY r.id",
            params,
        )
        parts = self._rows(
            tx,
            "SELECT e.routine_id, e.position, e.exercise_id FROM gym_routine_exercises e "
            f"JOIN gym_routines r ON r.id = e.routine_id WHERE r.user_id = ?{only} "
            "ORDER BY e.routine_id, e.position",
            params,
        )
        series = self._rows(
            tx,
            "SELECT s.routine_id, s.exercise_position, s.reps, s.weight_kg, s.rest_seconds "
            "FROM gym_routine_series s JOIN gym_routines r ON r.id = s.routine_id "
            f"WHERE r.user_id = ?{only} ORDER BY s.routine_id, s.exercise_position, s.position",
            params,
        )
        sets: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for rid, pos, reps, weight, rest in series:
            sets.setdefault((int(rid), int(pos)), []).append(
                {"reps": int(reps), "weight_kg": float(weight), "rest_seconds": int(rest)}
            )
        steps: dict[int, list[dict[str, Any]]] = {}
        for rid, pos, exercise_id in parts:
            steps.setdefault(int(rid), []).append(
                {"exercise_id": exercise_id, "series": sets.get((int(rid), int(pos)), [])}
            )
        return [
            {
                "id": int(rid),
                "name": name,
                "category": category,
                "exercises": steps.get(int(rid), []),
            }
            for rid, name, category in heads
        ]

    def find_routine(self, name: str, *, tx: Tx | None = None) -> int | None:
        """The id of this user's routine called ``name`` (without case or accents), or None."""
        from .catalog import fold

        rows = self._rows(
            tx,
            "SELECT id FROM gym_routines WHERE user_id = ? AND name_key = ?",
            (self.user, fold(name)),
        )
        return int(rows[0][0]) if rows else None

    def rename_routine(self, tx: Tx, routine_id: int, name: str) -> bool:
        """Give routine ``routine_id`` a new name; False when another routine of this user
        already has it (nothing changes)."""
        from .catalog import fold

        key = fold(name)
        taken = tx.execute(
            "SELECT 1 FROM gym_routines WHERE user_id = ? AND name_key = ? AND id <> ?",
            (self.user, key, routine_id),
        )
        if taken:
            return False
        tx.execute(
            "UPDATE gym_routines SET name = ?, name_key = ? WHERE user_id = ? AND id = ?",
            (name, key, self.user, routine_id),
        )
        return True

    def replace_routine_exercises(
        self,
        tx: Tx,
        routine_id: int,
        exercises: list[tuple[str, list[tuple[int, float, int]]]],
    ) -> None:
        """Make ``exercises`` (in order, each with its series) the whole content of routine
        ``routine_id``: adding, removing and reordering are all this one rewrite."""
        owned = tx.execute(
            "SELECT 1 FROM gym_routines WHERE user_id = ? AND id = ?", (self.user, routine_id)
        )
        if not owned:
            msg = f"routine {routine_id} is not this user's"
            raise LookupError(msg)
        tx.execute("DELETE FROM gym_routine_series WHERE routine_id = ?", (routine_id,))
        tx.execute("DELETE FROM gym_routine_exercises WHERE routine_id = ?", (routine_id,))
        self._insert_exercises(tx, routine_id, exercises)

    def delete_routine(self, tx: Tx, routine_id: int) -> bool:
        """Delete routine ``routine_id`` with its exercises and series; False if it is not
        this user's."""
        tx.execute("DELETE FROM gym_routines WHERE user_id = ? AND id = ?", (self.user, routine_id))
        return tx.rowcount == 1

    def _insert_exercises(
        self,
        tx: Tx,
        routine_id: int,
        exercises: list[tuple[str, list[tuple[int, float, int]]]],
    ) -> None:
        for position, (exercise_id, series) in enumerate(exercises, start=1):
            tx.execute(
                "INSERT INTO gym_routine_exercises (routine_id, position, exercise_id) "
                "VALUES (?, ?, ?)",
                (routine_id, position, exercise_id),
            )
            for number, (reps, weight_kg, rest_seconds) in enumerate(series, start=1):
                tx.execute(
                    "INSERT INTO gym_routine_series (routine_id, exercise_position, position, "
                    "reps, weight_kg, rest_seconds) VALUES (?, ?, ?, ?, ?, ?)",
                    (routine_id, position, number, reps, weight_kg, rest_seconds),
                )
