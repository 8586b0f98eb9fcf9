"""Running tasks: one run is one task, in one arm, on one model, with one seed.

``evaluate`` runs every task in every arm ``repeat`` times, seed by seed. ``order="interleaved"``
(the default) runs the arms task by task, so a model server that warms up or slows down over
the run touches every arm alike; ``order="by-arm"`` runs all of one arm's tasks before the
next arm's, so a local server's prompt cache keeps the system prompt and tools (they differ
between arms) from one request to the next. Each run lands in ``on_run`` as soon as it ends
(a log line, a progress bar).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from .._loop import Agent
from .._messages import Message
from .._model import Model
from .._outcome import to_record
from .._records import Usage
from .._result import TurnResult
from ._arms import Arm, Presented
from ._naive import NaiveLoop
from ._score import failed_checks, invariants, recovery_events
from ._task import Environment, RunView, Task, World


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What one run did: one line of the JSON-lines log.

    Attributes:
        task, kind, domain, arm, seed: Which run this is.
        provider, model: The model it ran on.
        success: Every check of the task held.
        failed: What each failing check said.
        recovery_events: The run's recovery events (see ``_score``).
        recovery_followed: How many of them the model followed.
        double_effects, false_success, requests_after_stop: The harness's invariants.
        stop_reason: How the turn ended.
        reply: The text the person got.
        requests: Model requests made.
        input_tokens, output_tokens: Tokens, as the provider reported them.
        seconds: Wall time of the run.
        calls: Each call with its arguments and true outcome (``to_record`` form).
    """

    task: str
    kind: str
    domain: str
    arm: str
    seed: int
    provider: str
    model: str
    success: bool
    failed: tuple[str, ...]
    recovery_events: int
    recovery_followed: int
    double_effects: int
    false_success: int
    requests_after_stop: int
    stop_reason: str
    reply: str
    requests: int
    input_tokens: int
    output_tokens: int
    seconds: float
    calls: tuple[dict[str, Any], ...] = field(default=())

    @property
    def recovered(self) -> bool | None:
        """Whether the model followed every recovery event (None: the run had none)."""
        if not self.recovery_events:
            return None
        return self.recovery_followed == self.recovery_events

    @property
    def invariants_kept(self) -> bool:
        """Whether the run kept every invariant."""
        return not (self.double_effects or self.false_success or self.requests_after_stop)

    def to_json(self) -> dict[str, Any]:
        """The log line's object."""
        data = asdict(self)
        data["failed"], data["calls"] = list(self.failed), list(self.calls)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        """A record read back from a log line."""
        values = dict(data)
        values["failed"] = tuple(values["failed"])
        values["calls"] = tuple(values.get("calls", ()))
        return cls(**values)


async def _harness_turn(
    world: World, task: Task, arm: Arm, model: Model, cid: str
) -> tuple[TurnResult, list[Message]]:
    """The turn on surefoot's ``Agent``, with the model shown outcomes as ``arm`` says, and
    the person's decisions on confirmations, in order."""
    agent = Agent(
        model=Presented(model, arm),
        tools=world.tools,
        system=world.system,
        lang=task.lang,
        ledger=world.ledger,
        journal=world.journal,
        app_context=world.app_context,
        **world.agent_options,
    )
    result = await agent.run_turn(task.message, conversation_id=cid)
    for approve in task.decisions:
        pending = result.pending_confirmation
        if pending is None:
            break
        agent.decide(cid, pending.id, approved=approve)
        result = _joined(result, await agent.resume(cid))
    return result, agent.transcript(cid)


def _joined(first: TurnResult, then: TurnResult) -> TurnResult:
    usage = Usage.of([*first.usage.requests, *then.usage.requests])
    return TurnResult(
        conversation_id=then.conversation_id,
        reply=then.reply,
        reply_author=then.reply_author,
        stop_reason=then.stop_reason,
        model_requests=first.model_requests + then.model_requests,
        calls=(*first.calls, *then.calls),
        pending_confirmation=then.pending_confirmation,
        provider_error=then.provider_error,
        usage=usage,
    )


