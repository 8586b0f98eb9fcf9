"""Measure what the contract is worth: a recovery evaluation for any model, with an ablation.

A ``Task`` is a user message, a starting state, a fault plan and checks; an ``Environment``
(the application) opens a fresh ``World`` for each run. ``evaluate`` runs every task in every
``Arm`` on the same model and seeds and scores each run (``RunRecord``): task success, whether
the model took the recovery its results asked for, and the harness's invariants (no double
effect, no false success, no request after a stop). ``summarize`` gives each arm's rates with
95% Wilson intervals and the paired differences from the contract arm; ``write_charts`` draws
them (the ``eval`` extra: matplotlib).

The arms (``_arms``): ``contract`` (outcomes as surefoot sends them), ``no-recovery`` (the
mark and code without the directive), ``plain`` ("Error: ..." in an ordinary result) and
``naive`` (``NaiveLoop``: exception text as a result, no stop, no idempotency key). In the
first three the harness decides the same way; only what the model reads changes.
"""

from ._arms import ARMS, Arm, Presented, plain_text, shown, shown_request
from ._chart import write_charts
from ._naive import NaiveLoop
from ._run import OnRun, Order, RunRecord, evaluate, run_task
from ._score import Invariants, Round, invariants, recovery_events, rounds
from ._stats import ArmSummary, Difference, Rate, difference, paired_difference, summarize, wilson
from ._task import (
    Check,
    Environment,
    Fault,
    FaultMode,
    RunView,
    Task,
    World,
    called,
    committed,
    ended,
    not_called,
    reply_has,
    reply_lacks,
)

__all__ = [
    "ARMS",
    "Arm",
    "ArmSummary",
    "Check",
    "Difference",
    "Environment",
    "Fault",
    "FaultMode",
    "Invariants",
    "NaiveLoop",
    "OnRun",
    "Order",
    "Presented",
    "Rate",
    "Round",
    "RunRecord",
    "RunView",
    "Task",
    "World",
    "called",
    "committed",
    "difference",
    "ended",
    "evaluate",
    "invariants",
    "not_called",
    "paired_difference",
    "plain_text",
    "recovery_events",
    "reply_has",
    "reply_lacks",
    "rounds",
    "run_task",
    "shown",
    "shown_request",
    "summarize",
    "wilson",
    "write_charts",
]
