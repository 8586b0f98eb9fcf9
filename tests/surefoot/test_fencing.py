"""A write whose claim is taken over while its handler runs (its lease lapsed, or its worker
was taken for dead): what the handler then says no longer counts, the ledger decides. And
the other ways a write's fate is decided without trusting the handler."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from surefoot import MemoryLedger, Ok, Recovery, ToolContext, ToolError, ToolSet
from surefoot._executor import BatchResult
from surefoot.diagnostics import MemoryDiagnostics
from surefoot.executor import Executor, TurnState
from surefoot.outcome import to_record
from surefoot.testing import call

Takeover = Callable[[MemoryLedger, str], None]


def expired(ledger: MemoryLedger, key: str) -> None:
    """Another worker found the claim orphaned: it is ``unknown`` at attempt 2."""
    ledger.expire(key, orphaned=True)


def committed_by_the_other(ledger: MemoryLedger, key: str) -> None:
    """...and that worker settled it as committed, with its own result."""
    expired(ledger, key)
    ledger.finalize(key, 2, "committed", result={"saved": "by the other worker"})


REFUSED = ToolError("quota_exceeded", "Cuota agotada.", Recovery.CHOOSE_ALTERNATIVE)


def failed_by_the_other(ledger: MemoryLedger, key: str) -> None:
    """...and that worker settled it as failed, with its error."""
    expired(ledger, key)
    ledger.finalize(key, 2, "failed", error=to_record(REFUSED))


def run_write(
    takeover: Takeover,
    *,
    returns: object = None,
    reconcile: Callable[[str, dict[str, Any]], Any] | None = None,
) -> tuple[BatchResult, MemoryLedger, TurnState, list[str]]:
    """One ``save`` call whose handler sees its claim taken over by ``takeover``, then
    returns ``returns`` (its own success when None)."""
    ledger = MemoryLedger()
    effects: list[str] = []
    tools = ToolSet()

    @tools.tool(effect="write", reconcile=reconcile)
    def save(ctx: ToolContext, note: str) -> Any:
        """Save a note."""
        assert ctx.key is not None
        effects.append(note)
        takeover(ledger, ctx.key)
        return returns if returns is not None else {"saved": note}

    state = TurnState("c1", 0, lang="en")
    executor = Executor(tools, ledger=ledger)
    batch = asyncio.run(executor.run_batch([call("save", {"note": "hola"})], state))
    return batch, ledger, state, effects


def test_taken_over_and_undecided_is_outcome_unknown_and_stops_the_turn() -> None:
    """The handler's success cannot land (attempt 1 is fenced); nobody can say whether the
    effect happened, so the call is ``outcome_unknown`` and the turn stops."""
    batch, ledger, state, effects = run_write(expired)
    (record,) = batch.records
    assert isinstance(record.outcome, ToolError)
    assert (record.outcome.code, record.outcome.recovery) == ("outcome_unknown", Recovery.STOP_TURN)
    assert state.stopped
    assert effects == ["hola"]
    (entry,) = ledger.entries()
    assert (entry.state, entry.attempt) == ("unknown", 2)


def test_taken_over_and_committed_elsewhere_reports_the_ledgers_result() -> None:
    """The other worker committed it: the call's result is the ledger's, not the handler's."""
    batch, ledger, state, _ = run_write(committed_by_the_other)
    (record,) = batch.records
    assert record.outcome == Ok({"saved": "by the other worker"})
    assert not state.stopped
    (entry,) = ledger.entries()
    assert (entry.state, entry.attempt) == ("committed", 2)


def test_taken_over_and_failed_elsewhere_reports_the_ledgers_error() -> None:
    """The other worker recorded a failure: that error is the call's outcome."""
    batch, _, _, _ = run_write(failed_by_the_other)
    (record,) = batch.records
    assert record.outcome == REFUSED


def test_a_handlers_own_error_is_fenced_too() -> None:
    """A handler that returns a ToolError after the takeover cannot record it either; the
    ledger (here: undecided) decides."""
    batch, ledger, _, _ = run_write(expired, returns=REFUSED)
    (record,) = batch.records
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "outcome_unknown"
    (entry,) = ledger.entries()
    assert entry.state == "unknown"


