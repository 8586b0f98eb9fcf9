"""OpenTelemetry spans for turns, model requests and tool calls (the ``otel`` extra).

Pass ``OtelTracer()`` as an agent's ``tracer`` and every turn becomes a span tree following the
OpenTelemetry semantic conventions for generative AI::

    invoke_agent {app}                  the turn: gen_ai.conversation.id, surefoot.stop_reason
    ├── chat {model}                    one per model request: provider, model, tokens
    └── execute_tool {tool}             one per call: gen_ai.tool.call.id, error.type = the
                                        stable code (not_found, outcome_unknown, ...), the
                                        write's idempotency key and ledger state

No argument or result content is recorded unless ``capture_content=True``, and even then it
passes through the ``Redactor`` first. Error messages are never recorded: the code says what
happened, the local diagnostics say why. Without this module nothing imports OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Final

try:
    from opentelemetry import trace
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode
except ImportError as _missing:  # pragma: no cover - depends on the environment
    _msg = "surefoot.otel needs the otel extra: pip install 'surefoot[otel]'"
    raise ImportError(_msg) from _missing

from ._diagnostics import Redactor
from ._exceptions import ProviderError
from ._ledger import Ledger
from ._messages import ModelResponse, ToolCall
from ._outcome import ToolError, dumps, to_record
from ._records import CallRecord
from ._tracing import CallTrace, RequestTrace, TurnTrace

SCOPE: Final = "surefoot"
"""The instrumentation scope the spans are recorded under."""
_USAGE: Final = {
    "output_tokens": "gen_ai.usage.output_tokens",
    "cache_read_input_tokens": "gen_ai.usage.cache_read.input_tokens",
    "cache_creation_input_tokens": "gen_ai.usage.cache_creation.input_tokens",
}
_INPUT_KINDS: Final = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
"""The usage kinds that together are all the input (the convention's ``input_tokens``)."""
_MAX_NAME: Final = 64


class OtelTracer:
    """A ``Tracer`` that records OpenTelemetry spans.

    ``tracer_provider``: where the spans go (default: the global provider).
    ``capture_content``: also record tool arguments and results (redacted by ``redactor``).
    """

    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None = None,
        *,
        capture_content: bool = False,
        redactor: Redactor | None = None,
    ) -> None:
        self._tracer = trace.get_tracer(SCOPE, tracer_provider=tracer_provider)
        self._content = capture_content
        self._redact = redactor or Redactor()

    def turn(
        self, *, app: str, conversation_id: str, user_turn: int
    ) -> AbstractContextManager[TurnTrace]:
        """The turn's span, current while the turn runs."""
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": app,
            "gen_ai.conversation.id": conversation_id,
            "surefoot.user_turn": user_turn,
        }
        return self._span(f"invoke_agent {app}", SpanKind.INTERNAL, attributes, _TurnSpan)

    def model_request(self, *, provider: str, model: str) -> AbstractContextManager[RequestTrace]:
        """One request's span."""
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
        }
        return self._span(f"chat {model}", SpanKind.CLIENT, attributes, _RequestSpan)

    def tool_call(self, call: ToolCall, *, effect: str | None) -> AbstractContextManager[CallTrace]:
        """One call's span."""
        name = _bounded(call.name)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": _bounded(call.call_id),
            "gen_ai.tool.type": "function",
        }
        if effect is not None:
            attributes["surefoot.tool.effect"] = effect
        if self._content:
            arguments = call.arguments if call.arguments is not None else call.raw_arguments
            attributes["gen_ai.tool.call.arguments"] = self._redact(dumps(arguments))

        def make(span: Span) -> _CallSpan:
            return _CallSpan(span, self._redact if self._content else None)

        return self._span(f"execute_tool {name}", SpanKind.INTERNAL, attributes, make)

    @contextmanager
    def _span(
        self, name: str, kind: SpanKind, attributes: dict[str, Any], make: Any
    ) -> Iterator[Any]:
        with self._tracer.start_as_current_span(name, kind=kind, attributes=attributes) as span:
            yield make(span)


class _TurnSpan:
    def __init__(self, span: Span) -> None:
        self._span = span

    def finished(self, stop_reason: str, model_requests: int) -> None:
        self._span.set_attribute("surefoot.stop_reason", stop_reason)
        self._span.set_attribute("surefoot.model_requests", model_requests)
        if stop_reason == "provider_error":
            self._span.set_attribute("error.type", stop_reason)
            self._span.set_status(Status(StatusCode.ERROR))


class _RequestSpan:
    def __init__(self, span: Span) -> None:
        self._span = span

    def finished(self, response: ModelResponse | None, error: ProviderError | None) -> None:
        if error is not None:
            self._span.set_attribute("error.type", error.kind)
            self._span.set_status(Status(StatusCode.ERROR))
            return
        if response is None:
            return
        message = response.message
        if message.model:
            self._span.set_attribute("gen_ai.response.model", message.model)
        self._span.set_attribute("gen_ai.response.finish_reasons", [message.finish])
        usage = response.usage
        inputs = [usage[kind] for kind in _INPUT_KINDS if kind in usage]
        if inputs:  # the convention counts cached input inside gen_ai.usage.input_tokens
            self._span.set_attribute("gen_ai.usage.input_tokens", sum(inputs))
        for ours, theirs in _USAGE.items():
            if ours in usage:
                self._span.set_attribute(theirs, usage[ours])


class _CallSpan:
    def __init__(self, span: Span, redact: Redactor | None) -> None:
        self._span = span
        self._redact = redact

    def finished(self, record: CallRecord, ledger: Ledger) -> None:
        span = self._span
        span.set_attribute("surefoot.executed", record.executed)
        outcome = record.outcome
        if isinstance(outcome, ToolError):
            span.set_attribute("error.type", outcome.code)
            span.set_attribute("surefoot.recovery", outcome.recovery.value)
            span.set_status(Status(StatusCode.ERROR))
        if record.key is not None:
            span.set_attribute("surefoot.idempotency_key", record.key)
            entry = ledger.get(record.key)
            if entry is not None:
                span.set_attribute("surefoot.ledger.state", entry.state)
        if self._redact is not None:
            span.set_attribute("gen_ai.tool.call.result", self._redact(dumps(to_record(outcome))))


def _bounded(value: str) -> str:
    """A model-supplied name or id, printable and short."""
    cleaned = "".join(ch for ch in value if ch.isprintable())
    return cleaned[:_MAX_NAME]


__all__ = ["SCOPE", "OtelTracer"]
