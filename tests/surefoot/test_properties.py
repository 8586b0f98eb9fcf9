"""Property tests over tool arguments (bad input): whatever a model sends, the
executor never raises, invalid input always yields ``invalid_arguments`` without running the
handler, and valid input runs it exactly once."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import math
import re
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from surefoot import CalendarDate, MemoryLedger, Ok, Recovery, ToolError, ToolSet
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall

FIELDS = frozenset({"date", "weight_kg", "note"})
SETTINGS = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
LIGHT = settings(SETTINGS, max_examples=100)


class Harness:
    """A read and a write tool with the same arguments, and a count of their runs."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        tools = ToolSet()

        @tools.tool
        def log_read(
            date: CalendarDate,
            weight_kg: Annotated[float, Field(ge=20, le=400)],
            note: str | None = None,
        ) -> dict[str, Any]:
            """A read over typed arguments."""
            self.runs.append({"date": date, "weight_kg": weight_kg, "note": note})
            return {"date": date.isoformat(), "weight_kg": weight_kg}

        @tools.tool(effect="write", idempotent=True)
        def log_write(
            date: CalendarDate,
            weight_kg: Annotated[float, Field(ge=20, le=400)],
            note: str | None = None,
        ) -> dict[str, Any]:
            """A write over the same arguments."""
            self.runs.append({"date": date, "weight_kg": weight_kg, "note": note})
            return {"date": date.isoformat(), "weight_kg": weight_kg}

        self.executor = Executor(tools, ledger=MemoryLedger())
        self._turns = itertools.count()

    def run(self, tool: str, arguments: Any, raw: str | None = None) -> Any:
        """Run one call in a fresh conversation (so no key or guard carries over)."""
        state = TurnState(f"conv-{next(self._turns)}", 0, lang="en")
        call = ToolCall("call_1", tool, arguments, raw_arguments=raw)
        batch = asyncio.run(self.executor.run_batch([call], state))
        (record,) = batch.records
        return record


