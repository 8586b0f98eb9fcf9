"""The offline parser on what changes a number it would write: multipliers, parts, someone
else's meal, loads per side or with the bar (asked, never written bare); and what it now reads
whole: numbers in words, dates relative to today, a meal said without a verb of saving.

The corpus (``offline_corpus.jsonl``) holds many phrasings of each kind through whole turns;
these tests pin the parser's reason for each kind and the rule it takes from ``gymnasia.rules``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any, Final

import pytest

from gymnasia import rules
from gymnasia.app import open_coach
from gymnasia.offline import Unclear, _diet, _replies, _training, understand
from gymnasia.offline._intents import AddFood, SaveMeasurement
from gymnasia.texts import t
from surefoot import ToolError
from surefoot.testing import ScriptedModel, call, turn

TODAY = dt.date(2024, 3, 10)  # a Sunday
OFFLINE = Path(_diet.__file__).parent


def _unclear(text: str, lang: str) -> Unclear:
    found = understand(text, today=TODAY, lang=lang)
    assert isinstance(found, Unclear), found
    return found


@pytest.mark.parametrize(
    ("lang", "text", "problem"),
    [
        ("es", "Añade 2x150 g de arroz blanco cocido a la comida de hoy", "multiplied"),
        ("pt", "Registre duas porções de 150 g de arroz no jantar de hoje", "multiplied"),
        ("en", "Add 150 g of rolled oats to breakfast today, 3 portions", "multiplied"),
        ("es", "Añade 200 g de arroz a la comida de hoy, solo me comí la mitad", "partial"),
        ("pt", "Adicione 200 g de arroz ao almoço de hoje, mas só comi metade", "partial"),
        ("en", "Add 200 g of rolled oats to breakfast today, but I only ate half", "partial"),
        ("es", "Añade 150 g de arroz a la comida de hoy para mi hijo", "not_yours_meal"),
        ("pt", "Adicione 150 g de arroz ao almoço de hoje da minha esposa", "not_yours_meal"),
        ("en", "Add 150 g of rolled oats to breakfast today for my son", "not_yours_meal"),
    ],
)
def test_a_meal_qualifier_is_asked(lang: str, text: str, problem: str) -> None:
    """A multiplier, a part or another person's meal: the parser asks and names why."""
    found = _unclear(text, lang)
    assert (found.action, found.problem) == ("add_food", problem)


@pytest.mark.parametrize(
    ("lang", "load", "problem"),
    [
        ("es", "con 20 kg por lado", "load_qualified"),
        ("es", "con 60 kg más la barra", "load_qualified"),
        ("pt", "com 60 kg sem contar a barra", "load_qualified"),
        ("pt", "com 15 kg em cada mão", "load_qualified"),
        ("en", "with 20 kg per side", "load_qualified"),
        ("en", "with 60 kg not counting the bar", "load_qualified"),
        ("en", "with 2x15 kg dumbbells", "number_extra"),
        ("es", "con 2 mancuernas de 15 kg", "number_extra"),
    ],
)
def test_a_routine_load_that_is_not_a_total_is_asked(lang: str, load: str, problem: str) -> None:
    """A load per side, with or without the bar, or a pair of dumbbells is not stored as a
    plain total: the parser asks."""
    header = {"es": "Crea la rutina Pierna de fuerza:", "pt": "Crie a rotina Perna de força:"}
    text = f"{header.get(lang, 'Create a strength routine called Legs:')} squat 3x10 {load}, "
    text += {"es": "descanso 90 s", "pt": "descanso 90 s"}.get(lang, "rest 90 s")
    found = _unclear(text, lang)
    assert (found.action, found.problem) == ("create_routine", problem)


