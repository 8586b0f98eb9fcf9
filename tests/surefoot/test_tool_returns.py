"""What a tool may return: every supported return annotation comes back as its JSON data (a
value that is not a JSON object wrapped as ``{"result": value}``), and every annotation the
harness cannot send as JSON is refused when the tool is declared, not at run time.

This module uses ``from __future__ import annotations``: the handlers defined at module level
are the string-annotation cases (resolved with ``get_type_hints``)."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import decimal
import enum
import types
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import (
    Annotated,
    Any,
    Literal,
    NamedTuple,
    NewType,
    Optional,
    TypedDict,
    Union,
)

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, RootModel

from surefoot import Agent, ConfigurationError, Ok, Recovery, Tool, ToolError, ToolSet
from surefoot.mcp import call_result
from surefoot.outcome import to_wire
from surefoot.testing import ScriptedModel, call, turn

# -- what the supported annotations return -----------------------------------------------


class Reading(BaseModel):
    """A pydantic model with a date."""

    day: dt.date
    weight_kg: float


@dataclasses.dataclass(frozen=True)
class Session:
    """A dataclass with a date, a set and a nested model."""

    day: dt.date
    tags: frozenset[str]
    reading: Reading | None = None


class Totals(TypedDict):
    """A TypedDict of plain JSON values."""

    count: int
    names: list[str]


class Colour(enum.StrEnum):
    """A str enum: its members are strings."""

    RED = "red"


class Level(enum.IntEnum):
    """An int enum: its members are ints."""

    HIGH = 3


UserId = NewType("UserId", int)
READING = Reading(day=dt.date(2026, 3, 1), weight_kg=81.5)
READING_DATA = {"day": "2026-03-01", "weight_kg": 81.5}

# (annotation, what the handler returns, the Ok data expected); `...` for no annotation
SUPPORTED: dict[str, tuple[Any, Any, dict[str, Any]]] = {
    "none-annotation": (..., ["a"], {"result": ["a"]}),
    "any": (Any, "x", {"result": "x"}),
    "object": (object, 7, {"result": 7}),
    "None": (None, None, {"result": None}),
    "bool": (bool, True, {"result": True}),
    "int": (int, 3, {"result": 3}),
    "float": (float, 2.5, {"result": 2.5}),
    "str": (str, "hello", {"result": "hello"}),
    "str-enum": (Colour, Colour.RED, {"result": "red"}),
    "int-enum": (Level, Level.HIGH, {"result": 3}),
    "new-type": (UserId, UserId(12), {"result": 12}),
    "dict": (dict, {"a": 1}, {"a": 1}),
    "dict-str-any": (dict[str, Any], {"a": [1, None]}, {"a": [1, None]}),
    "mapping": (Mapping[str, int], types.MappingProxyType({"a": 1}), {"a": 1}),
    "dict-literal-keys": (dict[Literal["a", "b"], int], {"a": 1}, {"a": 1}),
    "list": (list, [1, "a"], {"result": [1, "a"]}),
    "list-str": (list[str], ["a", "b"], {"result": ["a", "b"]}),
    "list-dict": (list[dict[str, int]], [{"a": 1}], {"result": [{"a": 1}]}),
    "sequence": (Sequence[int], range(3), {"result": [0, 1, 2]}),
    "deque": (collections.deque[int], collections.deque([1, 2]), {"result": [1, 2]}),
    "ordered-dict": (collections.OrderedDict[str, int], collections.OrderedDict(a=1), {"a": 1}),
    "tuple": (tuple[int, str], (1, "a"), {"result": [1, "a"]}),
    "tuple-variadic": (tuple[int, ...], (1, 2), {"result": [1, 2]}),
    "literal": (Literal["low", "high"], "high", {"result": "high"}),
    "optional": (Optional[str], None, {"result": None}),  # noqa: UP045 - the typing spelling
    "union": (Union[int, list[int]], [1], {"result": [1]}),  # noqa: UP007 - the typing spelling
    "pipe-union": (str | list[str], ["x"], {"result": ["x"]}),
    "annotated": (Annotated[int, "a count"], 5, {"result": 5}),
    "pydantic-model": (Reading, READING, READING_DATA),
    "root-model": (RootModel[list[int]], RootModel[list[int]]([1, 2]), {"result": [1, 2]}),
    "list-of-models": (list[Reading], [READING], {"result": [READING_DATA]}),
    "dict-of-models": (dict[str, Reading], {"r": READING}, {"r": READING_DATA}),
    "dataclass": (
        Session,
        Session(dt.date(2026, 3, 2), frozenset({"legs"}), READING),
        {"day": "2026-03-02", "tags": ["legs"], "reading": READING_DATA},
    ),
    "list-of-dataclasses": (
        list[Session],
        [Session(dt.date(2026, 3, 2), frozenset())],
        {"result": [{"day": "2026-03-02", "tags": [], "reading": None}]},
    ),
    "typed-dict": (Totals, Totals(count=2, names=["a", "b"]), {"count": 2, "names": ["a", "b"]}),
    "ok": (Ok, Ok({"saved": True}), {"saved": True}),
    "ok-or-error": (Ok | ToolError, Ok({"saved": True}), {"saved": True}),
    "dict-or-error": (dict[str, Any] | ToolError, {"n": 1}, {"n": 1}),
}


def _handler(annotation: Any, value: Any) -> Callable[[], Any]:
    """A handler returning ``value``, declared to return ``annotation``."""

    def fetch() -> Any:
        """Fetch the thing."""
        return value

    fetch.__annotations__ = {} if annotation is ... else {"return": annotation}
    return fetch


def _run(tool: Tool) -> Ok:
    """Call ``tool`` once through an agent; its outcome, after checking that it ran."""
    model = ScriptedModel([turn(call(tool.name)), turn("done")])
    result = Agent(model=model, tools=ToolSet([tool]), lang="en").run_turn_sync("go")
    (record,) = result.calls
    assert record.executed is True
    assert isinstance(record.outcome, Ok), record.outcome
    return record.outcome


@pytest.mark.parametrize("case", sorted(SUPPORTED))
def test_a_supported_return_annotation_comes_back_as_its_json_data(case: str) -> None:
    """Each supported annotation is accepted, and its value is the Ok data (wrapped if not
    an object), on the wire as well."""
    annotation, value, expected = SUPPORTED[case]
    outcome = _run(Tool.from_function(_handler(annotation, value)))
    assert outcome == Ok(expected)
    assert to_wire(outcome) == expected


@pytest.mark.parametrize("case", sorted(SUPPORTED))
def test_the_result_schema_is_valid_and_describes_the_data(case: str) -> None:
    """Each supported annotation's result schema is a valid draft 2020-12 schema that the
    data the tool returns (wrapped when it is not an object, as the test above runs it)
    satisfies."""
    annotation, value, expected = SUPPORTED[case]
    tool = Tool.from_function(_handler(annotation, value))
    schema = tool.result_schema()
    Draft202012Validator.check_schema(schema)
    assert schema.get("type") == "object"
    Draft202012Validator(schema).validate(expected)


# (annotation, data a handler of that annotation never yields)
NOT_THE_DATA: dict[str, tuple[Any, dict[str, Any]]] = {
    "str": (str, {"result": 3}),
    "list-str": (list[str], {"result": ["a", 1]}),
    "str-unwrapped": (list[str], {"items": ["a"]}),
    "model": (Reading, {"day": "2026-03-01"}),
    "model-or-error": (Reading | ToolError, {"result": None}),
    "optional-model": (Reading | None, {"result": 1}),
    "dataclass": (Session, {"day": "2026-03-02"}),
    "literal": (Literal["low", "high"], {"result": "mid"}),
    "dict-of-int": (dict[str, int], {"a": "1"}),
}


@pytest.mark.parametrize("case", sorted(NOT_THE_DATA))
def test_the_result_schema_refuses_data_of_another_shape(case: str) -> None:
    """A result schema says more than "an object": data the annotation rules out fails it."""
    annotation, data = NOT_THE_DATA[case]
    schema = Tool.from_function(_handler(annotation, None)).result_schema()
    assert not Draft202012Validator(schema).is_valid(data)


def test_an_optional_model_is_the_model_or_the_wrapped_null() -> None:
    """``Reading | None`` is either the model's object or ``{"result": null}``, the way
    ``outcome_of`` wraps None; the model's nested definitions stay at the top."""
    schema = Tool.from_function(_handler(list[Reading] | None, None)).result_schema()
    assert [branch["properties"]["result"] for branch in schema["anyOf"]] == [
        {"type": "array", "items": {"$ref": "#/$defs/Reading"}},
        {"type": "null"},
    ]
    assert set(schema["$defs"]) == {"Reading"}
    valid = Draft202012Validator(schema)
    assert valid.is_valid({"result": [READING_DATA]})
    assert valid.is_valid({"result": None})