async def _naive_turn(
    world: World, task: Task, model: Model, cid: str
) -> tuple[TurnResult, list[Message]]:
    options = world.agent_options
    loop = NaiveLoop(
        model=model,
        tools=world.tools,
        ledger=world.ledger,
        system=world.system,
        lang=task.lang,
        app_context=world.app_context,
        max_rounds=options.get("max_rounds", 10),
        offer=options.get("offer"),
    )
    return await loop.run_turn(task.message, conversation_id=cid)


async def run_task(
    environment: Environment, task: Task, arm: Arm, model: Model, *, seed: int = 0
) -> RunRecord:
    """Run ``task`` once in ``arm`` on ``model`` in a fresh world, and score it."""
    cid = f"eval-{task.id}-{arm.value}-{seed}"
    with environment.world(task, arm) as world:
        started = time.perf_counter()
        if arm is Arm.NAIVE:
            result, transcript = await _naive_turn(world, task, model, cid)
        else:
            result, transcript = await _harness_turn(world, task, arm, model, cid)
        seconds = time.perf_counter() - started
        view = RunView(
            task=task,
            arm=arm,
            result=result,
            transcript=tuple(transcript),
            writes=tuple(world.ledger.entries(conversation_id=cid)),
            state=world.state(),
        )
        kept = invariants(view, world.tools, world.claims_success)
    events = recovery_events(view.transcript) if task.recovery else []
    return RunRecord(
        task=task.id,
        kind=task.kind,
        domain=task.domain,
        arm=arm.value,
        seed=seed,
        provider=model.provider,
        model=model.model_name,
        success=not any(True for _ in failed_checks(view)),
        failed=tuple(failed_checks(view)),
        recovery_events=len(events),
        recovery_followed=sum(events),
        double_effects=kept.double_effects,
        false_success=kept.false_success,
        requests_after_stop=kept.requests_after_stop,
        stop_reason=result.stop_reason,
        reply=result.reply,
        requests=result.model_requests,
        input_tokens=result.usage.input_tokens,
        output_tokens=result.usage.output_tokens,
        seconds=round(seconds, 3),
        calls=tuple(
            _call_json(r.call.name, r.call.arguments, to_record(r.outcome)) for r in result.calls
        ),
    )


def _call_json(
    name: str, arguments: dict[str, Any] | None, outcome: dict[str, Any]
) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "outcome": outcome}


OnRun = Callable[[RunRecord], Awaitable[None] | None]

Order = Literal["interleaved", "by-arm"]
"""How runs follow each other within a seed (see the module's docstring)."""


async def evaluate(
    environment: Environment,
    tasks: Sequence[Task],
    model_for: Callable[[int], Model],
    *,
    arms: Sequence[Arm] = tuple(Arm),
    repeat: int = 1,
    on_run: OnRun | None = None,
    order: Order = "interleaved",
) -> list[RunRecord]:
    """Run every task in every arm ``repeat`` times (seeds 0 .. repeat-1); ``model_for(seed)``
    gives the model of a seed, the same one for every arm. The records, in run order."""
    if repeat < 1:
        msg = "repeat must be at least 1"
        raise ValueError(msg)
    records: list[RunRecord] = []
    for seed in range(repeat):
        model = model_for(seed)
        for task, arm in _plan(tasks, arms, order):
            record = await run_task(environment, task, arm, model, seed=seed)
            records.append(record)
            if on_run is not None:
                maybe = on_run(record)
                if maybe is not None:
                    await maybe
    return records


def _plan(tasks: Sequence[Task], arms: Sequence[Arm], order: Order) -> list[tuple[Task, Arm]]:
    if order == "by-arm":
        return [(task, arm) for arm in arms for task in tasks]
    return [(task, arm) for task in tasks for arm in arms]