@pytest.mark.parametrize(
    ("verdict", "state", "code"),
    [
        (Ok({"saved": "found"}), "committed", None),
        ("absent", "failed", "not_applied"),
        (None, "unknown", "outcome_unknown"),
    ],
    ids=["found", "absent", "undecided"],
)
def test_taken_over_writes_are_settled_by_the_tools_own_check(
    verdict: Any, state: str, code: str | None
) -> None:
    """With a reconcile hook the fenced write is decided by it: found (its result), provably
    absent (``not_applied``), or undecided (``outcome_unknown``)."""
    seen: list[tuple[str, dict[str, Any]]] = []

    def check(key: str, arguments: dict[str, Any]) -> Any:
        seen.append((key, arguments))
        return verdict

    batch, ledger, _, _ = run_write(expired, reconcile=check)
    (record,) = batch.records
    (entry,) = ledger.entries()
    assert seen == [(entry.key, {"note": "hola"})]
    assert entry.state == state
    if code is None:
        assert record.outcome == verdict
    else:
        assert isinstance(record.outcome, ToolError)
        assert record.outcome.code == code


def test_a_write_marked_unverifiable_that_fails_is_unknown_whatever_the_ledger_says() -> None:
    """``mark_unverifiable`` then an exception: ``outcome_unknown``, recorded so, even though
    the ledger alone would have called it not applied."""
    ledger = MemoryLedger()
    diagnostics = MemoryDiagnostics()
    tools = ToolSet()

    @tools.tool(effect="write", reconcile=lambda key, arguments: "absent")
    def send(ctx: ToolContext, to: str) -> dict[str, Any]:
        """Send a message."""
        ctx.mark_unverifiable()
        msg = "the connection dropped after the request went out"
        raise ConnectionError(msg)

    executor = Executor(tools, ledger=ledger, diagnostics=diagnostics)
    state = TurnState("c1", 0, lang="en")
    batch = asyncio.run(executor.run_batch([call("send", {"to": "ana"})], state))
    (record,) = batch.records
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "outcome_unknown"
    (entry,) = ledger.entries()
    assert entry.state == "unknown"
    assert [d.exception_type for d in diagnostics.list()] == ["ConnectionError"]


def test_only_one_conversations_writes_can_be_orphaned() -> None:
    executor = Executor(ToolSet(), ledger=MemoryLedger())
    with pytest.raises(ValueError, match="only one conversation"):
        executor.reconcile(orphaned=True)


class Summary(BaseModel):
    """What a read may return as a pydantic model."""

    total: int
    names: list[str]


def test_what_a_read_returns_is_checked_before_it_is_an_outcome() -> None:
    """A pydantic model becomes its JSON object; an ``Ok`` holding a NaN, or a set, is no
    result: the model gets ``unavailable`` and the diagnostics say why."""
    diagnostics = MemoryDiagnostics()
    tools = ToolSet()
    values: dict[str, object] = {
        "model": Summary(total=2, names=["a", "b"]),
        "nan": Ok({"total": float("nan")}),
        "set": {1, 2},
    }

    @tools.tool(effect="read")
    def summary(kind: str) -> Any:
        """Summarise."""
        return values[kind]

    executor = Executor(tools, diagnostics=diagnostics)
    calls = [call("summary", {"kind": k}) for k in values]
    batch = asyncio.run(executor.run_batch(calls, TurnState("c1", 0, lang="en")))
    model, nan, a_set = (r.outcome for r in batch.records)
    assert model == Ok({"total": 2, "names": ["a", "b"]})
    assert isinstance(nan, ToolError)
    assert isinstance(a_set, ToolError)
    assert (nan.code, a_set.code) == ("unavailable", "unavailable")
    assert [d.exception_type for d in diagnostics.list()] == ["ValueError", "ValueError"]
    assert "holds a set" in diagnostics.list()[1].message
