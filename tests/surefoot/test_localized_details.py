"""Argument problems reach the model (and the trace a person reads) in the turn's language:
pydantic's English validation text is never in a Spanish or Portuguese detail."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, Field, ValidationError

from surefoot import CalendarDate, Tool, ToolError, ToolSet
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall

Weight = Annotated[float, Field(ge=20, le=400)]


def _tool() -> Tool:
    def write_measurement(
        date: CalendarDate,
        weight_kg: Weight | None = None,
        reps: int = 1,
        meal: Literal["breakfast", "lunch", "dinner"] = "lunch",
        name: Annotated[str, Field(min_length=2, max_length=5)] = "ab",
        tags: list[str] | None = None,
        done: bool = False,
    ) -> dict[str, Any]:
        """Save a measurement."""
        return {}

    return Tool.from_function(write_measurement, effect="write", idempotent=True)


BAD = [
    {},
    {"date": "2020-02-30"},
    {"date": 20200101},
    {"date": "2020-01-01", "weight_kg": "76kg"},
    {"date": "2020-01-01", "weight_kg": 19},
    {"date": "2020-01-01", "weight_kg": 401},
    {"date": "2020-01-01", "reps": 1.5},
    {"date": "2020-01-01", "meal": "brunch"},
    {"date": "2020-01-01", "name": "a"},
    {"date": "2020-01-01", "name": "abcdefgh"},
    {"date": "2020-01-01", "name": 5},
    {"date": "2020-01-01", "tags": "x"},
    {"date": "2020-01-01", "done": "maybe"},
    {"date": "2020-01-01", "extra": 1},
]


def _pydantic_messages(tool: Tool, arguments: dict[str, Any]) -> list[str]:
    try:
        tool.arguments.model_validate(arguments)
    except ValidationError as exc:
        return [str(e["msg"]) for e in exc.errors()]
    return []


@pytest.mark.parametrize("lang", ["es", "pt"])
@pytest.mark.parametrize("arguments", BAD, ids=range(len(BAD)))
def test_no_pydantic_english_in_a_spanish_or_portuguese_detail(
    lang: Literal["es", "pt"], arguments: dict[str, Any]
) -> None:
    tool = _tool()
    details = tool.validate(arguments, lang)
    assert isinstance(details, tuple)
    assert details
    english = tool.validate(arguments, "en")
    assert isinstance(english, tuple)
    for detail, in_english in zip(details, english, strict=True):
        assert detail.field == in_english.field
        assert detail.problem != in_english.problem
        words = f"{detail.problem} {detail.expected or ''}"
        for message in _pydantic_messages(tool, arguments):
            assert message not in words
        for english_word in ("Input should", "Field required", "should be", "must be", "valid"):
            assert english_word not in words


def test_the_executor_answers_in_the_turns_language() -> None:
    executor = Executor(ToolSet([_tool()]))
    calls = [
        ToolCall("c1", "write_measurement", {"date": "2020-01-01", "weight_kg": "x"}),
        ToolCall("c2", "read_it", None, raw_arguments="{not json"),
    ]
    batch = asyncio.run(executor.run_batch(calls[:1], TurnState("conv", 1, lang="pt")))
    outcome = batch.records[0].outcome
    assert isinstance(outcome, ToolError)
    assert [(d.field, d.problem) for d in outcome.details] == [("weight_kg", "deve ser um número")]
    raw = ToolCall("c2", "write_measurement", None, raw_arguments="{not json")
    batch = asyncio.run(executor.run_batch([raw], TurnState("conv", 2, lang="es")))
    outcome = batch.records[0].outcome
    assert isinstance(outcome, ToolError)
    assert outcome.details[0].problem == "los argumentos no son un objeto JSON"


def _checked_value(value: int) -> int:
    if value < 0:
        msg = "cannot update a negative count"
        raise ValueError(msg)
    return value


def test_details_say_choices_dates_and_application_checks_truly() -> None:
    """Choices are listed without pydantic's English "or"; a date limit is "a date", in ISO
    form; an application check whose text merely contains "date" is not called a bad calendar
    date (they used to read "una de 'a' or 'b'", "un número >= datetime.date(2020, 1, 1)" and
    "no es una fecha de calendario válida")."""
    tools = ToolSet()

    @tools.tool
    def plan(
        kind: Literal["a", "b", "c"],
        since: Annotated[CalendarDate, Field(ge=dt.date(2020, 1, 1))],
        count: Annotated[int, AfterValidator(_checked_value)],
    ) -> dict[str, Any]:
        """Plan."""
        return {}

    wrong = {"kind": "d", "since": "2019-06-01", "count": -1}
    expected = {
        "es": ("una de 'a', 'b', 'c'", "una fecha >= 2020-01-01", "el valor no es válido"),
        "pt": ("uma de 'a', 'b', 'c'", "uma data >= 2020-01-01", "o valor não é válido"),
        "en": ("one of 'a', 'b', 'c'", "a date >= 2020-01-01", "cannot update a negative count"),
    }
    for lang, (choices, limit, check) in expected.items():
        details = plan.validate(wrong, lang)  # type: ignore[arg-type]
        assert isinstance(details, tuple)
        by_field = {d.field: d for d in details}
        assert by_field["kind"].expected == choices
        assert by_field["since"].expected == limit
        assert by_field["count"].problem == check