@pytest.mark.parametrize(
    ("lang", "text", "kg"),
    [
        ("es", "Guarda mi peso de hoy: setenta y siete con cuatro kg", 77.4),
        ("es", "Guarda mi peso de hoy: ochenta y un kilos", 81.0),
        ("pt", "Salve meu peso de hoje: setenta e sete vírgula quatro kg", 77.4),
        ("pt", "Salve meu peso de hoje: cento e dez quilos", 110.0),
        ("en", "Save my weight today: seventy-seven point four kg", 77.4),
        ("en", "Save my weight today: one hundred and five kilos", 105.0),
        ("en", "Save my weight today: a hundred and five kilos", 105.0),
    ],
)
def test_numbers_in_words_are_read_whole(lang: str, text: str, kg: float) -> None:
    """A number written in words is the same number as in digits."""
    assert understand(text, today=TODAY, lang=lang) == SaveMeasurement(TODAY, (("weight_kg", kg),))


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("es", "Guarda mi peso de hoy: setenta siete kg"),  # no "y" between tens and units
        ("es", "Guarda mi peso de hoy: diez con sesenta kg"),  # "con" takes one digit
        ("en", "Save my weight today: one kg"),  # a lone "one" stays a word
        ("en", "Save my weight today: hundred and seventy pounds"),  # not "seventy"
    ],
)
def test_malformed_numbers_in_words_are_not_guessed(lang: str, text: str) -> None:
    """A run of number words that is not well formed is not read as a number to save."""
    found = understand(text, today=TODAY, lang=lang)
    assert not isinstance(found, SaveMeasurement), found


@pytest.mark.parametrize(
    ("lang", "said", "date"),
    [
        ("es", "el lunes pasado", dt.date(2024, 3, 4)),
        ("pt", "na segunda passada", dt.date(2024, 3, 4)),
        ("en", "last Monday", dt.date(2024, 3, 4)),
        ("es", "el viernes", dt.date(2024, 3, 8)),
        ("es", "el 30/11", dt.date(2023, 11, 30)),
        ("pt", "em 30/11", dt.date(2023, 11, 30)),
        ("en", "on 11/30", dt.date(2023, 11, 30)),
        ("es", "hace 2 días", dt.date(2024, 3, 8)),
        ("pt", "há duas semanas", dt.date(2024, 2, 25)),
        ("en", "3 days ago", dt.date(2024, 3, 7)),
        ("en", "a week ago", dt.date(2024, 3, 3)),
        ("es", "el 30 de noviembre", dt.date(2023, 11, 30)),
        ("pt", "em 30 de novembro", dt.date(2023, 11, 30)),
        ("en", "on November 30", dt.date(2023, 11, 30)),
        ("es", "el 5 de marzo", dt.date(2024, 3, 5)),
    ],
)
def test_relative_dates_count_from_today(lang: str, said: str, date: dt.date) -> None:
    """Weekdays, counts back and a day and month without a year resolve against today."""
    verb = {"es": "Guarda", "pt": "Salve"}.get(lang, "Save")
    found = understand(f"{verb} 77 kg {said}", today=TODAY, lang=lang)
    assert found == SaveMeasurement(date, (("weight_kg", 77.0),))


@pytest.mark.parametrize(
    ("lang", "said", "problem"),
    [
        ("es", "el domingo", "date_vague"),  # today is Sunday: today or a week ago?
        ("en", "on 3/4", "date_vague"),  # 3 April or 4 March?
        ("es", "el 15 de julio", "year_missing"),  # eight months back: which year?
        ("pt", "em 31/02", "date_bad"),
    ],
)
def test_a_date_that_could_be_several_is_asked(lang: str, said: str, problem: str) -> None:
    """A weekday that is today, an English day/month both under 13, or a day and month more
    than half a year back: asked, not guessed."""
    verb = {"es": "Guarda", "pt": "Salve"}.get(lang, "Save")
    found = _unclear(f"{verb} 77 kg {said}", lang)
    assert found.problem == problem


@pytest.mark.parametrize(
    ("lang", "text", "meal"),
    [
        ("es", "hoy en la cena 200 g de arroz blanco cocido", "dinner"),
        ("pt", "hoje no jantar 200 g de arroz branco cozido", "dinner"),
        ("en", "Breakfast today: 200 g of rolled oats", "breakfast"),
    ],
)
def test_a_meal_said_without_a_verb_is_logged(lang: str, text: str, meal: str) -> None:
    """A meal, a date and grams of a food are a meal eaten, with or without "añade"."""
    found = understand(text, today=TODAY, lang=lang)
    assert isinstance(found, AddFood)
    assert (found.date, found.meal, found.grams) == (TODAY, meal, 200.0)


