"""Data commands for diet and training: meals, routines, foods, exercises.

They run ``gymnasia.cli.main`` in-process (argv set for the call) so exit codes and the one-line
error contract are those a person sees; two tests run the real entry point in a subprocess.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gymnasia import catalog, meals
from gymnasia.cli import main
from gymnasia.diet import meal_json
from gymnasia.store import GymStore
from surefoot import open_database

DAY = "2020-01-02"


@dataclass(frozen=True)
class Run:
    """What one command did."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout parsed as one JSON value."""
        return json.loads(self.out)


@pytest.fixture
def gymnasia(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Call the CLI like a person would: ``gymnasia("meals", "show", ...)`` -> ``Run``."""
    for name in ("GYMNASIA_DB", "GYMNASIA_LANG"):
        monkeypatch.delenv(name, raising=False)

    def invoke(*args: str) -> Run:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["gymnasia", *args])
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        code = exited.value.code
        return Run(code if isinstance(code, int) else 1, captured.out, captured.err)

    return invoke


@pytest.fixture
def db(sqlite_url: str) -> str:
    """A database with one logged lunch and one routine."""
    store = GymStore(open_database(sqlite_url))
    with store.transaction() as tx:
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "white_rice_cooked", 150)
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "olive_oil", 10)
        store.add_meal_item(tx, dt.date(2020, 1, 2), "breakfast", "rolled_oats", 50)
        store.create_routine(tx, "Pierna", "strength", [("back_squat", [(5, 100.0, 180)])])
    store.db.close()
    return sqlite_url


def _items(url: str) -> int:
    database = open_database(url, create=False)
    count = int(database.query("SELECT COUNT(*) FROM gym_meal_items")[0][0])
    database.close()
    return count


def _one_line_error(run: Run) -> str:
    """The failure's line: on stderr, or under ``--json`` the message of the one JSON object
    ``{"error", "message"}`` on stdout (then stderr is empty)."""
    assert run.code == 2, run
    assert "Traceback" not in run.err + run.out
    if run.out:
        assert run.err == ""
        assert run.out.count("\n") == 1
        value = json.loads(run.out)
        assert set(value) == {"error", "message"}
        return f"gymnasia: {value['message']}"
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("gymnasia: ")
    assert "Traceback" not in run.err
    return lines[0]


# -- meals -------------------------------------------------------------------------------------


def test_meals_show_one_meal_as_json(gymnasia: Any, db: str) -> None:
    """`meals show DATE --meal M --json` prints that meal as read_meal returns it."""
    run = gymnasia("meals", "show", DAY, "--meal", "Comida", "--json", "--db", db)
    assert run.code == 0
    expected = meal_json(
        dt.date(2020, 1, 2),
        "lunch",
        [("white_rice_cooked", 150.0), ("olive_oil", 10.0)],
        "es",
        [1, 2],
    )
    assert run.json() == expected
    assert run.json()["label"] == "Comida"


def test_meals_show_the_whole_day(gymnasia: Any, db: str) -> None:
    """Without --meal it prints every meal of the day, in order, and the day's totals."""
    run = gymnasia("meals", "show", DAY, "--json", "--db", db, "--lang", "en")
    assert run.code == 0
    day = run.json()
    assert day["date"] == DAY
    assert [m["meal"] for m in day["meals"]] == list(meals.MEAL_IDS)
    assert [m["label"] for m in day["meals"]][:2] == ["Breakfast", "Mid-morning snack"]
    kcal = sum(
        catalog.foods()[food].per_100g["energy_kcal"] * grams / 100
        for food, grams in (("white_rice_cooked", 150), ("olive_oil", 10), ("rolled_oats", 50))
    )
    assert day["totals"]["energy_kcal"] == round(kcal, 1)


def test_meals_show_an_empty_day_succeeds(gymnasia: Any, db: str) -> None:
    """A day with nothing logged is shown as empty meals, exit 0."""
    run = gymnasia("meals", "show", "2021-06-01", "--json", "--db", db)
    assert run.code == 0
    assert all(m["items"] == [] for m in run.json()["meals"])
    text = gymnasia("meals", "show", "2021-06-01", "--db", db)
    assert text.code == 0
    assert "nada anotado" in text.out


def test_meals_add_appends_and_reports(gymnasia: Any, db: str) -> None:
    """`meals add` logs one more item (decimal comma accepted) and says what it logged."""
    run = gymnasia("meals", "add", DAY, "almuerzo", "banana_raw", "120,5", "--db", db)
    assert run.code == 0
    assert run.out.count("\n") == 1
    assert "Almuerzo" in run.out
    again = gymnasia(
        "meals", "add", DAY, "mid_morning", "banana_raw", "120.5", "--db", db, "--json"
    )
    assert [(i["food_id"], i["grams"]) for i in again.json()["items"]] == [
        ("banana_raw", 120.5),
        ("banana_raw", 120.5),
    ]
    assert _items(db) == 5


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("02/01/2020", "lunch", "rolled_oats", "50"), "02/01/2020"),
        (("2020-02-30", "lunch", "rolled_oats", "50"), "2020-02-30"),
        ((DAY, "brunch", "rolled_oats", "50"), "brunch"),
        ((DAY, "lunch", "unicorn_steak", "50"), "unicorn_steak"),
        ((DAY, "lunch", "rolled_oats", "0"), "0"),
        ((DAY, "lunch", "rolled_oats", "5001"), "5001"),
        ((DAY, "lunch", "rolled_oats", "50g"), "50g"),
        ((DAY, "lunch", "rolled_oats", "nan"), "nan"),
    ],
)
def test_meals_add_mistakes_are_one_line(
    gymnasia: Any, db: str, args: tuple[str, ...], needle: str
) -> None:
    """A bad date, meal, food or amount is one localized line, exit 2, nothing logged."""
    line = _one_line_error(gymnasia("meals", "add", *args, "--db", db))
    assert needle in line
    assert _items(db) == 3


