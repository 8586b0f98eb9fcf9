"""``gymnasia import`` reads what ``gymnasia export`` writes: a round trip gives the same
export; a malformed file is refused with one line and exit 2 and changes nothing; the import
is one transaction, so a failure halfway leaves the database as it was."""

from __future__ import annotations

import copy
import datetime as dt
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gymnasia import backup
from gymnasia.cli import main
from gymnasia.store import USER_TABLES, GymStore
from surefoot import open_database


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def gymnasia(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Call the CLI in-process; ``stdin`` is what it reads from standard input."""
    for name in ("GYMNASIA_DB", "GYMNASIA_LANG"):
        monkeypatch.delenv(name, raising=False)

    def invoke(*args: str, stdin: str = "") -> Run:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["gymnasia", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        code = exited.value.code
        return Run(code if isinstance(code, int) else 1, captured.out, captured.err)

    return invoke


def _fill(url: str, user: str = "default") -> None:
    """Every kind of record, with values that test the round trip (decimals, accents,
    several series, two items in one meal, an empty-looking note)."""
    store = GymStore(open_database(url), user=user)
    with store.transaction() as tx:
        store.upsert_measurement(
            tx,
            dt.date(2020, 1, 2),
            {
                "weight_kg": 80.5,
                "body_fat_pct": 18.25,
                "neck_cm": 38.0,
                "chest_cm": 101.5,
                "waist_cm": 84.5,
                "hips_cm": 98.0,
                "biceps_cm": 35.5,
                "quadriceps_cm": 58.0,
                "calf_cm": 38.5,
                "height_cm": 178.0,
            },
        )
        store.upsert_measurement(tx, dt.date(2019, 12, 31), {"weight_kg": 81.0})
        store.save_memory(tx, "objetivo", "Meta del año", "Correr 10 km «sin parar» ✓")
        store.save_memory(tx, "alergias", "", "")
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "white_rice_cooked", 150.5)
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "olive_oil", 10)
        store.add_meal_item(tx, dt.date(2020, 1, 1), "dinner", "rolled_oats", 50)
        store.create_routine(
            tx,
            "Pierna fuerte",
            "strength",
            [("back_squat", [(5, 100.0, 180), (3, 102.5, 240)]), ("plank", [(1, 0.0, 60)])],
        )
        store.create_routine(tx, "Cardio suave", "cardio", [("plank", [(1, 0.0, 30)])])
    store.db.close()


def _export(gymnasia: Any, url: str, user: str = "default") -> str:
    run = gymnasia("export", "--db", url, "--user", user)
    assert run.code == 0, run
    return run.out


def _rows(url: str) -> int:
    database = open_database(url, create=False)
    try:
        return sum(int(database.query(f"SELECT COUNT(*) FROM {t}")[0][0]) for t in USER_TABLES)
    finally:
        database.close()


def test_round_trip_into_an_empty_database(gymnasia: Any, db_url: str, tmp_path: Path) -> None:
    """export -> import into an empty database (SQLite, then PostgreSQL) -> export: equal."""
    source = str(tmp_path / "source.db")
    _fill(source)
    exported = _export(gymnasia, source)
    assert len(json.loads(exported)["meals"]) == 3
    backup = tmp_path / "backup.json"
    backup.write_text(exported, encoding="utf-8")
    run = gymnasia("import", str(backup), "--db", db_url)
    assert run.code == 0, run
    assert run.out == (
        "importado para «default»: 2 medida(s), 2 nota(s), 3 alimento(s) anotado(s), 2 rutina(s)\n"
    )
    assert _export(gymnasia, db_url) == exported


def test_import_into_another_user_and_from_stdin(gymnasia: Any, sqlite_url: str) -> None:
    """The data goes to --user (the file's user field says whose it was); '-' is stdin; the
    other users' data is untouched."""
    _fill(sqlite_url, user="ana")
    exported = _export(gymnasia, sqlite_url, "ana")
    run = gymnasia("import", "-", "--db", sqlite_url, "--user", "bea", "--json", stdin=exported)
    assert run.code == 0, run
    assert json.loads(run.out) == {
        "user": "bea",
        "imported": {"measurements": 2, "memory": 2, "meals": 3, "routines": 2, "goals": 0},
    }
    mine, theirs = json.loads(exported), json.loads(_export(gymnasia, sqlite_url, "bea"))
    assert {**theirs, "user": "ana"} == mine
    assert _export(gymnasia, sqlite_url, "ana") == exported


def test_a_user_with_data_is_refused_unless_replace(
    gymnasia: Any, sqlite_url: str, tmp_path: Path
) -> None:
    _fill(sqlite_url)
    exported = _export(gymnasia, sqlite_url)
    backup = tmp_path / "b.json"
    backup.write_text(exported, encoding="utf-8")
    gymnasia("measurements", "add", "2021-05-05", "--weight-kg", "70", "--db", sqlite_url)
    refused = gymnasia("import", str(backup), "--db", sqlite_url, "--lang", "en")
    assert (refused.code, refused.out) == (2, "")
    assert refused.err == (
        "gymnasia: user 'default' already has data; nothing was imported (--replace swaps them "
        "for the file's)\n"
    )
    assert "2021-05-05" in _export(gymnasia, sqlite_url)
    replaced = gymnasia("import", str(backup), "--db", sqlite_url, "--replace")
    assert replaced.code == 0
    assert _export(gymnasia, sqlite_url) == exported


def _mutate(path: list[Any], value: Any) -> Callable[[dict[str, Any]], Any]:
    def apply(data: dict[str, Any]) -> Any:
        node: Any = data
        for part in path[:-1]:
            node = node[part]
        if value is _DROP:
            del node[path[-1]]
        else:
            node[path[-1]] = value
        return data

    return apply


_DROP = object()

MALFORMED: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("a list", lambda d: [d], "$"),
    ("no meals", _mutate(["meals"], _DROP), "meals"),
    ("an extra section", _mutate(["workouts"], []), "workouts"),
    ("an extra field", _mutate(["measurements", 0, "mood"], "good"), "measurements[0].mood"),
    ("an ISO week date", _mutate(["measurements", 0, "date"], "2020-W01-3"), "[0].date"),
    ("an impossible date", _mutate(["meals", 0, "date"], "2020-02-30"), "meals[0].date"),
    ("weight out of range", _mutate(["measurements", 1, "weight_kg"], 5), "weight_kg"),
    ("weight as text", _mutate(["measurements", 1, "weight_kg"], "81"), "weight_kg"),
    ("a meal that is not one", _mutate(["meals", 2, "meal"], "brunch"), "meals[2].meal"),
    ("no grams", _mutate(["meals", 0, "grams"], 0), "meals[0].grams"),
    ("reps as a bool", _mutate(["routines", 0, "exercises", 0, "series", 0, "reps"], True), "reps"),
    ("a bad category", _mutate(["routines", 1, "category"], "yoga"), "routines[1].category"),
    ("a note without value", _mutate(["memory", 0, "value"], _DROP), "memory[0].value"),
    ("a date twice", _mutate(["measurements", 0, "date"], "2020-01-02"), "2020-01-02"),
    ("a key twice", _mutate(["memory", 0, "key"], "objetivo"), "objetivo"),
    ("a routine twice", _mutate(["routines", 1, "name"], "PIERNA FUERTE"), "PIERNA FUERTE"),
    ("an unknown food", _mutate(["meals", 1, "food_id"], "../../etc/passwd"), "meals[1].food_id"),
    (
        "an unknown exercise",
        _mutate(["routines", 0, "exercises", 1, "exercise_id"], "flying_kick"),
        "routines[0].exercises[1].exercise_id",
    ),
    ("a future date", _mutate(["measurements", 1, "date"], "2999-01-01"), "2999-01-01"),
    ("a date a century old", _mutate(["meals", 2, "date"], "1900-01-01"), "meals[2].date"),
]


@pytest.mark.parametrize(("why", "change", "where"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_export_is_one_line_and_imports_nothing(
    gymnasia: Any,
    sqlite_url: str,
    tmp_path: Path,
    why: str,
    change: Callable[[dict[str, Any]], Any],
    where: str,
) -> None:
    """Each defect is named in one localized line, exit 2; the target database is not even
    created, and an existing one keeps exactly what it had."""
    del why
    _fill(sqlite_url)
    bad = change(copy.deepcopy(json.loads(_export(gymnasia, sqlite_url))))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    fresh = tmp_path / "fresh.db"
    run = gymnasia("import", str(path), "--db", str(fresh))
    assert (run.code, run.out) == (2, "")
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith(f"gymnasia: {path} no es una exportación válida de Gymnasia (")
    assert lines[0].endswith("); no se ha importado nada")
    assert where in lines[0]
    assert not fresh.exists()
    existing = tmp_path / "existing.db"
    open_database(str(existing)).close()
    GymStore(open_database(str(existing))).db.close()
    again = gymnasia("import", str(path), "--db", str(existing), "--replace")
    assert again.code == 2
    assert _rows(str(existing)) == 0


@pytest.mark.parametrize(
    ("text", "lang", "line"),
    [
        ("{", "es", "no es una exportación válida de Gymnasia (no es JSON (línea 1))"),
        ('{"user": "x",\n', "pt", "não é uma exportação válida do Gymnasia (não é JSON (linha 2))"),
        ("", "en", "is not a valid Gymnasia export (not JSON (line 1)); nothing was imported"),
    ],
)
def test_a_file_that_is_not_json(
    gymnasia: Any, tmp_path: Path, text: str, lang: str, line: str
) -> None:
    path = tmp_path / "x.json"
    path.write_text(text, encoding="utf-8")
    run = gymnasia("import", str(path), "--db", str(tmp_path / "g.db"), "--lang", lang)
    assert run.code == 2
    assert len(run.err.splitlines()) == 1
    assert line in run.err


def test_a_missing_or_binary_file(gymnasia: Any, tmp_path: Path) -> None:
    missing = gymnasia("import", str(tmp_path / "nope.json"), "--db", str(tmp_path / "g.db"))
    assert missing.code == 2
    assert missing.err.startswith(f"gymnasia: no se puede leer {tmp_path / 'nope.json'}: ")
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    run = gymnasia("import", str(binary), "--db", str(tmp_path / "g.db"), "--lang", "en")
    assert run.code == 2
    assert len(run.err.splitlines()) == 1
    assert not (tmp_path / "g.db").exists()


def test_a_failure_halfway_leaves_nothing_behind(
    gymnasia: Any, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import is one transaction: when the database fails after the measurements and
    notes were written, none of them stay, and --replace has not deleted the old data."""
    _fill(sqlite_url)
    exported = _export(gymnasia, sqlite_url)
    backup = tmp_path / "b.json"
    backup.write_text(exported, encoding="utf-8")
    target = str(tmp_path / "target.db")
    _fill(target, user="default")
    gymnasia("measurements", "add", "2022-02-02", "--weight-kg", "70", "--db", target)
    before = _export(gymnasia, target)
    written: list[str] = []
    original = GymStore.add_meal_item

    def failing(self: GymStore, *args: Any) -> None:
        if written:
            msg = "disk full"
            raise OSError(msg)
        written.append("one")
        original(self, *args)

    monkeypatch.setattr(GymStore, "add_meal_item", failing)
    with pytest.raises(OSError, match="disk full"):
        gymnasia("import", str(backup), "--db", target, "--replace")
    monkeypatch.undo()
    assert written == ["one"]
    assert _export(gymnasia, target) == before


def test_the_real_entry_point_round_trips(tmp_path: Path, sqlite_url: str) -> None:
    """`python -m gymnasia export` piped into `python -m gymnasia import -`."""
    _fill(sqlite_url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}

    def real(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gymnasia", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    exported = real("export", "--db", sqlite_url).stdout
    target = str(tmp_path / "copy.db")
    done = real("import", "-", "--db", target, "--lang", "en", stdin=exported)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("imported for 'default': 2 measurement(s)")
    assert real("export", "--db", target).stdout == exported
    bad = real("import", "-", "--db", str(tmp_path / "other.db"), stdin="[1, 2]")
    assert (bad.returncode, bad.stdout, len(bad.stderr.splitlines())) == (2, "", 1)


def _refused_unread(run: Run, reason: str, target: Path) -> None:
    """One line naming the file and the reason, exit 2, and no database created."""
    assert (run.code, run.out) == (2, ""), run
    assert len(run.err.splitlines()) == 1
    assert reason in run.err
    assert not target.exists()


def test_a_device_is_refused_without_reading_it(gymnasia: Any, tmp_path: Path) -> None:
    """`import /dev/zero` stops at once (it used to read until memory ran out)."""
    target = tmp_path / "g.db"
    run = gymnasia("import", "/dev/zero", "--db", str(target), "--lang", "en")
    _refused_unread(run, "cannot read /dev/zero: not a regular file", target)


def test_a_fifo_without_a_writer_does_not_block(tmp_path: Path) -> None:
    """A FIFO nobody writes to is refused at once, by the real entry point (a timeout fails the
    test instead of hanging it)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    done = subprocess.run(
        [sys.executable, "-m", "gymnasia", "import", str(fifo), "--db", str(tmp_path / "g.db")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"gymnasia: no se puede leer {fifo}: no es un archivo normal (un dispositivo, una FIFO o "
        "una carpeta); usa un archivo que haya escrito «gymnasia export», o «-» para la entrada "
        "estándar\n"
    )


def test_an_oversized_file_is_refused_before_reading(gymnasia: Any, tmp_path: Path) -> None:
    """A file over the 64 MiB bound (sparse: nothing is written to disk) is refused by its
    size; so is a folder."""
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(backup.MAX_IMPORT_BYTES + 1)
    target = tmp_path / "g.db"
    run = gymnasia("import", str(big), "--db", str(target), "--lang", "pt")
    _refused_unread(run, "tem mais de 64 MiB, mais do que uma exportação pode ter", target)
    folder = gymnasia("import", str(tmp_path), "--db", str(target), "--lang", "en")
    _refused_unread(folder, "not a regular file", target)


def test_oversized_standard_input_is_cut_at_the_bound(
    gymnasia: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'-' reads at most the bound (one character more tells it is too large), then refuses."""
    monkeypatch.setattr(backup, "MAX_IMPORT_BYTES", 1024)
    read: list[int] = []

    class Endless(io.StringIO):
        def read(self, size: int | None = -1) -> str:
            read.append(-1 if size is None else size)
            return " " * (2048 if size is None or size < 0 else size)

    target = tmp_path / "g.db"
    monkeypatch.setattr(sys, "argv", ["gymnasia", "import", "-", "--db", str(target)])
    monkeypatch.setattr(sys, "stdin", Endless())
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    assert read == [1025]
    assert not target.exists()


def test_the_date_rules_follow_today(gymnasia: Any, sqlite_url: str, tmp_path: Path) -> None:
    """The export's dates are checked against --today: the same file is refused when a record
    is after it, and imported when today is later."""
    _fill(sqlite_url)
    backup_file = tmp_path / "b.json"
    backup_file.write_text(_export(gymnasia, sqlite_url), encoding="utf-8")
    target = str(tmp_path / "copy.db")
    early = gymnasia("import", str(backup_file), "--db", target, "--today", "2020-01-01")
    assert early.code == 2
    assert "measurements[1].date: 2020-01-02 es posterior a hoy (2020-01-01)" in early.err
    later = gymnasia("import", str(backup_file), "--db", target, "--today", "2020-01-02")
    assert later.code == 0, later


def test_undecodable_standard_input_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Standard input that cannot be decoded is refused in one line, with no database made."""

    class Undecodable(io.StringIO):
        def read(self, size: int | None = -1) -> str:
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    target = tmp_path / "g.db"
    monkeypatch.setattr(sys, "argv", ["gymnasia", "import", "-", "--db", str(target)])
    monkeypatch.setattr(sys, "stdin", Undecodable())
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    assert capsys.readouterr().err == "gymnasia: no se puede leer -: UnicodeDecodeError\n"
    assert not target.exists()