@pytest.mark.parametrize("annotation", [..., Any, Ok, Ok | ToolError, dict[str, Any] | ToolError])
def test_an_open_result_is_described_as_an_object(annotation: Any) -> None:
    """No annotation, ``Any`` or an ``Ok`` say only "an object"; ``ToolError`` adds nothing."""
    schema = Tool.from_function(_handler(annotation, None)).result_schema()
    assert schema in ({"type": "object"}, {"type": "object", "additionalProperties": True})


def test_a_returned_tool_error_is_the_outcome() -> None:
    """A handler declared ``-> ToolError`` returns its domain error as the outcome."""
    error = ToolError("not_found", "Nothing saved for that day.", Recovery.CHOOSE_ALTERNATIVE)
    tool = Tool.from_function(_handler(ToolError, error))
    model = ScriptedModel([turn(call(tool.name)), turn("done")])
    (record,) = Agent(model=model, tools=ToolSet([tool]), lang="en").run_turn_sync("go").calls
    assert record.executed is True
    assert record.outcome == error
    assert to_wire(record.outcome)["error"] == "not_found"


async def names_async() -> list[str]:
    """Names, from a coroutine function."""
    return ["a", "b"]


def test_an_async_handler_returns_what_it_declares_after_await() -> None:
    """An ``async def ... -> list[str]`` is checked against ``list[str]`` and its list is
    wrapped."""
    outcome = _run(Tool.from_function(names_async))
    assert outcome == Ok({"result": ["a", "b"]})
    assert to_wire(outcome) == {"result": ["a", "b"]}


