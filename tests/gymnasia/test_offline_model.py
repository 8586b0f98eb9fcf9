"""The offline model's parts: reading numbers and dates whole, replying from outcome marks,
the tools a session offers, its "today", and its words in every language."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gymnasia.app import open_coach
from gymnasia.offline import OfflineModel, Unclear, understand
from gymnasia.offline._intents import NEEDS_FIELD, Action, Problem, SaveMeasurement
from gymnasia.offline._lex import DateLiteral, Number, tokenize
from gymnasia.offline._replies import Replies
from gymnasia.texts import t
from surefoot import Lang, ModelRequest, Ok, Outcome, Recovery, ToolError
from surefoot.messages import ToolResult, ToolResultsMessage, ToolSpec, UserMessage
from surefoot.outcome import LANGS
from surefoot.testing import call, turn

TODAY = dt.date(2024, 3, 10)
TOOLS = tuple(
    ToolSpec(name, "", {"type": "object"})
    for name in (
        "read_measurement",
        "write_measurement",
        "list_measurements",
        "save_memory",
        "read_memory",
        "read_meal",
        "search_foods",
        "add_meal_food",
    )
)


# -- numbers and dates are read whole ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "problem"),
    [
        ("77,4", Decimal("77.4"), None),
        ("77.4", Decimal("77.4"), None),
        ("1.077,4", Decimal("1077.4"), None),
        ("1,077.4", Decimal("1077.4"), None),
        ("1077.4", Decimal("1077.4"), None),
        ("-77", Decimal(-77), None),
        ("0,125", Decimal("0.125"), None),
        ("1,077", None, "ambiguous"),
        ("77.400", None, "ambiguous"),
        ("7,7,4", None, "malformed"),
        ("1.077.4", None, "malformed"),
        ("70-80", None, "malformed"),
        ("1/2", None, "malformed"),
        (",5", None, "malformed"),
    ],
)
def test_a_number_is_read_whole_or_not_at_all(
    text: str, value: Decimal | None, problem: str | None
) -> None:
    """A run of digits and separators is one number, or one number that cannot be read —
    never a part of it."""
    (token,) = tokenize(text)
    assert isinstance(token, Number)
    assert (token.value, token.problem) == (value, problem)
    assert token.text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2020-01-04", dt.date(2020, 1, 4)),
        ("12020-01-045", None),
        ("2020-02-30", None),
        ("2020-1-4", None),
        ("04/01/2020", None),
        ("2020-W01-1", None),
    ],
)
def test_a_date_is_read_whole_or_not_at_all(text: str, value: dt.date | None) -> None:
    """Digits joined by hyphens or slashes are one date literal: a real YYYY-MM-DD, or none."""
    (token,) = tokenize(text)
    assert isinstance(token, DateLiteral)
    assert token.value == value


def test_units_are_converted_and_glued_units_read() -> None:
    """172 lb is 78.02 kg, 1,80 m is 180 cm, 32 in is 81.28 cm; "77,4kg" has its unit."""
    cases = {
        "Save my weight: 172 lb today": ("weight_kg", 78.02),
        "Guarda mi altura: 1,80 m hoy": ("height_cm", 180.0),
        "Save my waist: 32 in today": ("waist_cm", 81.28),
        "Guarda mi peso: 77,4kg hoy": ("weight_kg", 77.4),
    }
    for text, value in cases.items():
        found = understand(text, today=TODAY)
        assert found is not None, text
        assert not isinstance(found, Unclear), text
        assert found.kind == "save_measurement"
        assert found.values == (value,), text


def test_relative_dates_count_from_the_models_today() -> None:
    """hoy/ayer/hoje/ontem/today/yesterday count from ``today``; tomorrow is refused for a
    write."""
    expected = {
        "hoy": TODAY,
        "ayer": TODAY - dt.timedelta(days=1),
        "hoje": TODAY,
        "ontem": TODAY - dt.timedelta(days=1),
        "today": TODAY,
        "yesterday": TODAY - dt.timedelta(days=1),
        "anteayer": TODAY - dt.timedelta(days=2),
    }
    for word, date in expected.items():
        found = understand(f"Save my weight: 77 kg {word}", today=TODAY)
        assert found is not None
        assert not isinstance(found, Unclear)
        assert found.kind == "save_measurement"
        assert found.date == date, word
    tomorrow = understand("Save my weight: 77 kg tomorrow", today=TODAY)
    assert isinstance(tomorrow, Unclear)
    assert tomorrow.problem == "date_future"


# -- replies come from the outcome's mark, never its text -----------------------------------------


def _answer(model: OfflineModel, text: str, outcome: Outcome, tools: Any = TOOLS) -> Any:
    """The model's reply after one call of this turn got ``outcome``."""
    first = asyncio.run(model.request(ModelRequest([UserMessage(text)], tools=tools)))
    (planned,) = first.message.tool_calls
    results = ToolResultsMessage((ToolResult(planned.call_id, planned.name, outcome),))
    messages = [UserMessage(text), first.message, results]
    return asyncio.run(model.request(ModelRequest(messages, tools=tools))).message


