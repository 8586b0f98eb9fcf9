"""The arms of the ablation: what the model is shown of an outcome, and by which loop.

The harness decides every outcome the same way in every arm (``surefoot``'s executor: validate
first, stop after an uncertain write, the round limit); an arm changes only what the model
reads of it, or, for ``naive``, the loop itself::

    contract     the envelope: the mark, the code, the scoped message, the recovery
    no-recovery  the mark, the code and the message, without ``recovery``/``recoverable``
    plain        "Error: <message>" as an ordinary result: no mark, no code, no directive
    naive        the loop common harnesses run by default (``_naive.py``): an exception
                 becomes its text in an ordinary result, and the loop goes on

``Presented`` is the seam for the first three: a ``Model`` that rewrites the tool results of
each request as the arm shows them and passes it on. The transcript the harness keeps (and
scores) holds the true outcomes; only the request the model answers is rewritten. With
``contract`` it passes requests on untouched.

The rewritten results are neutral ``Ok`` data, so every adapter sends them as an ordinary
result. For ``no-recovery`` the mark is the ``"is_error": true`` inside that data, as on the
wires that have no error flag of their own (OpenAI-compatible Chat, OpenAI Responses); on
Anthropic's and Google's wires, whose own ``is_error`` flag marks a ``ToolError``, that flag is
then absent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from enum import StrEnum
from typing import Any

from .._messages import Message, ModelRequest, ModelResponse, ToolResultsMessage
from .._model import Model, StreamEvent
from .._outcome import Ok, Outcome, ToolError


class Arm(StrEnum):
    """One condition of the ablation."""

    CONTRACT = "contract"
    """Outcomes as surefoot sends them: the envelope with its recovery directive."""
    NO_RECOVERY = "no-recovery"
    """The mark and the code, without the recovery directive."""
    PLAIN = "plain"
    """``"Error: <message>"`` in an ordinary result."""
    NAIVE = "naive"
    """A naive loop: exception text in an ordinary result, no stop, no idempotency key."""


ARMS: tuple[Arm, ...] = tuple(Arm)


def plain_text(error: ToolError) -> str:
    """An error as a plain harness writes it: ``Error: <message>``, with each detail."""
    found = "; ".join(
        f"{d.field}: {d.problem}" + (f" ({d.expected})" if d.expected else "")
        for d in error.details
    )
    return f"Error: {error.message}" + (f" [{found}]" if found else "")


def shown(outcome: Outcome, arm: Arm) -> Outcome:
    """What the model reads of ``outcome`` in ``arm`` (a success is shown as it is)."""
    if isinstance(outcome, Ok) or arm is Arm.CONTRACT:
        return outcome
    if arm is Arm.NO_RECOVERY:
        data: dict[str, Any] = {"is_error": True, "error": outcome.code, "message": outcome.message}
        if outcome.details:
            data["details"] = [d.to_json() for d in outcome.details]
        if outcome.result is not None:
            data["result"] = outcome.result
        return Ok(data)
    return Ok({"result": plain_text(outcome)})


def _shown_message(message: Message, arm: Arm) -> Message:
    if not isinstance(message, ToolResultsMessage):
        return message
    results = tuple(replace(r, outcome=shown(r.outcome, arm)) for r in message.results)
    return ToolResultsMessage(results)


def shown_request(request: ModelRequest, arm: Arm) -> ModelRequest:
    """``request`` with every tool result as ``arm`` shows it."""
    if arm is Arm.CONTRACT:
        return request
    messages = tuple(_shown_message(m, arm) for m in request.messages)
    return replace(request, messages=messages)


class Presented:
    """``model``, answering requests whose tool results are shown as ``arm`` says.

    Args:
        model: The model under evaluation.
        arm: ``contract``, ``no-recovery`` or ``plain`` (the naive arm has its own loop).
    """

    def __init__(self, model: Model, arm: Arm) -> None:
        if arm is Arm.NAIVE:
            msg = "the naive arm runs its own loop (NaiveLoop), not a presentation"
            raise ValueError(msg)
        self.inner = model
        self.arm = arm
        self.base_url: str | None = getattr(model, "base_url", None)

    @property
    def provider(self) -> str:
        """The wrapped model's provider."""
        return self.inner.provider

    @property
    def model_name(self) -> str:
        """The wrapped model's name."""
        return self.inner.model_name

    async def request(self, request: ModelRequest) -> ModelResponse:
        """The wrapped model's answer to the request as the arm shows it."""
        return await self.inner.request(shown_request(request, self.arm))

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The wrapped model's stream for the request as the arm shows it."""
        return self.inner.stream(shown_request(request, self.arm))
