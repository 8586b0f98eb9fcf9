"""Test models that speak the neutral interface.

``ScriptedModel`` plays a fixed list of assistant turns and fails loudly when asked for a turn
it does not have, or when ``assert_consumed`` finds turns nobody asked for. ``FunctionModel``
computes each turn with a function of the request. Both record every request.
"""

from __future__ import annotations

import abc
import inspect
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._exceptions import ScriptError
from .._messages import (
    AssistantMessage,
    AssistantPart,
    FinishReason,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCall,
)
from .._model import ResponseDone, StreamEvent, TextDelta

_ids = itertools.count(1)


def call(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    call_id: str | None = None,
    raw: str | None = None,
) -> ToolCall:
    """A tool call for scripts; ``raw`` gives unparsed argument text (then arguments=None)."""
    return ToolCall(
        call_id=call_id or f"call_{next(_ids)}",
        name=name,
        arguments=None if raw is not None else (arguments or {}),
        raw_arguments=raw,
    )


def turn(*parts: str | ToolCall, finish: FinishReason | None = None) -> AssistantMessage:
    """An assistant turn from text and calls; the finish reason follows from the parts."""
    converted: list[AssistantPart] = [TextPart(p) if isinstance(p, str) else p for p in parts]
    has_calls = any(isinstance(p, ToolCall) for p in converted)
    return AssistantMessage(
        parts=tuple(converted),
        finish=finish or ("tool_use" if has_calls else "end_turn"),
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted turn, with an optional check on the request that asks for it."""

    message: AssistantMessage
    expect: Callable[[ModelRequest], bool] | None = None


class _Recording(abc.ABC):
    provider = "scripted"

    def __init__(self, model_name: str) -> None:
        self.model_name = model_name
        self.requests: list[ModelRequest] = []

    def _stamp(self, message: AssistantMessage) -> ModelResponse:
        stamped = AssistantMessage(
            parts=message.parts,
            finish=message.finish,
            provider=message.provider or self.provider,
            model=message.model or self.model_name,
            provider_details=message.provider_details,
        )
        return ModelResponse(stamped)

    @abc.abstractmethod
    async def request(self, request: ModelRequest) -> ModelResponse:
        """Answer one request."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Text in word-sized deltas, then the response."""
        response = await self.request(request)
        words = response.message.text.split(" ")
        for index, word in enumerate(words):
            piece = word if index == len(words) - 1 else word + " "
            if piece:
                yield TextDelta(piece)
        yield ResponseDone(response)


class ScriptedModel(_Recording):
    """Plays ``steps`` in order; any deviation raises ``ScriptError``."""

    def __init__(
        self, steps: Sequence[AssistantMessage | Step], *, model_name: str = "script"
    ) -> None:
        super().__init__(model_name)
        self._steps = [s if isinstance(s, Step) else Step(s) for s in steps]
        self._next = 0

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if self._next >= len(self._steps):
            msg = (
                f"the script has {len(self._steps)} turn(s) but request "
                f"#{len(self.requests)} asked for another"
            )
            raise ScriptError(msg)
        step = self._steps[self._next]
        self._next += 1
        if step.expect is not None and not step.expect(request):
            msg = f"request #{len(self.requests)} did not meet the script's expectation"
            raise ScriptError(msg)
        return self._stamp(step.message)

    @property
    def remaining(self) -> int:
        """Turns not yet asked for."""
        return len(self._steps) - self._next

    def assert_consumed(self) -> None:
        """Raise ``ScriptError`` if any scripted turn was never asked for."""
        if self.remaining:
            msg = f"{self.remaining} scripted turn(s) were never requested"
            raise ScriptError(msg)


TurnFunction = Callable[
    [ModelRequest], AssistantMessage | ModelResponse | Awaitable[AssistantMessage | ModelResponse]
]


class FunctionModel(_Recording):
    """Computes each turn with ``function(request)`` (sync or async)."""

    def __init__(self, function: TurnFunction, *, model_name: str = "function") -> None:
        super().__init__(model_name)
        self._function = function

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        value = self._function(request)
        if inspect.isawaitable(value):
            value = await value
        if isinstance(value, ModelResponse):
            return value
        return self._stamp(value)
