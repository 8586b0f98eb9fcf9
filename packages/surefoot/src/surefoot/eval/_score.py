"""Scoring one run: did the model take the recovery its results asked for, and did the run
keep the harness's invariants.

Both read the transcript with the true outcomes (what the contract decided), whatever the arm
showed the model:

* **Recovery.** Each error whose recovery is ``correct_arguments`` or ``choose_alternative``
  and after which the model answered again is an event. Both directives ask for another call
  (corrected arguments, another query); the event is *followed* when the model's next
  response makes a call and not the same one again (same tool, same arguments). Answering
  at once, or repeating the call, is not following it. A run follows the recovery when it
  follows every event; a run without events has none to follow.
* **Invariants.** ``double_effects``: a write that is not idempotent, committed more than once
  with the same arguments. ``false_success``: a write shown as ``Ok`` that did not commit, or
  a reply by the model that says something was saved when no write of the run committed
  although one was attempted. ``requests_after_stop``: model responses after an outcome whose
  recovery was ``stop_turn`` (the harness's arms end the turn there; a naive loop goes on).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .._ledger import LedgerEntry, canonical_json
from .._messages import AssistantMessage, Message, ToolCall, ToolResultsMessage
from .._outcome import ErrorCode, Ok, Outcome, Recovery, ToolError
from .._tools import ToolSet
from ._task import RunView

_ASKS_ANOTHER_CALL = frozenset({Recovery.CORRECT_ARGUMENTS, Recovery.CHOOSE_ALTERNATIVE})


@dataclass(frozen=True, slots=True)
class Round:
    """One response's calls with their true outcomes, and the model's next response."""

    calls: tuple[tuple[ToolCall, Outcome], ...]
    after: AssistantMessage | None


@dataclass(frozen=True, slots=True)
class Invariants:
    """How often a run broke each of the harness's invariants (0 everywhere: kept)."""

    double_effects: int = 0
    false_success: int = 0
    requests_after_stop: int = 0

    @property
    def kept(self) -> bool:
        """Whether the run kept every invariant."""
        return not (self.double_effects or self.false_success or self.requests_after_stop)


def rounds(transcript: Sequence[Message]) -> list[Round]:
    """The tool rounds of ``transcript``, each with the response that came after it."""
    responses = [(i, m) for i, m in enumerate(transcript) if isinstance(m, AssistantMessage)]
    found: list[Round] = []
    calls: tuple[ToolCall, ...] = ()
    for index, message in enumerate(transcript):
        if isinstance(message, AssistantMessage):
            calls = message.tool_calls
        elif isinstance(message, ToolResultsMessage):
            pairs = tuple(zip(calls, (r.outcome for r in message.results), strict=False))
            after = next((m for i, m in responses if i > index), None)
            found.append(Round(pairs, after))
    return found


def _identity(call: ToolCall) -> tuple[str, str]:
    try:
        return call.name, canonical_json(call.arguments)
    except (TypeError, ValueError):
        return call.name, repr(call.arguments)


def recovery_events(transcript: Sequence[Message]) -> list[bool]:
    """Each recovery event of the run, True where the model followed it."""
    events: list[bool] = []
    for round_ in rounds(transcript):
        if round_.after is None:
            continue
        sent_next = {_identity(c) for c in round_.after.tool_calls}
        for call, outcome in round_.calls:
            if isinstance(outcome, ToolError) and outcome.recovery in _ASKS_ANOTHER_CALL:
                events.append(bool(sent_next) and _identity(call) not in sent_next)
    return events


def _stops(outcome: Outcome) -> bool:
    return (
        isinstance(outcome, ToolError)
        and outcome.recovery is Recovery.STOP_TURN
        and outcome.code != ErrorCode.NOT_EXECUTED
    )


def _after_stop(transcript: Sequence[Message]) -> int:
    for index, message in enumerate(transcript):
        if isinstance(message, ToolResultsMessage) and any(
            _stops(r.outcome) for r in message.results
        ):
            later = transcript[index + 1 :]
            return sum(isinstance(m, AssistantMessage) for m in later)
    return 0


def _doubled(writes: Sequence[LedgerEntry], tools: ToolSet) -> int:
    seen: dict[tuple[str, str], int] = {}
    for entry in writes:
        tool = tools.get(entry.tool)
        if entry.state == "committed" and not (tool is not None and tool.idempotent):
            identity = (entry.tool, entry.fingerprint)
            seen[identity] = seen.get(identity, 0) + 1
    return sum(1 for n in seen.values() if n > 1)


def _false_success(run: RunView, tools: ToolSet, claims: Callable[[str], bool]) -> int:
    states = {e.key: e.state for e in run.writes}
    shown_ok = sum(
        1
        for r in run.result.calls
        if _is_write(r.call.name, tools)
        and isinstance(r.outcome, Ok)
        and r.key is not None
        and states.get(r.key) != "committed"
    )
    attempted = any(_is_write(r.call.name, tools) and r.executed for r in run.result.calls)
    landed = any(e.state == "committed" for e in run.writes)
    said = run.result.reply_author == "model" and attempted and not landed and claims(run.reply)
    return shown_ok + int(said)


def _is_write(name: str, tools: ToolSet) -> bool:
    tool = tools.get(name)
    return tool is not None and tool.effect == "write"


def invariants(run: RunView, tools: ToolSet, claims: Callable[[str], bool]) -> Invariants:
    """What ``run`` did to the harness's invariants."""
    return Invariants(
        double_effects=_doubled(run.writes, tools),
        false_success=_false_success(run, tools, claims),
        requests_after_stop=_after_stop(run.transcript),
    )


def failed_checks(run: RunView) -> Iterator[str]:
    """What each failing check of the run's task says."""
    for check in run.task.checks:
        problem = check(run)
        if problem is not None:
            yield problem