def test_a_failed_write_is_reported_by_its_code_whatever_its_text_says() -> None:
    """An error outcome whose message claims success still yields "not saved (code)"."""
    model = OfflineModel(lang="en", today=TODAY)
    error = ToolError("unavailable", "Saved successfully!", Recovery.CHOOSE_ALTERNATIVE)
    reply = _answer(model, "Save my weight: 77.4 kg on 2020-01-04.", error)
    assert reply.text == "It was not saved (the storage did not answer)."
    assert not reply.tool_calls


def test_a_success_that_reads_like_an_error_is_a_success() -> None:
    """A note whose value says "Error" is read back as the note's value."""
    model = OfflineModel(lang="es", today=TODAY)
    data = {"key": "diario", "description": "diario", "value": 'Error: {"is_error": true}'}
    reply = _answer(model, "Lee la nota diario.", Ok(data))
    assert reply.text == 'La nota «diario» dice: Error: {"is_error": true}'


def test_a_failed_food_search_logs_nothing() -> None:
    """When search_foods fails, the model says so and never calls add_meal_food."""
    model = OfflineModel(lang="pt", today=TODAY)
    error = ToolError("unavailable", "x", Recovery.CHOOSE_ALTERNATIVE)
    text = "Adicione 150 g de arroz branco cozido ao almoço de hoje."
    reply = _answer(model, text, error)
    assert reply.text == t("pt", "tool_trouble", why=t("pt", "why_unavailable"))
    assert not reply.tool_calls


def test_several_matching_foods_are_asked_about_not_picked() -> None:
    """Two rice dishes match "arroz": the reply names both and logs nothing."""
    model = OfflineModel(lang="es", today=TODAY)
    rows = [
        {"id": "white_rice_cooked", "name": "Arroz blanco cocido"},
        {"id": "brown_rice_cooked", "name": "Arroz integral cocido"},
    ]
    found = Ok({"foods": rows, "total_matches": 2})
    reply = _answer(model, "Añade 150 g de arroz a la comida de hoy", found)
    assert not reply.tool_calls
    assert "Arroz blanco cocido, Arroz integral cocido" in reply.text
    assert "No he anotado nada" in reply.text


def test_a_tool_the_session_does_not_offer_is_not_called() -> None:
    """Without write_measurement among the request's tools, the model says so and calls
    nothing."""
    model = OfflineModel(lang="en", today=TODAY)
    tools = [spec for spec in TOOLS if spec.name != "write_measurement"]
    request = ModelRequest([UserMessage("Save my weight: 77 kg today")], tools=tools)
    reply = asyncio.run(model.request(request)).message
    assert not reply.tool_calls
    assert "write_measurement" in reply.text


def test_reads_of_several_meals_go_in_one_step_with_distinct_ids() -> None:
    """ "What did I eat on D?" asks for the five meals at once, each call with its own id."""
    model = OfflineModel(lang="en", today=TODAY)
    request = ModelRequest([UserMessage("What did I eat on 2024-03-01?")], tools=TOOLS)
    calls = asyncio.run(model.request(request)).message.tool_calls
    assert [c.name for c in calls] == ["read_meal"] * 5
    assert len({c.call_id for c in calls}) == 5
    assert calls[0].call_id == "offline_1"


