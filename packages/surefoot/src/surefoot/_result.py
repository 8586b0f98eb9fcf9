"""How a turn ended: ``TurnResult`` and the call that waits for a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._exceptions import ProviderError
from ._frozen import quick_init
from ._records import CallRecord, Usage

StopReason = Literal[
    "completed",
    "stop_turn",
    "round_limit",
    "awaiting_confirmation",
    "provider_error",
    "max_tokens",
    "refusal",
    "empty_answer",
    "token_budget",
    "invalid_output",
]


@quick_init
@dataclass(frozen=True, slots=True)
class PendingConfirmation:
    """A call waiting for a person's decision. ``id`` names exactly this call (its tool,
    arguments, turn and position among identical calls); pass it to ``Agent.decide``."""

    conversation_id: str
    id: str
    call_id: str
    tool: str
    arguments: dict[str, Any] | None
    question: str | None = None
    """The question the tool's ``Confirm`` policy asks the person (None: the tool confirms
    every call; show the call itself)."""


@quick_init
@dataclass(frozen=True, slots=True)
class TurnResult:
    """How one user turn ended.

    Attributes:
        conversation_id: The conversation (a new one unless ``run_turn`` was given one).
        reply: The text for the person: the model's, or the harness's own when it ended
            the turn (then it also lists what the turn saved, did not save, or could not
            confirm).
        reply_author: Who wrote ``reply``: ``"model"`` or ``"harness"``.
        stop_reason: Why the turn ended. ``empty_answer``: the model answered nothing, also
            when asked again; ``token_budget``: the turn used ``max_tokens_per_turn``.
        model_requests: Requests made to the model in this turn.
        calls: Every call of the turn with its one outcome, in order.
        pending_confirmation: The call waiting for a person, when ``stop_reason`` is
            ``awaiting_confirmation``.
        provider_error: The provider's failure, when ``stop_reason`` is ``provider_error``.
        usage: The tokens of the turn's requests, per request and summed.
        output: The final answer validated as ``Agent(output_type=...)`` (None without an
            output type, or when the turn did not end with a valid answer:
            ``invalid_output`` after the corrections allowed).
    """

    conversation_id: str
    reply: str
    reply_author: Literal["model", "harness"]
    stop_reason: StopReason
    model_requests: int
    calls: tuple[CallRecord, ...]
    pending_confirmation: PendingConfirmation | None = None
    provider_error: ProviderError | None = None
    usage: Usage = field(default_factory=Usage)
    output: Any = None