def awaitable_text() -> Awaitable[str]:
    """Text, from a plain function returning a coroutine."""
    return names_text()


async def names_text() -> str:
    """Text."""
    return "a, b"


def test_a_plain_function_returning_an_awaitable_is_checked_against_what_it_awaits() -> None:
    """``-> Awaitable[str]`` (an async function behind a plain decorator) is ``str``."""
    outcome = _run(Tool.from_function(awaitable_text))
    assert outcome == Ok({"result": "a, b"})


def future_readings() -> list[Reading]:
    """Readings, with the annotation written as a string (``from __future__``)."""
    return [READING]


def test_a_string_annotation_is_resolved_before_it_is_checked() -> None:
    """``from __future__ import annotations`` makes the annotation a string; it is resolved
    and its value converted."""
    assert future_readings.__annotations__["return"] == "list[Reading]"
    outcome = _run(Tool.from_function(future_readings))
    assert outcome == Ok({"result": [READING_DATA]})
    assert to_wire(outcome) == {"result": [READING_DATA]}


def test_a_write_returning_a_list_is_committed_as_the_wrapped_object() -> None:
    """A write's wrapped result is what the ledger records as committed."""
    tools = ToolSet()

    @tools.tool(effect="write")
    def tag(name: str) -> list[str]:
        """Tag something."""
        return [name]

    model = ScriptedModel([turn(call("tag", {"name": "legs"})), turn("done")])
    agent = Agent(model=model, tools=tools, lang="en")
    (record,) = agent.run_turn_sync("go").calls
    assert record.executed is True
    assert record.outcome == Ok({"result": ["legs"]})
    assert [(e.state, e.result) for e in agent.writes()] == [("committed", {"result": ["legs"]})]


def test_a_wrapped_result_is_a_json_object_over_mcp() -> None:
    """Over MCP the wrapped data is the ``structuredContent`` object its schema promises."""
    outcome = _run(Tool.from_function(_handler(list[str], ["a"])))
    result = call_result(outcome)
    assert result.structured_content == {"result": ["a"]}
    assert result.is_error is False


# -- what the harness refuses to declare --------------------------------------------------


class Opaque:
    """A class that is not data."""


class Point(NamedTuple):
    """A NamedTuple: it would reach the model as a bare list."""

    x: int
    y: int


class Shade(enum.Enum):
    """A plain enum: its members are not JSON values."""

    DARK = 1


@dataclasses.dataclass
class WithCallback:
    """A dataclass with a field pydantic cannot write as JSON."""

    callback: Callable[[], int]