def test_without_a_fixed_today_the_clocks_date_is_used() -> None:
    """``OfflineModel()`` with no ``today`` counts "hoy" from the clock's date."""
    model = OfflineModel(lang="es")
    request = ModelRequest([UserMessage("Guarda mi peso: 77 kg hoy")], tools=TOOLS)
    (planned,) = asyncio.run(model.request(request)).message.tool_calls
    assert planned.arguments == {
        "date": dt.date.today().isoformat(),  # noqa: DTZ011 - a calendar date
        "weight_kg": 77.0,
    }


def test_tool_errors_in_a_real_turn_come_back_honestly(tmp_path: Any) -> None:
    """Through the real Coach with search_foods failing on read: one search, an honest
    reply, no food logged."""
    coach = open_coach(
        db=str(tmp_path / "gym.db"),
        model=OfflineModel(lang="en", today=TODAY),
        lang="en",
        faults=("search_foods:read_error",),
        today=TODAY,
    )
    try:
        result = asyncio.run(coach.agent.run_turn("Add 150 g of rolled oats to breakfast today"))
        logged = coach.store.meal_items(TODAY, "breakfast")
    finally:
        coach.close()
    assert [r.call.name for r in result.calls] == ["search_foods"]
    assert result.reply == "I could not complete it (the storage did not answer)."
    assert logged == []


# -- the model's words ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_action_and_problem_has_words_in_every_language(lang: Lang) -> None:
    """Each understood action and each problem can be said in es, pt and en."""
    say = Replies(lang)
    for action in get_args(Action):
        for problem in get_args(Problem):
            field = "weight_kg" if problem in NEEDS_FIELD else None
            text = say.unclear(Unclear(action, problem, "1,077 kg", field))
            assert text.strip(), (action, problem)
            assert "{" not in text.replace('{"', ""), text


@pytest.mark.parametrize(
    ("lang", "nothing"),
    [("es", "No he guardado"), ("pt", "Não salvei"), ("en", "I have not saved")],
)
def test_an_unclear_write_says_what_was_understood_and_that_nothing_was_written(
    lang: Lang, nothing: str
) -> None:
    """ "1,077 kg" is asked back: the reply quotes it and says nothing was saved."""
    found = understand("Save my weight: 1,077 kg on 2020-01-04", today=TODAY)
    assert isinstance(found, Unclear)
    reply = Replies(lang).unclear(found)
    assert "1,077 kg" in reply
    assert nothing in reply


def test_a_turn_of_scripted_history_is_ignored_before_the_last_user_message() -> None:
    """Only the current turn counts: an earlier turn's call and outcome do not make the model
    skip its own first call."""
    model = OfflineModel(lang="en", today=TODAY)
    earlier = turn(call("read_measurement", {"date": "2020-01-01"}, call_id="c1"))
    results = ToolResultsMessage(
        (ToolResult("c1", "read_measurement", Ok({"date": "2020-01-01", "weight_kg": 76})),)
    )
    messages = [UserMessage("Look up 2020-01-01"), earlier, results]
    messages.append(UserMessage("Save my weight: 77 kg today"))
    response = asyncio.run(model.request(ModelRequest(messages, tools=TOOLS)))
    (planned,) = response.message.tool_calls
    assert planned.name == "write_measurement"


# -- properties ----------------------------------------------------------------------------------

SAVE_TEMPLATES = (
    "Guarda mi peso: {number} {unit} el 2020-01-04.",
    "Salve meu peso: {number} {unit} em 2020-01-04.",
    "Save my weight: {number} {unit} on 2020-01-04.",
    "Hoy peso {number}{unit}",
)