def test_the_amount_ranges_come_from_the_rules_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser's grams, series and search limits are ``rules.AMOUNT_LIMITS`` itself, not a
    copy: no range is written in the parser's source, and narrowing the one rule changes what
    the parser asks."""
    for module in (_diet, _training, _replies):
        assert vars(module)["AMOUNT_LIMITS"] is rules.AMOUNT_LIMITS
    for path in OFFLINE.glob("*.py"):
        source = path.read_text("utf-8")
        assert "5000" not in source
        assert "(1, 20)" not in source
        assert "(0, 600)" not in source
    text = "Añade 150 g de arroz blanco cocido a la comida de hoy"
    assert isinstance(understand(text, today=TODAY, lang="es"), AddFood)
    monkeypatch.setitem(rules.AMOUNT_LIMITS, "grams", (1, 100))
    found = _unclear(text, "es")
    assert (found.problem, found.field) == ("out_of_range", "grams")


def test_emptying_one_field_asks_first(tmp_path: Path) -> None:
    """ "Borra mi cintura del …" waits for the person's yes, naming the value that would go;
    nothing changes before it."""
    coach = open_coach(db=str(tmp_path / "g.db"), lang="es", today=TODAY)
    try:
        with coach.store.transaction() as tx:
            coach.store.upsert_measurement(
                tx, dt.date(2024, 3, 9), {"weight_kg": 76.0, "waist_cm": 82.0}
            )
        result = asyncio.run(coach.agent.run_turn("Borra mi cintura del 2024-03-09"))
        pending = result.pending_confirmation
        assert pending is not None
        assert pending.tool == "edit_measurement"
        assert pending.arguments == {"date": "2024-03-09", "clear": ["waist_cm"]}
        assert pending.question == "¿Borrar cintura 82 cm del registro del 2024-03-09?"
        record = coach.store.read_measurement(dt.date(2024, 3, 9))
        assert record is not None
        assert record["waist_cm"] == 82.0
    finally:
        coach.close()


def _two_turns(
    tmp_path: Path,
    lang: str,
    first: str,
    second: str,
    *,
    first_day: dt.date = TODAY,
    model: Any = None,
) -> tuple[Any, Any, Any]:
    """Two turns of one conversation with the Coach (the offline one unless ``model``), the
    first said on ``first_day``, the second on ``TODAY`` (the Coach opened again on the same
    database, as each run of the CLI does); the store after them."""
    db = str(tmp_path / "g.db")
    coach = open_coach(db=db, lang=lang, today=first_day, model=model)  # type: ignore[arg-type]
    try:
        one = asyncio.run(coach.agent.run_turn(first))
    finally:
        coach.close()
    coach = open_coach(db=db, lang=lang, today=TODAY, model=model)  # type: ignore[arg-type]
    try:
        two = asyncio.run(coach.agent.run_turn(second, conversation_id=one.conversation_id))
        return one, two, coach.store.list_measurements()
    finally:
        coach.close()


def _written(result: Any) -> list[tuple[str, dict[str, Any]]]:
    """The writes a turn made or waits to make (an unlikely value waits for a yes)."""
    calls = [(r.call.name, r.call.arguments) for r in result.calls]
    if result.pending_confirmation is not None:
        calls.append((result.pending_confirmation.tool, result.pending_confirmation.arguments))
    return [c for c in calls if c[0] == "write_measurement"]


@pytest.mark.parametrize(
    ("lang", "first", "second", "date"),
    [
        ("es", "Guarda mi peso: 77,4 el 2024-03-10", "kg", "2024-03-10"),
        ("pt", "Salve meu peso: 77,4 em 2024-03-10", "kg", "2024-03-10"),
        ("en", "Save my weight: 77.4 on 2024-03-10", "kg", "2024-03-10"),
        ("es", "Guarda mi peso: 77,4 kg", "ayer", "2024-03-09"),
        ("pt", "Salve meu peso: 77,4 kg", "ontem", "2024-03-09"),
        ("en", "Save my weight: 77.4 kg", "yesterday", "2024-03-09"),
    ],
)
def test_a_reply_to_the_coachs_question_completes_the_message(
    tmp_path: Path, lang: str, first: str, second: str, date: str
) -> None:
    """The unit or the date the Coach asked for, given alone next turn, completes the first
    message: the value is written once, exactly."""
    one, two, stored = _two_turns(tmp_path, lang, first, second)
    assert _written(one) == []
    assert _written(two) == [("write_measurement", {"date": date, "weight_kg": 77.4})]
    assert [(m["date"], m["weight_kg"]) for m in stored] == [(date, 77.4)]


@pytest.mark.parametrize(
    ("lang", "correction"),
    [
        ("es", "perdón, era 78"),
        ("es", "No, eran 78 kg"),
        ("pt", "desculpa, era 78"),
        ("pt", "foi 78 kg, me enganei"),
        ("en", "sorry, it was 78"),
        ("en", "oops, I meant 78 kg"),
    ],
)
def test_a_correction_next_turn_saves_the_new_value_over_the_old(
    tmp_path: Path, lang: str, correction: str
) -> None:
    """ "perdón, era 78" after saving 77 kg for a date: its record becomes 78 kg (one record)."""
    first = {
        "es": "Guarda mi peso: 77 kg el 2024-03-10",
        "pt": "Salve meu peso: 77 kg em 2024-03-10",
    }
    one, two, stored = _two_turns(
        tmp_path, lang, first.get(lang, "Save my weight: 77 kg on 2024-03-10"), correction
    )
    assert _written(one) == [("write_measurement", {"date": "2024-03-10", "weight_kg": 77.0})]
    assert _written(two) == [("write_measurement", {"date": "2024-03-10", "weight_kg": 78.0})]
    assert [(m["date"], m["weight_kg"]) for m in stored] == [("2024-03-10", 78.0)]


@pytest.mark.parametrize(
    ("lang", "second"),
    [
        ("es", "no guardes 78 kg"),
        ("es", "quiero pesar 78 kg"),
        ("en", "my son was 78 kg"),
        ("en", "78 kg"),
    ],
)
def test_what_is_no_correction_changes_nothing(tmp_path: Path, lang: str, second: str) -> None:
    """A negated save, a wish, someone else's value or a bare number after a save is no
    correction: the saved value stays."""
    first = "Guarda mi peso: 77 kg hoy" if lang == "es" else "Save my weight: 77 kg today"
    _, two, stored = _two_turns(tmp_path, lang, first, second)
    assert [(m["date"], m["weight_kg"]) for m in stored] == [("2024-03-10", 77.0)]
    assert [c for c in _written(two) if c[1].get("weight_kg") != 78.0] == []


@pytest.mark.parametrize(
    ("lang", "text", "said"),
    [
        ("es", "¿Peso 80 kg hoy?", "no he guardado el valor que has dicho"),
        ("pt", "Veja meu peso: 80 kg hoje", "não salvei o valor que você disse"),
        ("en", "Did I eat 200 g of rolled oats for breakfast today?", "I have not saved"),
    ],
)
def test_a_look_up_given_a_value_says_nothing_was_saved(
    tmp_path: Path, lang: str, text: str, said: str
) -> None:
    """A message with a value that is read as a look-up (a question, a read verb) is answered
    with the record and the plain statement that the value was not saved."""
    coach = open_coach(db=str(tmp_path / "g.db"), lang=lang, today=TODAY)  # type: ignore[arg-type]
    try:
        result = asyncio.run(coach.agent.run_turn(text))
    finally:
        coach.close()
    assert [r.call.name for r in result.calls if r.call.name.startswith("write")] == []
    assert said in result.reply


_SAVE_TODAY: Final = {
    "es": "Guarda mi peso: 77,4 hoy",
    "pt": "Salve meu peso: 77,4 hoje",
    "en": "Save my weight: 77.4 today",
}
_SAVE_NO_DATE: Final = {
    "es": "Guarda mi peso: 77,4 kg",
    "pt": "Salve meu peso: 77,4 kg",
    "en": "Save my weight: 77.4 kg",
}
_YESTERDAY_WORD: Final = {"es": "ayer", "pt": "ontem", "en": "yesterday"}
_DAY_BEFORE: Final = dt.date(2024, 3, 9)


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_a_reply_the_same_day_saves_for_the_relative_date_said_before(
    tmp_path: Path, lang: str
) -> None:
    """ "Guarda mi peso: 77,4 hoy", asked for its unit, answered "kg" the same day: 77,4 kg is
    saved for today, the day "hoy" named (grounding counts the earlier "hoy" from its own day,
    which is today)."""
    one, two, stored = _two_turns(tmp_path, lang, _SAVE_TODAY[lang], "kg")
    assert _written(one) == []
    assert _written(two) == [("write_measurement", {"date": "2024-03-10", "weight_kg": 77.4})]
    assert [(m["date"], m["weight_kg"]) for m in stored] == [("2024-03-10", 77.4)]


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_a_reply_the_next_day_saves_for_the_day_hoy_was_said(tmp_path: Path, lang: str) -> None:
    """ "hoy" written on 9 March and "kg" answered on the 10th: the weight is saved for the
    9th, the day "hoy" meant when it was said, and the reply names that date."""
    one, two, stored = _two_turns(tmp_path, lang, _SAVE_TODAY[lang], "kg", first_day=_DAY_BEFORE)
    assert _written(one) == []
    assert _written(two) == [("write_measurement", {"date": "2024-03-09", "weight_kg": 77.4})]
    assert [(m["date"], m["weight_kg"]) for m in stored] == [("2024-03-09", 77.4)]
    assert "2024-03-09" in two.reply


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_a_relative_date_given_as_the_reply_counts_from_its_own_day(
    tmp_path: Path, lang: str
) -> None:
    """Asked for the date on the 9th and answered "ayer" on the 10th: "ayer" is the 9th,
    counted from the day the answer was said, not from the question's day."""
    _, two, stored = _two_turns(
        tmp_path, lang, _SAVE_NO_DATE[lang], _YESTERDAY_WORD[lang], first_day=_DAY_BEFORE
    )
    assert _written(two) == [("write_measurement", {"date": "2024-03-09", "weight_kg": 77.4})]
    assert [(m["date"], m["weight_kg"]) for m in stored] == [("2024-03-09", 77.4)]