class WithOpaque(BaseModel):
    """A pydantic model with an arbitrary class in it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    opaque: Opaque


class Tagged(TypedDict):
    """A TypedDict with a set in it."""

    tags: set[str]


UNSUPPORTED: dict[str, tuple[Any, str]] = {
    "bytes": (bytes, "bytes"),
    "bytearray": (bytearray, "bytearray"),
    "set": (set[str], "set[str]"),
    "bare-set": (set, "set"),
    "frozenset": (frozenset[int], "frozenset[int]"),
    "datetime": (dt.datetime, "datetime"),
    "date": (dt.date, "date"),
    "time": (dt.time, "time"),
    "decimal": (decimal.Decimal, "Decimal"),
    "uuid": (uuid.UUID, "UUID"),
    "complex": (complex, "complex"),
    "plain-class": (Opaque, "Opaque"),
    "plain-enum": (Shade, "Shade"),
    "named-tuple": (Point, "Point"),
    "callable": (Callable[[], int], "Callable[[], int]"),
    "iterator": (Iterator[str], "Iterator[str]"),
    "type": (type[int], "type[int]"),
    "dict-of-bytes": (dict[str, bytes], "dict[str, bytes]"),
    "dict-int-keys": (dict[int, str], "dict[int, str]"),
    "list-of-sets": (list[set[int]], "list[set[int]]"),
    "tuple-with-date": (tuple[int, dt.date], "tuple[int, date]"),
    "literal-bytes": (Literal[b"x"], "Literal[b'x']"),
    "optional-date": (Optional[dt.date], "date | None"),  # noqa: UP045
    "union-with-bytes": (int | bytes, "int | bytes"),
    "annotated-set": (Annotated[set[int], "tags"], "Annotated[set[int], 'tags']"),
    "nested-ok": (list[Ok], "list[Ok]"),
    "nested-error": (dict[str, ToolError], "dict[str, ToolError]"),
    "dataclass-with-callable": (WithCallback, "WithCallback"),
    "model-with-opaque": (WithOpaque, "WithOpaque"),
    "typed-dict-with-set": (Tagged, "Tagged"),
    "awaitable-of-bytes": (Awaitable[bytes], "Awaitable[bytes]"),
    "coroutine-of-set": (Coroutine[Any, Any, set[int]], "Coroutine[Any, Any, set[int]]"),
}


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_an_unsupported_return_annotation_is_refused_when_declared(case: str) -> None:
    """An annotation the harness cannot send as JSON is a ConfigurationError naming the tool
    and the annotation, before anything runs."""
    annotation, shown = UNSUPPORTED[case]
    with pytest.raises(ConfigurationError) as raised:
        Tool.from_function(_handler(annotation, None), name="fetch_thing")
    assert str(raised.value).startswith(f"fetch_thing: the return annotation {shown} cannot ")


def future_bytes() -> dict[str, bytes]:
    """Bytes, with the annotation written as a string."""
    return {}


def test_a_string_annotation_that_resolves_to_an_unsupported_type_is_refused() -> None:
    """A ``from __future__`` string annotation is resolved, then refused like any other."""
    with pytest.raises(ConfigurationError, match=r"future_bytes: .*dict\[str, bytes\]"):
        Tool.from_function(future_bytes)


def test_the_decorator_refuses_too_and_registers_nothing() -> None:
    """``ToolSet.tool`` refuses an unsupported return like ``Tool.from_function``."""
    tools = ToolSet()
    with pytest.raises(ConfigurationError, match="set"):

        @tools.tool
        def labels() -> set[str]:
            """Labels."""
            return set()

    assert tools.names == ()


@dataclasses.dataclass
class Loose:
    """A dataclass whose field may hold anything at run time."""

    value: Any


def _looping_list() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


NOT_DATA: dict[str, Callable[[], Any]] = {
    "ok-in-a-list": lambda: [Ok({"n": 1})],
    "error-in-a-dict": lambda: {
        "e": ToolError("not_found", "Nothing.", Recovery.CHOOSE_ALTERNATIVE)
    },
    "datetime-in-a-list": lambda: [dt.datetime(2020, 1, 1, tzinfo=dt.UTC)],
    "set-in-a-tuple": lambda: ({1},),
    "int-keys-in-a-mapping": lambda: types.MappingProxyType({1: "one"}),
    "list-that-contains-itself": _looping_list,
    "opaque-in-a-dataclass": lambda: Loose(Opaque()),
    "bytes": lambda: b"raw",
    "ok-of-a-list": lambda: Ok([1]),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("case", sorted(NOT_DATA))
def test_a_value_that_is_not_json_data_is_the_handlers_failure(case: str) -> None:
    """Whatever the annotation allowed (``Any`` here), a returned value that is not JSON data
    is ``unavailable``, never wrapped."""
    tool = Tool.from_function(_handler(Any, NOT_DATA[case]()))
    model = ScriptedModel([turn(call(tool.name)), turn("sorry")])
    (record,) = Agent(model=model, tools=ToolSet([tool]), lang="en").run_turn_sync("go").calls
    assert record.executed is True
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "unavailable"
