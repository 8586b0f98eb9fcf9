"""What a task is, what an application gives the evaluator, and what a check reads.

A ``Task`` is a user message, a starting state (``setup``, read by the application), a fault
plan (``faults``: which run of which tool's handler fails how), the answers a person gives to
confirmations (``decisions``) and checks on the end state and the reply. The evaluator knows no
application: an ``Environment`` opens a fresh ``World`` per run (tools over a fresh store with
the task's state and faults, the system prompt of the arm) and tells what the end state is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .._journal import Journal
from .._ledger import Ledger, LedgerEntry
from .._messages import Message
from .._outcome import Ok
from .._result import TurnResult
from .._texts import Lang
from .._tools import ToolSet
from ._arms import Arm

FaultMode = Literal["read_error", "before_commit", "after_commit", "ambiguous"]
"""How a handler fails: a read raises; a write raises before its transaction commits
(nothing persists), after it commits (the acknowledgement is lost), or after it commits with
the harness not allowed to verify (its outcome stays unknown)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """``tool``'s handler fails as ``mode`` on its runs numbered in ``runs`` (from 1), or on
    every run when ``runs`` is empty (a permanent failure)."""

    tool: str
    mode: FaultMode
    runs: tuple[int, ...] = ()

    def fails(self, run: int) -> bool:
        """Whether the handler's ``run``-th run fails."""
        return not self.runs or run in self.runs


@dataclass(frozen=True, slots=True)
class RunView:
    """One finished run, as checks read it.

    Attributes:
        task: The task.
        arm: The arm it ran in.
        result: How the turn ended (after every confirmation the task answers); ``calls``
            holds each call with its true outcome, whatever the arm showed the model.
        transcript: The conversation with the true outcomes.
        writes: The ledger's entries of the run's conversation.
        state: The end state, as the environment describes it.
    """

    task: Task
    arm: Arm
    result: TurnResult
    transcript: tuple[Message, ...]
    writes: tuple[LedgerEntry, ...]
    state: Mapping[str, Any]

    @property
    def reply(self) -> str:
        """The text the person got."""
        return self.result.reply

    def committed(self, tool: str) -> list[LedgerEntry]:
        """The committed writes of ``tool``."""
        return [e for e in self.writes if e.tool == tool and e.state == "committed"]


Check = Callable[[RunView], "str | None"]
"""A check on a finished run: None when it holds, else what went wrong (one line)."""


@dataclass(frozen=True, slots=True)
class Task:
    """One evaluation task.

    Attributes:
        id: A stable name (``measure.read-fallback``).
        message: What the person says.
        kind: The failure it exercises (``not_found``, ``before_commit``, ...).
        domain: The application area (``measurements``, ``diet``, ...).
        lang: The language of the turn.
        setup: The starting state, read by the environment.
        faults: Which handler runs fail, and how.
        decisions: The person's answers to confirmations, in order (True: approve).
        checks: What must hold at the end for the task to succeed.
        recovery: Another call can recover here (another query, corrected arguments), so
            its errors are recovery events. False where the right move is to tell the person
            (nothing else can work, the person refused, the person's own value is refused):
            the task then counts no recovery event.
    """

    id: str
    message: str
    kind: str
    domain: str = ""
    lang: Lang = "en"
    setup: Mapping[str, Any] = field(default_factory=dict)
    faults: tuple[Fault, ...] = ()
    decisions: tuple[bool, ...] = ()
    checks: tuple[Check, ...] = ()
    recovery: bool = True


@dataclass(slots=True)
class World:
    """A fresh world for one run, opened by an ``Environment``.

    Attributes:
        tools: The tools, over the task's starting state and faults.
        ledger: Where writes are claimed (the same database as the effects, if atomic).
        journal: Where the conversation is kept.
        system: The system prompt for the arm.
        app_context: Passed to handlers as ``ctx.app``.
        agent_options: Further ``Agent`` options (``offer``, ``today``, ``app_name``, ...).
        state: The end state, read after the run for the checks.
        claims_success: Whether a reply tells the person something was saved or done.
    """

    tools: ToolSet
    ledger: Ledger
    journal: Journal
    system: str | None
    state: Callable[[], Mapping[str, Any]]
    claims_success: Callable[[str], bool]
    app_context: dict[str, Any] = field(default_factory=dict)
    agent_options: dict[str, Any] = field(default_factory=dict)


class Environment(Protocol):
    """An application under evaluation: a fresh world per run."""

    def world(self, task: Task, arm: Arm) -> AbstractContextManager[World]:
        """The world ``task`` runs in, in ``arm``, closed after the run."""
        ...


# -- checks -----------------------------------------------------------------------------------


def _matches(arguments: Mapping[str, Any] | None, wanted: Mapping[str, Any]) -> bool:
    return arguments is not None and all(arguments.get(k) == v for k, v in wanted.items())


def called(tool: str, /, **arguments: Any) -> Check:
    """A call of ``tool`` with (at least) ``arguments`` succeeded."""

    def check(run: RunView) -> str | None:
        for record in run.result.calls:
            ok = record.call.name == tool and isinstance(record.outcome, Ok)
            if ok and _matches(record.call.arguments, arguments):
                return None
        return f"no successful {tool}({_show(arguments)})"

    return check


def not_called(tool: str, /, **arguments: Any) -> Check:
    """No call of ``tool`` with (at least) ``arguments`` was made."""

    def check(run: RunView) -> str | None:
        for record in run.result.calls:
            if record.call.name == tool and _matches(record.call.arguments, arguments):
                return f"{tool}({_show(arguments)}) was called"
        return None

    return check


def committed(tool: str, /, count: int) -> Check:
    """Exactly ``count`` writes of ``tool`` committed."""

    def check(run: RunView) -> str | None:
        found = len(run.committed(tool))
        return None if found == count else f"{found} committed {tool} write(s), not {count}"

    return check


def reply_has(*alternatives: str) -> Check:
    """The reply contains one of ``alternatives`` (case-insensitively; a decimal comma reads
    as a point)."""

    def check(run: RunView) -> str | None:
        reply = run.reply.casefold().replace(",", ".")
        if any(a.casefold().replace(",", ".") in reply for a in alternatives):
            return None
        return f"the reply says none of {list(alternatives)}"

    return check


def reply_lacks(*phrases: str) -> Check:
    """The reply contains none of ``phrases`` (case-insensitively)."""

    def check(run: RunView) -> str | None:
        reply = run.reply.casefold()
        found = [p for p in phrases if p.casefold() in reply]
        return f"the reply says {found[0]!r}" if found else None

    return check


def ended(*reasons: str) -> Check:
    """The turn ended for one of ``reasons`` (``completed``, ``stop_turn``, ...)."""

    def check(run: RunView) -> str | None:
        reason = run.result.stop_reason
        return None if reason in reasons else f"the turn ended with {reason}"

    return check


def _show(arguments: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in arguments.items())
