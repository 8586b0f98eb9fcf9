"""The model interface the turn loop talks to.

A model turns a ``ModelRequest`` (neutral transcript + tool specs) into a ``ModelResponse``.
Streaming is the same exchange delivered as events: zero or more ``TextDelta`` as text arrives,
then exactly one ``ResponseDone`` carrying the complete response. Tool-call arguments are only
ever seen complete, in the final response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from ._messages import ModelRequest, ModelResponse


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text, as it arrived."""

    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True)
class ResponseDone:
    """The complete response; always the last event of a stream."""

    response: ModelResponse
    kind: Literal["response_done"] = "response_done"


StreamEvent = TextDelta | ResponseDone


@runtime_checkable
class Model(Protocol):
    """Anything that answers model requests over the neutral transcript."""

    @property
    def provider(self) -> str:
        """A short provider label (``offline``, ``anthropic``, ...)."""
        ...

    @property
    def model_name(self) -> str:
        """The model's name as the provider knows it."""
        ...

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Answer one request."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Answer one request as events; the last event is ``ResponseDone``."""
        ...


async def stream_from_request(model: Model, request: ModelRequest) -> AsyncIterator[StreamEvent]:
    """A ``stream`` for models that have no native streaming: one delta, then done."""
    response = await model.request(request)
    text = response.message.text
    if text:
        yield TextDelta(text)
    yield ResponseDone(response)
