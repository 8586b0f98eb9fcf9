"""The neutral transcript: ours, not any vendor's.

A conversation is a list of messages::

    Message = UserMessage | AssistantMessage | ToolResultsMessage | HarnessMessage | HarnessNote

* ``UserMessage`` — what the person typed, and the day they said it (``said_on``: the Agent's
  ``today`` when it journaled the message), which their "hoy" and "ayer" count from.
* ``AssistantMessage`` — one model response: ``TextPart``, ``ToolCall`` and ``ReasoningPart``
  parts in order, the stop reason, and which provider/model produced it. Vendor data that
  must be echoed back lives in ``ReasoningPart`` (reasoning items, thinking blocks and their
  signatures) and in the ``provider_details`` of a part (the provider's own item ids, status,
  the ``phase`` of a message). Adapters send it back only to the provider that produced it
  (the message's ``provider``) and drop it cleanly when the transcript moves elsewhere.
* ``ToolResultsMessage`` — exactly one ``ToolResult`` per call of the preceding assistant
  message, in call order. The outcome inside keeps its program-set mark.
* ``HarnessMessage`` — text the harness itself showed the person (a stop, a limit). Adapters
  never present it as the model's words.
* ``HarnessNote`` — text the harness tells the model within a turn (after an empty answer:
  answer the person). Adapters send it as user-side text; the person never sees it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._frozen import quick_init
from ._outcome import Outcome

FinishReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "pause"]
"""Why a model response ended, in neutral terms."""


@dataclass(frozen=True, slots=True)
class TextPart:
    """Text the model wrote; ``provider_details`` keeps the producing provider's own fields
    for it (an item id, a status, a phase), echoed only to that provider."""

    text: str
    provider_details: dict[str, Any] | None = None
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model made it.

    ``raw_arguments`` is exactly what the provider sent (a JSON string) when it sent a
    string; ``arguments`` is the parsed object, or None when the text did not parse into one.
    """

    call_id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str | None = None
    provider_details: dict[str, Any] | None = None
    kind: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    """Opaque provider reasoning, echoed only to the provider that produced it."""

    provider: str
    data: dict[str, Any]
    kind: Literal["reasoning"] = "reasoning"


AssistantPart = TextPart | ToolCall | ReasoningPart


@quick_init
@dataclass(frozen=True, slots=True)
class UserMessage:
    """What the person said; ``said_on``: the day they said it (None: not known, as for a
    message built by hand or journaled before days were kept)."""

    text: str
    kind: Literal["user"] = "user"
    said_on: dt.date | None = None


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """One model response."""

    parts: tuple[AssistantPart, ...]
    finish: FinishReason = "end_turn"
    provider: str | None = None
    model: str | None = None
    provider_details: dict[str, Any] | None = None
    kind: Literal["assistant"] = "assistant"
    _tool_calls: tuple[ToolCall, ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def text(self) -> str:
        """All text parts joined."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls, in order (found at the first read: the loop, the executor and
        every adapter read them)."""
        calls = self._tool_calls
        if calls is None:
            calls = tuple(p for p in self.parts if isinstance(p, ToolCall))
            object.__setattr__(self, "_tool_calls", calls)
        return calls


@quick_init
@dataclass(frozen=True, slots=True)
class ToolResult:
    """The one outcome of one call. ``key`` is the write's idempotency key (None for reads
    and for calls that never reached the ledger); it stays local, no provider sees it."""

    call_id: str
    name: str
    outcome: Outcome
    executed: bool = True
    key: str | None = None


@quick_init
@quick_init
@dataclass(frozen=True, slots=True)
class ToolResultsMessage:
    """The results of every call of the preceding assistant message, in call order."""

    results: tuple[ToolResult, ...]
    kind: Literal["tool_results"] = "tool_results"


HarnessReason = Literal[
    "stop_turn",
    "round_limit",
    "provider_error",
    "max_tokens",
    "refusal",
    "awaiting_confirmation",
    "empty_answer",
    "token_budget",
    "invalid_output",
]


@quick_init
@dataclass(frozen=True, slots=True)
class HarnessMessage:
    """Text the harness showed the person when it ended a turn itself."""

    text: str
    reason: HarnessReason
    kind: Literal["harness"] = "harness"


@quick_init
@dataclass(frozen=True, slots=True)
class HarnessNote:
    """Text the harness tells the model within a turn (never the person's words, never shown
    as the model's): why it is asked again."""

    text: str
    reason: Literal["empty_answer", "invalid_output"] = "empty_answer"
    kind: Literal["harness_note"] = "harness_note"


Message = UserMessage | AssistantMessage | ToolResultsMessage | HarnessMessage | HarnessNote


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What a provider needs to know about one tool."""

    name: str
    description: str
    parameters: dict[str, Any]
    effect: Literal["read", "write"] = "read"


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one model request needs: the transcript so far and the tools."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    system: str | None = None
    output_schema: dict[str, Any] | None = None
    """The JSON Schema the final answer must match (``Agent(output_type=...)``): adapters ask
    for it natively where the API can (structured outputs); the harness validates it anyway."""


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """A model's answer: the assistant message, plus usage if the provider gave it.

    ``usage`` counts tokens by kind, each kind present when the provider reports it:

    * ``input_tokens``: input tokens not read from a prompt cache (and, for Anthropic, not
      written to one either);
    * ``cache_read_input_tokens``: input tokens read from a prompt cache, from the provider's
      own count (Anthropic's ``cache_read_input_tokens``, OpenAI's ``cached_tokens``,
      Google's ``total_cached_tokens``, the prompt tokens llama.cpp's server reused), zero
      when the provider says none were;
    * ``cache_creation_input_tokens``: input tokens written to a prompt cache (Anthropic);
    * ``output_tokens``: generated tokens, reasoning included.

    The kinds never overlap and no total is included, so summing the values counts each token
    once; all the input is ``input_tokens`` plus the two ``cache_*`` kinds."""

    message: AssistantMessage
    usage: dict[str, int] = field(default_factory=dict)