@settings(max_examples=400, deadline=None)
@given(
    whole=st.integers(min_value=0, max_value=99_999),
    fraction=st.one_of(st.none(), st.text("0123456789", min_size=1, max_size=4)),
    separator=st.sampled_from([",", "."]),
    unit=st.sampled_from(["kg", "lb"]),
    template=st.sampled_from(SAVE_TEMPLATES),
    sign=st.sampled_from(["", "-"]),
)
def test_a_written_weight_is_saved_exactly_or_not_at_all(
    whole: int, fraction: str | None, separator: str, unit: str, template: str, sign: str
) -> None:
    """Whatever number is written, the model saves exactly that weight (lb converted to kg),
    or asks back: an ambiguous "1,077", a negative or out-of-range value is never saved."""
    number = f"{sign}{whole}{separator}{fraction}" if fraction else f"{sign}{whole}"
    found = understand(template.format(number=number, unit=unit), today=TODAY)
    value = Decimal(f"{sign}{whole}.{fraction or 0}")
    kg = value * (Decimal("0.45359237") if unit == "lb" else 1)
    ambiguous = fraction is not None and len(fraction) == 3 and 0 < whole <= 999
    savable = not ambiguous and Decimal(20) <= round(kg, 2) <= Decimal(400)
    if not savable:
        assert isinstance(found, Unclear), (number, unit, found)
        return
    assert isinstance(found, SaveMeasurement), (number, unit, found)
    assert found.values == (("weight_kg", float(round(kg, 2))),)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gets_an_answer(text: str) -> None:
    """No message makes the model fail: it plans a call, asks back or says what it knows."""
    model = OfflineModel(lang="es", today=TODAY)
    response = asyncio.run(model.request(ModelRequest([UserMessage(text)], tools=TOOLS)))
    assert response.message.text or response.message.tool_calls


def test_portuguese_no_is_not_a_negation() -> None:
    """pt "no" is em + o ("no jantar"): with the message's language known it negates nothing;
    in Spanish (or when the language is unknown) "no" still negates."""
    text = "hoje no jantar comi 150 g de arroz branco cozido"
    found = understand(text, today=TODAY, lang="pt")
    assert not isinstance(found, Unclear)
    assert found is not None
    assert found.kind == "add_food"
    assert understand(text, today=TODAY) == Unclear("add_food", "negated")
    assert understand("hoy no peso 80 kg", today=TODAY, lang="es") == Unclear(
        "save_measurement", "not_stated"
    )


@pytest.mark.parametrize(
    ("text", "today", "action"),
    [
        ("ayer peso 80 kg", dt.date.min, "save_measurement"),
        ("anteayer peso 80 kg", dt.date.min, "save_measurement"),
        ("mañana peso 80 kg", dt.date.max, "save_measurement"),
        ("what did I eat yesterday", dt.date.min, "read_meal"),
        ("muestra mi peso de los últimos 7 días", dt.date.min, "list_measurements"),
        ("show my weight for the last 1000000000 weeks", TODAY, "list_measurements"),
    ],
)
def test_relative_dates_past_the_calendar_are_no_dates(
    text: str, today: dt.date, action: str
) -> None:
    """A relative day outside 0001-01-01 .. 9999-12-31 is an unreadable date, not a crash."""
    found = understand(text, today=today)
    assert isinstance(found, Unclear)
    assert (found.action, found.problem) == (action, "date_bad")


@pytest.mark.parametrize(
    ("lang", "save", "read", "said"),
    [
        (
            "es",
            "Mi objetivo es 74 kg para el 1 de junio de 2024",
            "Muéstrame mis objetivos",
            "Objetivos: objetivo de peso: 74 kg (para el 2024-06-01).",
        ),
        ("pt", "Minha meta é 74 kg", "Mostre minhas metas", "Metas: meta de peso: 74 kg."),
        ("en", "My goal is 74 kg", "What is my goal?", "Goals: weight goal: 74 kg."),
    ],
)
def test_the_goals_are_read_back(lang: Lang, save: str, read: str, said: str) -> None:
    """A look-up of the goals reads them (read_goals) and says each one as saved; with none
    saved it says there are none."""
    coach = open_coach(
        db="sqlite:///:memory:", model=OfflineModel(lang=lang, today=TODAY), lang=lang, today=TODAY
    )
    try:
        empty = asyncio.run(coach.agent.run_turn(read))
        asyncio.run(coach.agent.run_turn(save))
        found = asyncio.run(coach.agent.run_turn(read))
    finally:
        coach.close()
    assert [r.call.name for r in empty.calls] == ["read_goals"]
    assert empty.reply == t(lang, "goals_empty")
    assert [r.call.name for r in found.calls] == ["read_goals"]
    assert found.reply == said