def test_meal_mistakes_speak_the_language(gymnasia: Any, db: str) -> None:
    """The one-line message follows --lang."""
    line = _one_line_error(
        gymnasia("meals", "add", DAY, "tea", "rolled_oats", "5", "--db", db, "--lang", "en")
    )
    assert line == (
        "gymnasia: 'tea' is not a meal of the day: use breakfast, mid_morning, lunch, "
        "afternoon, dinner"
    )
    food = _one_line_error(
        gymnasia("meals", "add", DAY, "lunch", "x", "5", "--db", db, "--lang", "pt")
    )
    assert "gymnasia foods search" in food
    assert "alimento" in food


@pytest.mark.parametrize(
    "args",
    [("2020-1-2",), (DAY, "--meal", "elevenses"), ("yesterday", "--meal", "lunch")],
)
def test_meals_show_mistakes_are_one_line(gymnasia: Any, db: str, args: tuple[str, ...]) -> None:
    """`meals show` with a bad date or meal is one line, exit 2."""
    _one_line_error(gymnasia("meals", "show", *args, "--db", db))


@pytest.mark.parametrize(
    "command",
    [
        ("meals", "show", DAY),
        ("meals", "show", DAY, "--meal", "lunch", "--json"),
        ("meals", "add", DAY, "lunch", "rolled_oats", "50"),
        ("routines", "list", "--json"),
    ],
)
def test_a_missing_database_is_not_created(
    gymnasia: Any, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """On a database file that does not exist the commands exit 2 and create nothing."""
    missing = tmp_path / "nowhere" / "gym.db"
    line = _one_line_error(gymnasia(*command, "--db", str(missing)))
    assert str(missing) in line
    assert not missing.exists()
    assert not missing.parent.exists()


# -- routines ----------------------------------------------------------------------------------


def test_routines_list_json(gymnasia: Any, db: str) -> None:
    """`routines list --json` prints every routine with its exercises and series."""
    run = gymnasia("routines", "list", "--json", "--db", db)
    assert run.code == 0
    assert run.json() == [
        {
            "name": "Pierna",
            "category": "strength",
            "exercises": [
                {
                    "exercise_id": "back_squat",
                    "name": catalog.exercises()["back_squat"].names["es"],
                    "muscle_group": "quadriceps",
                    "series": [{"reps": 5, "weight_kg": 100.0, "rest_seconds": 180}],
                }
            ],
        }
    ]
    text = gymnasia("routines", "list", "--db", db)
    assert text.code == 0
    assert "Pierna (fuerza)" in text.out


def test_routines_list_empty(gymnasia: Any, sqlite_url: str) -> None:
    """With no routines the list is empty, exit 0."""
    open_database(sqlite_url).close()
    assert gymnasia("routines", "list", "--json", "--db", sqlite_url).json() == []


# -- foods and exercises -----------------------------------------------------------------------


def test_foods_search_json(gymnasia: Any) -> None:
    """`foods search QUERY --json` lists every match; no database is needed."""
    run = gymnasia("foods", "search", "POLLO", "--json", "--lang", "en")
    assert run.code == 0
    found = run.json()
    assert {f["id"] for f in found} == {"chicken_breast_raw", "chicken_breast_roasted"}
    assert all(f["name"].startswith("Chicken") for f in found)


def test_foods_search_filters_and_sorts(gymnasia: Any) -> None:
    """Options filter and sort like the tool; all matches are listed, not just 15."""
    run = gymnasia("foods", "search", "--category", "vegetables", "--sort-by", "calories", "--json")
    kcal = [f["per_100g"]["energy_kcal"] for f in run.json()]
    assert kcal == sorted(kcal)
    assert len(kcal) == sum(1 for f in catalog.foods().values() if f.category == "vegetables")
    lean = gymnasia("foods", "search", "--max-calories", "150", "--min-protein", "20", "--json")
    assert all(f["per_100g"]["protein_g"] >= 20 for f in lean.json())


@pytest.mark.parametrize(
    "args",
    [
        ("--category", "carne"),
        ("--sort-by", "sugar"),
        ("--max-calories", "lots"),
        ("--min-protein", "-3"),
    ],
)
def test_foods_search_mistakes_are_one_line(gymnasia: Any, args: tuple[str, ...]) -> None:
    """An unknown category or sort, or a bad number, is one line, exit 2."""
    line = _one_line_error(gymnasia("foods", "search", *args))
    assert args[1] in line


def test_exercises_search_json(gymnasia: Any) -> None:
    """`exercises search --json` filters by muscle group and equipment."""
    run = gymnasia(
        "exercises", "search", "--muscle-group", "back", "--equipment", "cable", "--json"
    )
    assert run.code == 0
    assert run.json()
    assert all((e["muscle_group"], e["equipment"]) == ("back", "cable") for e in run.json())
    named = gymnasia("exercises", "search", "sentadilla bulgara", "--json")
    assert [e["id"] for e in named.json()] == ["bulgarian_split_squat"]


def test_exercises_search_mistakes_are_one_line(gymnasia: Any) -> None:
    """An equipment or muscle group not in the table is one line, exit 2."""
    _one_line_error(gymnasia("exercises", "search", "--equipment", "smith"))
    _one_line_error(gymnasia("exercises", "search", "--muscle-group", "pecho"))


# -- the real entry point ----------------------------------------------------------------------


def _real(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_entry_point_mistake_is_one_line(tmp_path: Path) -> None:
    """`python -m gymnasia meals add` on a missing database: exit 2, one line, no file."""
    missing = tmp_path / "gym.db"
    done = _real("meals", "add", DAY, "lunch", "rolled_oats", "50", "--db", str(missing))
    assert (done.returncode, done.stdout) == (2, "")
    assert len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert not missing.exists()


def test_entry_point_prints_plain_json(db: str) -> None:
    """`python -m gymnasia meals show --json` prints exactly one JSON object on stdout."""
    done = _real("meals", "show", DAY, "--meal", "lunch", "--json", "--db", db)
    assert done.returncode == 0
    assert json.loads(done.stdout)["meal"] == "lunch"


@pytest.mark.parametrize(
    ("args", "lang", "message"),
    [
        (("measurements", "add", "2024-01-01", "--bogus"), "pt", "a opção --bogus não existe"),
        (("ask", "hola", "--timeout", "abc"), "es", "valor no válido para --timeout"),
        (("meals", "add"), "pt", "falta DATE"),
        (("meals", "edit", "1", "--grams", "10", "extra"), "en", "extra argument(s): extra"),
        (("measurements", "bogus"), "en", "there is no command 'bogus'"),
        (("meals", "edit", "-1", "--grams", "10"), "es", "la opción -1 no existe"),
    ],
    ids=["no-such-option", "bad-value", "missing", "extra", "no-such-command", "dash-number"],
)
@pytest.mark.parametrize("form", ["--json", "text"])
def test_command_line_mistakes_are_one_answer_in_the_users_language(
    gymnasia: Any, args: tuple[str, ...], lang: str, message: str, form: str
) -> None:
    """A mistake the command-line parser finds (before any command runs) is reported like
    every other mistake in the command line: one line on stderr in the language asked for
    (``--lang`` anywhere on the line), nothing on stdout even under ``--json``, exit 2 (it used
    to be Click's English text whatever was asked)."""
    extra = ("--json",) if form == "--json" else ()
    run = gymnasia(*args, "--lang", lang, *extra)
    assert (run.code, run.out) == (2, "")
    assert len(run.err.strip().splitlines()) == 1
    assert message in run.err


@pytest.mark.parametrize("typed", ["1_0_0", "1e2", "inf", "nan", "0x50", "80.", ".5"])
def test_numbers_are_only_as_people_write_them(gymnasia: Any, sqlite_url: str, typed: str) -> None:
    """Python's float() reads "1_0_0" as 100 and "1e2" as 100; a person means neither."""
    run = gymnasia("measurements", "add", "2020-01-01", "--weight-kg", typed, "--db", sqlite_url)
    assert run.code == 2
    assert f"«{typed}»" in run.err


def test_show_without_a_record_prints_nothing_on_stdout(gymnasia: Any, sqlite_url: str) -> None:
    """Nothing saved on that date: exit 1, nothing on stdout (also under ``--json``), the
    reason on stderr; a record shows only the fields that were measured."""
    assert gymnasia("measurements", "add", "2020-01-01", "--weight-kg", "80,5", "--db",
                    sqlite_url).code == 0  # fmt: skip
    missing = gymnasia("measurements", "show", "2020-01-02", "--db", sqlite_url, "--json")
    assert (missing.code, missing.out) == (1, "")
    assert "no hay registro para el 2020-01-02" in missing.err
    shown = gymnasia("measurements", "show", "2020-01-01", "--db", sqlite_url)
    assert shown.out.splitlines() == ["1 ene 2020", "peso: 80,5 kg"]


def test_writes_state_is_checked_in_the_users_language(gymnasia: Any, sqlite_url: str) -> None:
    run = gymnasia("writes", "--state", "bogus", "--lang", "pt", "--db", sqlite_url)
    assert run.code == 2
    assert "valor inválido «bogus» para --state" in run.err
