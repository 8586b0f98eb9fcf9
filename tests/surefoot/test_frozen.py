"""``quick_init``: a frozen record's quicker ``__init__`` takes the same arguments, fills the
same defaults and stays frozen."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any

import pytest

from surefoot._frozen import quick_init
from surefoot._outcome import ToolError
from surefoot._records import CallRecord, Usage
from surefoot._result import TurnResult
from surefoot.messages import ToolCall


def _sample_class() -> type:
    """A frozen dataclass with every kind of field: defaults, factories, ``init=False``,
    keyword-only, ``__post_init__`` (a new class each call)."""

    @dataclass(frozen=True, slots=True)
    class Sample:
        a: int
        b: str = "b"
        c: list[int] = field(default_factory=list)
        d: int = field(default=4, init=False)
        e: tuple[int, ...] = field(default=(), kw_only=True)
        seen: list[str] = field(default_factory=list, init=False, compare=False)

        def __post_init__(self) -> None:
            self.seen.append(f"{self.a}{self.b}")

    return Sample


_Sample: Any = quick_init(_sample_class())
_Plain: Any = _sample_class()


def test_the_same_parameters_defaults_and_post_init() -> None:
    assert [p.name for p in inspect.signature(_Sample).parameters.values()] == [
        p.name for p in inspect.signature(_Plain).parameters.values()
    ]
    built = _Sample(1)
    assert (built.a, built.b, built.c, built.d, built.e, built.seen) == (1, "b", [], 4, (), ["1b"])
    assert _Sample(1).c is not built.c  # a fresh list each time, as default_factory says
    other = _Sample(2, "x", [3], e=(5,))
    assert (other.b, other.c, other.e) == ("x", [3], (5,))
    assert _Sample(a=2, b="x", c=[3], e=(5,)) == other
    with pytest.raises(TypeError):
        _Sample(1, "b", [], (5,))  # type: ignore[call-arg]  # e is keyword-only
    with pytest.raises(TypeError):
        _Sample()  # type: ignore[call-arg]


def test_a_quick_record_stays_frozen() -> None:
    built = _Sample(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.a = 2  # type: ignore[misc]
    record = CallRecord(ToolCall("c1", "t", {}), ToolError("boom", "m", "stop_turn"), True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.key = "k"  # type: ignore[misc]


def test_the_harness_records_build_as_before() -> None:
    usage = Usage(1, 2)
    assert (usage.cached_input_tokens, usage.requests, usage.total_tokens) == (0, (), 3)
    error = ToolError("not_found", "gone", "choose_alternative")  # __post_init__ coerces
    assert error.recovery.value == "choose_alternative"
    assert error.details == ()
    with pytest.raises(ValueError, match="snake_case"):
        ToolError("Not Found", "gone", "choose_alternative")
    result = TurnResult("c", "hi", "model", "completed", 1, ())
    assert result.usage == Usage()
    assert result.output is None
    assert dataclasses.replace(result, reply="bye").reply == "bye"


def test_only_frozen_dataclasses_with_slots() -> None:
    with pytest.raises(TypeError):
        quick_init(type("NotOne", (), {}))

    @dataclass(slots=True)
    class Thawed:
        a: int

    with pytest.raises(TypeError):
        quick_init(Thawed)
