"""``gymnasia delete-data`` erases everything of one user in one transaction (measurements,
notes, meals, routines, conversations, the ledger of writes, confirmations, diagnostics) and
says how much of each went; other users keep all of theirs.

On SQLite the database file and its write-ahead log are then read byte by byte: the erased
user's note and chat text are nowhere in them (deleted rows are zeroed with ``secure_delete``,
the file is rebuilt with ``VACUUM`` and the log truncated), while the other user's note still
is. A control shows that a plain ``DELETE`` leaves the text in the file, so the search can
find it. On PostgreSQL no row of the user remains in any table of the schema.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TODAY = "2020-01-05"
ANA_NOTE = "ZANAHORIA-MORADA-4471"
ANA_CHAT = "PESO-SECRETO-DE-ANA"
BOB_NOTE = "BOB-KEEPS-THIS-9931"
KINDS = (
    "gym_measurements",
    "gym_memory",
    "gym_meal_items",
    "gym_routines",
    "routine_exercises",
    "routine_series",
    "gym_goals",
    "conversations",
    "messages",
    "writes",
    "approvals",
    "diagnostics",
)


def gym(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def ask(db: str, user: str, message: str, cwd: Path, *extra: str) -> dict[str, Any]:
    proc = gym("ask", message, "--db", db, "--user", user, "--today", TODAY, "--json", *extra,
               cwd=cwd)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    turn: dict[str, Any] = json.loads(proc.stdout)
    return turn


def seed(db: str, cwd: Path) -> None:
    """Ana: a note, a weight, a routine, a meal, a goal, a pending confirmation and a
    diagnostic; Bob: a note and a weight."""
    ana = [
        (f"Guarda la nota secreto: {ANA_NOTE}", ()),
        (f"Guarda mi peso: 71,4 kg el 2020-01-03. {ANA_CHAT}", ()),
        ("Create the routine Legs for strength: barbell back squat 3x10 with 60 kg, rest 90 s.",
         ("--lang", "en")),
        ("Add 150 g of white rice, cooked to lunch today.", ("--lang", "en")),
        ("Quiero llegar a 68 kg", ()),
        ("Borra la nota secreto.", ()),
        ("Consulta mi peso del 2020-01-03", ("--fault", "read_measurement:read_error")),
    ]  # fmt: skip
    for message, extra in ana:
        ask(db, "ana", message, cwd, *extra)
    ask(db, "bob", f"Guarda la nota mia: {BOB_NOTE}", cwd)
    ask(db, "bob", "Guarda mi peso: 90 kg el 2020-01-03.", cwd)


def erase(db: str, cwd: Path) -> dict[str, int]:
    proc = gym("delete-data", "--db", db, "--user", "ana", "--yes", "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["user"] == "ana"
    removed: dict[str, int] = result["removed"]
    assert list(removed) == list(KINDS)
    return removed


def assert_bob_intact(db: str, cwd: Path) -> None:
    exported = json.loads(gym("export", "--db", db, "--user", "bob", cwd=cwd).stdout)
    assert [m["value"] for m in exported["memory"]] == [BOB_NOTE]
    assert [m["weight_kg"] for m in exported["measurements"]] == [90.0]
    ana = json.loads(gym("export", "--db", db, "--user", "ana", cwd=cwd).stdout)
    assert (ana["memory"], ana["measurements"], ana["meals"], ana["routines"]) == ([], [], [], [])
    listed = gym("writes", "--db", db, "--user", "bob", "--json", cwd=cwd)
    assert [w["tool"] for w in json.loads(listed.stdout)] == ["save_memory", "write_measurement"]


def file_bytes(db: Path) -> bytes:
    """The database file and whatever SQLite keeps beside it (log, shared memory)."""
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def test_delete_data_leaves_no_byte_of_the_user_in_the_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "gym.db"
    seed(str(db), tmp_path)
    control = tmp_path / "control" / "gym.db"
    control.parent.mkdir()
    for path in tmp_path.glob("gym.db*"):
        shutil.copy(path, control.parent / path.name)
    assert ANA_NOTE.encode() in file_bytes(db)

    removed = erase(str(db), tmp_path)
    expected_nonzero = set(KINDS)
    assert {k for k, n in removed.items() if n > 0} == expected_nonzero, removed
    assert removed["gym_memory"] == 1  # the note (its deletion waits for a confirmation)
    assert removed["approvals"] == 1
    assert removed["diagnostics"] == 1

    stored = file_bytes(db)
    for text in (ANA_NOTE, ANA_CHAT):
        assert text.encode() not in stored
    assert BOB_NOTE.encode() in stored  # the search does find text that is there
    assert_bob_intact(str(db), tmp_path)
    again = erase(str(db), tmp_path)
    assert set(again.values()) == {0}

    # control: the same rows deleted with a plain DELETE (no secure_delete, which some SQLite
    # builds turn on by default, and no VACUUM) stay readable in the file
    conn = sqlite3.connect(control, isolation_level=None)
    conn.execute("PRAGMA secure_delete = OFF")
    for table in ("sf_messages", "sf_ledger", "gym_memory"):
        conn.execute(f"DELETE FROM {table} WHERE user_id = 'ana'")
    conn.close()
    assert ANA_NOTE.encode() in file_bytes(control)


def test_delete_data_leaves_no_row_of_the_user_in_postgresql(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    seed(pg_url, tmp_path)
    removed = erase(pg_url, tmp_path)
    assert {k for k, n in removed.items() if n > 0} == set(KINDS), removed
    assert_bob_intact(pg_url, tmp_path)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            ).fetchall()
        ]
        assert {"sf_messages", "sf_ledger", "gym_memory", "gym_routine_series"} <= set(tables)
        bob_rows = 0
        for table in tables:
            rows = conn.execute(f"SELECT t::text FROM {table} t").fetchall()
            texts = [r[0] for r in rows]
            assert not [t for t in texts if ANA_NOTE in t or ANA_CHAT in t], table
            columns = {
                r[0]
                for r in conn.execute(
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_schema = current_schema() AND table_name = %s",
                    (table,),
                ).fetchall()
            }
            if "user_id" in columns:
                counted = conn.execute(
                    f"SELECT COUNT(*) FILTER (WHERE user_id = 'ana'), "
                    f"COUNT(*) FILTER (WHERE user_id = 'bob') FROM {table}"
                ).fetchone()
                assert counted is not None
                assert counted[0] == 0, table
                bob_rows += counted[1]
            elif "routine_id" in columns:  # a routine's parts: none without its routine
                orphans = conn.execute(
                    f"SELECT COUNT(*) FROM {table} WHERE routine_id NOT IN "
                    "(SELECT id FROM gym_routines)"
                ).fetchone()
                assert orphans == (0,), table
        assert bob_rows > 0
    assert BOB_NOTE in json.dumps(json.loads(gym("export", "--db", pg_url, "--user", "bob",
                                                 cwd=tmp_path).stdout))  # fmt: skip


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_delete_data_says_what_it_removed_in_the_users_language(tmp_path: Path, lang: str) -> None:
    db = str(tmp_path / "gym.db")
    ask(db, "ana", f"Guarda la nota secreto: {ANA_NOTE}", tmp_path)
    proc = gym("delete-data", "--db", db, "--user", "ana", "--yes", "--lang", lang, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    heading = {"es": "Borrados todos los datos de «ana»:", "pt": "Excluídos todos os dados de "
               "«ana»:", "en": "Erased all data of 'ana':"}[lang]  # fmt: skip
    notes = {"es": "notas: 1", "pt": "notas: 1", "en": "notes: 1"}[lang]
    lines = proc.stdout.splitlines()
    assert lines[0] == heading
    assert f"  {notes}" in lines
    assert len(lines) == 1 + len(KINDS)
    declined = gym("delete-data", "--db", db, "--user", "ana", "--lang", lang, cwd=tmp_path,
                   stdin="n\n")  # fmt: skip
    assert declined.returncode == 1  # asked, and the answer was no


@pytest.mark.parametrize(
    ("lang", "yes", "hint"), [("es", "sí", "[s/N]"), ("pt", "sim", "[s/N]"), ("en", "y", "[y/N]")]
)
def test_delete_data_asks_in_the_users_language_and_json_stays_one_object(
    tmp_path: Path, lang: str, yes: str, hint: str
) -> None:
    """The question is asked on stderr with the language's own yes ("sí", "sim", "y"), so
    ``--json`` output is exactly one object; an answer that is not a yes erases nothing."""
    db = str(tmp_path / "gym.db")
    ask(db, "ana", f"Guarda la nota secreto: {ANA_NOTE}", tmp_path)
    command = ("delete-data", "--db", db, "--user", "ana", "--lang", lang, "--json")
    declined = gym(*command, cwd=tmp_path, stdin="quizá\n")
    assert (declined.returncode, declined.stdout) == (1, "")
    assert hint in declined.stderr
    assert "invalid input" not in declined.stderr
    erased = gym(*command, cwd=tmp_path, stdin=f"{yes}\n")
    assert erased.returncode == 0, erased.stderr
    assert json.loads(erased.stdout)["removed"]["gym_memory"] == 1
    assert hint in erased.stderr