def is_valid(arguments: object) -> bool:
    """An oracle written from the documented argument rules, independent of the validator."""
    if not isinstance(arguments, dict) or set(arguments) - FIELDS:
        return False
    if "date" not in arguments or "weight_kg" not in arguments:
        return False
    date = arguments["date"]
    if not isinstance(date, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", date):
        return False
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        return False
    weight = arguments["weight_kg"]
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        return False
    if isinstance(weight, float) and not math.isfinite(weight):
        return False
    if not 20 <= weight <= 400:
        return False
    note = arguments.get("note")
    return note is None or isinstance(note, str)


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
dates = st.dates(min_value=dt.date(1, 1, 1)).map(dt.date.isoformat)
weights = st.floats(min_value=20, max_value=400) | st.integers(min_value=20, max_value=400)
valid_arguments = st.fixed_dictionaries(
    {"date": dates, "weight_kg": weights},
    optional={"note": st.none() | st.text(max_size=30)},
)
date_like_strings = (
    st.text(max_size=12)
    | st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
    | st.from_regex(r"\A[0-9]{2}/[0-9]{2}/[0-9]{4}\Z")
    | dates.map(lambda d: d + "T00:00:00")
    | dates.map(lambda d: d.replace("-", "/"))
)
out_of_range = (
    st.floats(max_value=19.999, allow_nan=False, allow_infinity=False)
    | st.floats(min_value=400.001, allow_nan=False, allow_infinity=False)
    | st.integers(max_value=19)
    | st.integers(min_value=401)
)
wrong_number_types = (
    st.booleans()
    | weights.map(str)
    | weights.map(lambda w: f"{w}kg")
    | st.lists(weights, max_size=2)
    | st.just(None)
)
extra_keys = st.text(min_size=1, max_size=10).filter(lambda k: k not in FIELDS)


@st.composite
def near_misses(draw: st.DrawFn) -> dict[str, Any]:
    """A valid argument set with one thing broken."""
    arguments = dict(draw(valid_arguments))
    mutation = draw(st.sampled_from(["date", "range", "type", "extra", "drop", "note"]))
    if mutation == "date":
        arguments["date"] = draw(date_like_strings | json_values)
    elif mutation == "range":
        arguments["weight_kg"] = draw(out_of_range)
    elif mutation == "type":
        arguments["weight_kg"] = draw(wrong_number_types)
    elif mutation == "extra":
        arguments[draw(extra_keys)] = draw(json_values)
    elif mutation == "drop":
        del arguments[draw(st.sampled_from(["date", "weight_kg"]))]
    else:
        arguments["note"] = draw(st.integers() | st.booleans() | st.lists(st.text(), max_size=2))
    return arguments


HARNESS = Harness()  # declaring tools builds pydantic models: do it once, not per example


def _check(harness: Harness, tool: str, arguments: Any) -> None:
    before = len(harness.runs)
    record = harness.run(tool, arguments)
    ran = len(harness.runs) - before
    if is_valid(arguments):
        assert isinstance(record.outcome, Ok), (arguments, record.outcome)
        assert ran == 1
        assert record.executed is True
    else:
        assert isinstance(record.outcome, ToolError), (arguments, record.outcome)
        assert record.outcome.code == "invalid_arguments", (arguments, record.outcome)
        assert record.outcome.recovery is Recovery.CORRECT_ARGUMENTS
        assert record.outcome.details
        assert ran == 0
        assert record.executed is False


@SETTINGS
@given(tool=st.sampled_from(["log_read", "log_write"]), arguments=json_values)
def test_arbitrary_json_never_crashes_and_matches_the_oracle(tool: str, arguments: Any) -> None:
    """Any JSON value as arguments gives one record whose verdict matches the oracle."""
    _check(HARNESS, tool, arguments)


@SETTINGS
@given(
    tool=st.sampled_from(["log_read", "log_write"]),
    arguments=st.dictionaries(
        st.sampled_from(sorted(FIELDS)) | st.text(max_size=6), json_values, max_size=5
    ),
)
def test_arbitrary_dicts_over_the_field_names(tool: str, arguments: dict[str, Any]) -> None:
    """Objects over the real field names with any values: verdict matches the oracle."""
    _check(HARNESS, tool, arguments)


@SETTINGS
@given(tool=st.sampled_from(["log_read", "log_write"]), arguments=near_misses())
def test_near_misses_are_refused_without_running(tool: str, arguments: dict[str, Any]) -> None:
    """One broken field (bad date, out of range, wrong type, extra, missing) → invalid_arguments."""
    _check(HARNESS, tool, arguments)


@LIGHT
@given(tool=st.sampled_from(["log_read", "log_write"]), arguments=valid_arguments)
def test_valid_arguments_run_exactly_once(tool: str, arguments: dict[str, Any]) -> None:
    """Every valid argument set runs the handler exactly once, with the parsed values."""
    before = len(HARNESS.runs)
    record = HARNESS.run(tool, arguments)
    assert isinstance(record.outcome, Ok), (arguments, record.outcome)
    assert len(HARNESS.runs) == before + 1
    run = HARNESS.runs[-1]
    assert run["date"] == dt.date.fromisoformat(arguments["date"])
    assert run["weight_kg"] == arguments["weight_kg"]
    assert run["note"] == arguments.get("note")


@LIGHT
@given(text=st.text(max_size=40))
def test_unparsed_argument_text_is_invalid_arguments(text: str) -> None:
    """Raw argument text that did not parse (arguments None) is refused; nothing runs."""
    before = len(HARNESS.runs)
    record = HARNESS.run("log_write", None, raw=text)
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "invalid_arguments"
    assert len(HARNESS.runs) == before


@LIGHT
@given(name=st.text(max_size=80), arguments=json_values)
def test_any_tool_name_gives_one_marked_outcome(name: str, arguments: Any) -> None:
    """Any name the model invents yields unknown_tool (or the tool's own verdict), never a crash."""
    harness = Harness()
    record = harness.run(name, arguments)
    if name in ("log_read", "log_write"):
        _check(HARNESS, name, arguments)
    else:
        assert isinstance(record.outcome, ToolError)
        assert record.outcome.code == "unknown_tool"
        assert harness.runs == []


# -- the data check's length bound -------------------------------------------------------------

_JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text(), _JSON, max_size=6))
def test_the_data_check_bounds_the_serialized_length_from_above(data: dict[str, Any]) -> None:
    """The walk that checks a result's data also bounds its serialized length, so that only
    data that may be too long is serialized to measure it: the bound is never below it."""
    from surefoot._outcome import _check_value, dumps

    try:
        bound = _check_value(data, 0)
    except ValueError:  # text hypothesis drew with a lone surrogate: rejected, as it must be
        return
    assert bound >= len(dumps(data))


def test_data_too_long_serialized_is_refused_and_data_only_bounded_long_is_not() -> None:
    from surefoot._outcome import MAX_CHARS, checked_data

    with pytest.raises(ValueError, match="longer than"):
        checked_data({"text": "x" * MAX_CHARS})
    # its bound (6 per character) is above the limit, its serialized length is not
    fine = {"text": "x" * (MAX_CHARS // 3)}
    assert checked_data(fine) is fine
    with pytest.raises(ValueError, match="not finite"):
        checked_data({"n": [1.0, float("nan")]})
    with pytest.raises(ValueError, match="not a string"):
        checked_data({"n": {1: 2}})
    # an int too large to bound cheaply is serialized to measure: 4,000 digits fit beside
    # padding that leaves room for them, and not beside padding that does not
    huge = 10**3999
    assert checked_data({"n": huge, "pad": "x" * (MAX_CHARS - 4100)})["n"] == huge
    with pytest.raises(ValueError, match="longer than"):
        checked_data({"n": huge, "pad": "x" * (MAX_CHARS - 3900)})
