"""The rules that guard the person's data (``gymnasia.rules``), through the tools (a scripted
model sends the bad call) and through the offline Coach (whose parser asks the same rules):
dates not after today nor a century back, goals saved as goals, and an unlikely value asked
of the person, written once after approval (also after a restart), never before."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gymnasia import rules
from gymnasia.app import Coach, open_coach
from gymnasia.offline import _measure
from surefoot import Ok, Recovery, ToolError, TurnResult
from surefoot.testing import ScriptedModel, call, turn

TODAY = dt.date(2026, 12, 4)
YESTERDAY = "2026-12-03"


def run(coroutine: Any) -> TurnResult:
    result: TurnResult = asyncio.run(coroutine)
    return result


def scripted(db: Path, *steps: Any, lang: Any = "es") -> Coach:
    """A Coach on ``db`` whose model plays ``steps`` (the tools are the real ones)."""
    return open_coach(db=str(db), model=ScriptedModel(list(steps)), lang=lang, today=TODAY)


def offline(db: Path, lang: Any = "es") -> Coach:
    """The offline Coach on ``db``, today being ``TODAY``."""
    return open_coach(db=str(db), lang=lang, today=TODAY)


def seed_weight(db: Path, date: str = YESTERDAY, kg: float = 76.0) -> None:
    coach = scripted(
        db, turn(call("write_measurement", {"date": date, "weight_kg": kg})), turn("ok")
    )
    done = run(coach.agent.run_turn(f"Guarda mi peso: {kg} kg el {date}"))
    assert isinstance(done.calls[0].outcome, Ok)
    coach.close()


def only_error(result: TurnResult) -> ToolError:
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError), record.outcome
    return record.outcome


# -- dates -------------------------------------------------------------------------------------


def test_a_measurement_dated_after_today_is_refused_with_the_facts(tmp_path: Path) -> None:
    """write_measurement for 2026-12-31: date_in_future, correct_arguments, today named, and
    nothing is written."""
    db = tmp_path / "g.db"
    coach = scripted(
        db,
        turn(call("write_measurement", {"date": "2026-12-31", "weight_kg": 82.0})),
        turn("No."),
        lang="en",
    )
    error = only_error(run(coach.agent.run_turn("Record 82 kg for 2026-12-31")))
    assert (error.code, error.recovery) == ("date_in_future", Recovery.CORRECT_ARGUMENTS)
    assert "2026-12-31 is after today (2026-12-04)" in error.message
    assert error.details[0].field == "date"
    assert coach.store.list_measurements() == []


def test_a_meal_dated_1900_is_refused_as_too_old(tmp_path: Path) -> None:
    """add_meal_food on 1900-01-01: date_too_old with the oldest allowed date; no item."""
    coach = scripted(
        tmp_path / "g.db",
        turn(
            call(
                "add_meal_food",
                {"date": "1900-01-01", "meal": "lunch", "food_id": "lentils_cooked", "grams": 220},
            )
        ),
        turn("No."),
    )
    error = only_error(
        run(coach.agent.run_turn("Apunta 220 g de lentejas en la comida del 1900-01-01"))
    )
    assert (error.code, error.recovery) == ("date_too_old", Recovery.CORRECT_ARGUMENTS)
    assert "1926-12-04" in error.message
    assert error.message.startswith("No se ha guardado nada")
    assert coach.store.meal_log() == []


@pytest.mark.parametrize(
    ("lang", "start"),
    [
        ("es", "No se ha guardado nada: 2026-12-31 es posterior a hoy (2026-12-04)"),
        ("pt", "Nada foi salvo: 2026-12-31 é depois de hoje (2026-12-04)"),
        ("en", "Nothing was saved: 2026-12-31 is after today (2026-12-04)"),
    ],
)
def test_a_moved_measurement_cannot_land_in_the_future(
    tmp_path: Path, lang: Any, start: str
) -> None:
    """edit_measurement's new_date follows the same rule, in the turn's language."""
    db = tmp_path / "g.db"
    seed_weight(db)
    coach = scripted(
        db,
        turn(call("edit_measurement", {"date": YESTERDAY, "new_date": "2026-12-31"})),
        turn("No."),
        lang=lang,
    )
    error = only_error(run(coach.agent.run_turn("Pasa la medida del 2026-12-03 al 2026-12-31")))
    assert error.code == "date_in_future"
    assert error.message.startswith(start)
    assert [m["date"] for m in coach.store.list_measurements()] == [YESTERDAY]


def test_the_parser_asks_the_tools_rule_not_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The offline parser uses the rules module's own function and ranges; changing the one
    rule (a record at most 1 year back) changes what both the tool and the parser refuse."""
    assert vars(_measure)["date_problem"] is rules.date_problem
    assert vars(_measure)["MEASUREMENT_LIMITS"] is rules.MEASUREMENT_LIMITS
    assert not hasattr(_measure, "BOUNDS")
    monkeypatch.setattr(rules, "MAX_YEARS_BACK", 1)
    coach = offline(tmp_path / "g.db")
    said = run(coach.agent.run_turn("Guarda mi peso: 77 kg el 2024-01-04"))
    assert said.calls == ()
    assert "«2024-01-04» es una fecha demasiado antigua" in said.reply
    tool = scripted(
        tmp_path / "g.db",
        turn(call("write_measurement", {"date": "2024-01-04", "weight_kg": 77.0})),
        turn("No."),
    )
    error = only_error(run(tool.agent.run_turn("77 kg el 2024-01-04")))
    assert error.code == "date_too_old"
    assert "más de 1 años antes de hoy" in error.message
    assert tool.store.list_measurements() == []


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("es", "Guarda mi peso: 82 kg el 2026-12-31"),
        ("pt", "Salve o meu peso: 82 kg em 2026-12-31"),
        ("en", "Record 82 kg for 2026-12-31"),
        ("es", "Desayuné 200 g de avena el 1900-01-01"),
        ("en", "Save my weight: 77 kg on 1900-01-01"),
    ],
)
def test_the_offline_coach_writes_no_out_of_time_record(
    tmp_path: Path, lang: Any, text: str
) -> None:
    """A date after today or a century back: the offline Coach asks back and writes nothing."""
    coach = offline(tmp_path / "g.db", lang)
    said = run(coach.agent.run_turn(text))
    assert [r.call.name for r in said.calls if r.call.name != "search_foods"] == []
    assert coach.store.list_measurements() == []
    assert coach.store.meal_log() == []