@pytest.mark.parametrize(
    ("lang", "first", "correction"),
    [
        ("es", "Guarda mi peso: 77 kg hoy", "perdón, era 78"),
        ("pt", "Salve meu peso: 77 kg hoje", "desculpa, era 78"),
        ("en", "Save my weight: 77 kg today", "sorry, it was 78"),
    ],
)
@pytest.mark.parametrize("first_day", [TODAY, _DAY_BEFORE], ids=["same_day", "next_day"])
def test_a_correction_of_a_value_saved_for_hoy_keeps_its_day(
    tmp_path: Path, lang: str, first: str, correction: str, first_day: dt.date
) -> None:
    """ "77 kg hoy" saved, then "perdón, era 78" (the same day or the next): the record of the
    day "hoy" named becomes 78 kg, and no other day gets one."""
    day = first_day.isoformat()
    one, two, stored = _two_turns(tmp_path, lang, first, correction, first_day=first_day)
    assert _written(one) == [("write_measurement", {"date": day, "weight_kg": 77.0})]
    assert _written(two) == [("write_measurement", {"date": day, "weight_kg": 78.0})]
    assert [(m["date"], m["weight_kg"]) for m in stored] == [(day, 78.0)]


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_a_value_never_said_is_refused_in_a_reply(tmp_path: Path, lang: str) -> None:
    """A model (not only the offline one) that completes "77,4 hoy" said on the 9th with "kg"
    said on the 10th: a weight never said (78) and today's date (what a model that counts
    "hoy" from today writes) are refused with ``not_in_message``; only the 9th with 77,4 is
    saved."""
    model = ScriptedModel(
        [
            turn(t(lang, "offline_problem_unit_missing", subject="77,4", units="kg")),
            turn(call("write_measurement", {"date": "2024-03-09", "weight_kg": 78})),
            turn(call("write_measurement", {"date": "2024-03-10", "weight_kg": 77.4})),
            turn(call("write_measurement", {"date": "2024-03-09", "weight_kg": 77.4})),
            turn("OK"),
        ]
    )
    _, two, stored = _two_turns(
        tmp_path, lang, _SAVE_TODAY[lang], "kg", first_day=_DAY_BEFORE, model=model
    )
    unsaid, today, meant = (record.outcome for record in two.calls)
    assert isinstance(unsaid, ToolError)
    assert (unsaid.code, [d.field for d in unsaid.details]) == ("not_in_message", ["weight_kg"])
    assert isinstance(today, ToolError)
    assert (today.code, [d.field for d in today.details]) == ("not_in_message", ["date"])
    assert not isinstance(meant, ToolError)
    assert [(m["date"], m["weight_kg"]) for m in stored] == [("2024-03-09", 77.4)]