# -- goals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "reply"),
    [
        ("es", "Quiero llegar a 74 kg", "He guardado tu objetivo: objetivo de peso: 74 kg."),
        ("pt", "Quero chegar a 74 kg", "Salvei sua meta: meta de peso: 74 kg."),
        ("en", "I want to get to 74 kg", "I saved your goal: weight goal: 74 kg."),
        (
            "en",
            "My goal is a waist of 80 cm by 2027-06-01",
            "I saved your goal: waist goal: 80 cm (by 2027-06-01).",
        ),
    ],
)
def test_a_goal_is_saved_as_a_goal_not_a_measurement(
    tmp_path: Path, lang: Any, text: str, reply: str
) -> None:
    """The offline Coach routes a goal to save_goal; no measurement is written."""
    coach = offline(tmp_path / "g.db", lang)
    said = run(coach.agent.run_turn(text))
    assert [r.call.name for r in said.calls] == ["save_goal"]
    assert said.reply == reply
    assert coach.store.list_measurements() == []
    assert len(coach.store.goals()) == 1


def test_a_goal_with_a_past_deadline_is_refused(tmp_path: Path) -> None:
    """save_goal by 2026-01-01 (passed): date_in_past, nothing saved; without a date it is
    saved, replaces the measure's earlier goal, and read_goals returns it."""
    coach = scripted(
        tmp_path / "g.db",
        turn(call("save_goal", {"measure": "weight_kg", "target": 74, "by_date": "2026-01-01"})),
        turn(call("save_goal", {"measure": "weight_kg", "target": 72})),
        turn(call("save_goal", {"measure": "weight_kg", "target": 74})),
        turn(call("read_goals", {})),
        turn("ok"),
        lang="en",
    )
    done = run(coach.agent.run_turn("My goal: 74 kg by 2026-01-01, or 72 kg, no, 74 kg"))
    first = done.calls[0].outcome
    assert isinstance(first, ToolError)
    assert (first.code, first.recovery) == ("date_in_past", Recovery.CORRECT_ARGUMENTS)
    assert "2026-01-01" in first.message
    assert done.calls[-1].outcome == Ok(
        {"goals": [{"measure": "weight_kg", "target": 74.0, "by_date": None}]}
    )


def test_a_goal_outside_the_measures_range_is_refused(tmp_path: Path) -> None:
    """save_goal with 5 kg (the range is 20 to 400): invalid_arguments on target, in the
    person's language, and nothing saved."""
    coach = scripted(
        tmp_path / "g.db",
        turn(call("save_goal", {"measure": "weight_kg", "target": 5})),
        turn("ok"),
        lang="en",
    )
    done = run(coach.agent.run_turn("My goal is 5 kg"))
    refused = done.calls[0].outcome
    assert isinstance(refused, ToolError)
    assert (refused.code, refused.recovery) == ("invalid_arguments", Recovery.CORRECT_ARGUMENTS)
    assert [d.field for d in refused.details] == ["target"]
    assert refused.message.startswith("The goal was not saved: 5 is outside")
    assert coach.store.goals() == []


# -- unlikely values: a person decides ---------------------------------------------------------


def test_a_jump_against_history_waits_for_the_person_with_the_facts(tmp_path: Path) -> None:
    """76 kg yesterday, 220 kg today: neither refused nor written; the person is asked, in
    Spanish, with the last record."""
    db = tmp_path / "g.db"
    seed_weight(db)
    coach = scripted(db, turn(call("write_measurement", {"date": "2026-12-04", "weight_kg": 220})))
    paused = run(coach.agent.run_turn("Hoy: apunta 220 de lentejas"))
    assert paused.stop_reason == "awaiting_confirmation"
    question = "¿Guardar peso 220 kg para hoy? Último registro de peso: 76 kg (ayer)."
    assert paused.reply == question
    assert paused.pending_confirmation is not None
    assert paused.pending_confirmation.question == question
    assert [m["weight_kg"] for m in coach.store.list_measurements()] == [76.0]
    assert [e.state for e in coach.agent.writes(conversation_id=paused.conversation_id)] == []


def test_a_likely_change_is_written_without_asking(tmp_path: Path) -> None:
    """76 kg yesterday, 75 kg today (within 2 kg + 1.5 %/week): saved at once."""
    db = tmp_path / "g.db"
    seed_weight(db)
    coach = scripted(
        db, turn(call("write_measurement", {"date": "2026-12-04", "weight_kg": 75})), turn("ok")
    )
    done = run(coach.agent.run_turn("Hoy peso 75"))
    assert done.pending_confirmation is None
    assert [m["weight_kg"] for m in coach.store.list_measurements()] == [76.0, 75.0]


def test_an_unusual_first_value_is_asked_in_portuguese(tmp_path: Path) -> None:
    """No earlier weight and 220 kg (outside 35 to 200 kg): the person is asked why."""
    coach = scripted(
        tmp_path / "g.db",
        turn(call("write_measurement", {"date": "2026-12-04", "weight_kg": 220})),
        lang="pt",
    )
    paused = run(coach.agent.run_turn("220 hoje"))
    assert paused.reply == (
        "Salvar peso 220 kg para hoje? Não há registros anteriores de peso e o habitual fica "
        "entre 35 kg e 200 kg."
    )
    assert coach.store.list_measurements() == []


def test_approved_after_a_restart_the_write_runs_once(tmp_path: Path) -> None:
    """Paused, the process ends; a new Coach on the same file sees the question, the person
    approves, resume writes 220 kg once; a second resume writes nothing more."""
    db = tmp_path / "g.db"
    seed_weight(db)
    first = scripted(db, turn(call("write_measurement", {"date": "2026-12-04", "weight_kg": 220})))
    paused = run(first.agent.run_turn("220 kg hoy"))
    first.close()
    assert paused.pending_confirmation is not None
    again = scripted(db, turn("Guardado."))
    pending = again.agent.pending_confirmation(paused.conversation_id)
    assert pending is not None
    assert pending.id == paused.pending_confirmation.id
    assert pending.question == paused.pending_confirmation.question
    assert [m["weight_kg"] for m in again.store.list_measurements()] == [76.0]
    assert again.agent.decide(paused.conversation_id, pending.id, approved=True)
    done = run(again.agent.resume(paused.conversation_id))
    assert done.reply == "Guardado."
    run(again.agent.resume(paused.conversation_id))
    assert [m["weight_kg"] for m in again.store.list_measurements()] == [76.0, 220.0]
    states = [e.state for e in again.agent.writes(conversation_id=paused.conversation_id)]
    assert states == ["committed"]


def test_the_offline_coach_asks_too_and_denied_writes_nothing(tmp_path: Path) -> None:
    """The offline Coach's 220 kg after 76 kg goes through the same policy; denied, the
    value is never written."""
    db = tmp_path / "g.db"
    seed_weight(db)
    coach = offline(db)
    paused = run(coach.agent.run_turn("Peso 220 kg hoy"))
    assert paused.pending_confirmation is not None
    assert paused.reply.startswith("¿Guardar peso 220 kg para hoy?")
    assert coach.agent.decide(
        paused.conversation_id, paused.pending_confirmation.id, approved=False
    )
    run(coach.agent.resume(paused.conversation_id))
    assert [m["weight_kg"] for m in coach.store.list_measurements()] == [76.0]


@pytest.mark.parametrize(
    ("field", "last", "days", "value", "asks"),
    [
        ("weight_kg", 76.0, 1, 78.1, False),
        ("weight_kg", 76.0, 1, 78.3, True),
        ("weight_kg", 76.0, 28, 80.5, False),
        ("body_fat_pct", 20.0, 1, 23.0, False),
        ("body_fat_pct", 20.0, 1, 23.5, True),
        ("waist_cm", 90.0, 7, 86.0, False),
        ("waist_cm", 90.0, 7, 85.5, True),
        ("height_cm", 175.0, 1, 177.5, True),
    ],
)
def test_the_pace_thresholds(field: str, last: float, days: int, value: float, asks: bool) -> None:
    """Each documented threshold, just inside and just outside."""
    day = dt.date(2026, 12, 4)
    nearest = {field: (day - dt.timedelta(days=days), last)}
    assert bool(rules.unlikely_fields({field: value}, day, nearest)) is asks


def test_goals_are_exported_imported_listed_and_erased(tmp_path: Path) -> None:
    """A saved goal is in the export, comes back on import into an empty database, is listed
    by ``gymnasia goals list``, and ``delete-data`` removes it."""
    source = tmp_path / "a.db"
    coach = scripted(
        source,
        turn(call("save_goal", {"measure": "weight_kg", "target": 74, "by_date": "2027-06-01"})),
        turn("ok"),
    )
    run(coach.agent.run_turn("objetivo: 74 kg para el 2027-06-01"))
    coach.close()

    def gymnasia(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "gymnasia", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    exported = json.loads(gymnasia("export", "--db", str(source)))
    goal = {"measure": "weight_kg", "target": 74.0, "by_date": "2027-06-01"}
    assert exported["goals"] == [goal]
    file = tmp_path / "export.json"
    file.write_text(json.dumps(exported), encoding="utf-8")
    target = tmp_path / "b.db"
    gymnasia("import", str(file), "--db", str(target))
    assert json.loads(gymnasia("goals", "list", "--db", str(target), "--json")) == [goal]
    listed = gymnasia("goals", "list", "--db", str(target), "--lang", "en")
    assert listed.strip() == "weight goal: 74 kg (by 1 Jun 2027)"
    gymnasia("delete-data", "--db", str(target), "--yes")
    assert gymnasia("goals", "list", "--db", str(target), "--lang", "en").strip() == (
        "There are no saved goals."
    )
