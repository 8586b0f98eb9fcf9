"""The executor against every row of the decision table (plus idempotency keys and the
batch rules). Handlers record their calls, so each test proves whether a handler ran."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Sequence
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from surefoot import (
    CalendarDate,
    Detail,
    Ledger,
    MemoryLedger,
    Ok,
    Recovery,
    Redactor,
    SqlLedger,
    StoreError,
    Tool,
    ToolContext,
    ToolError,
    ToolSet,
    open_database,
)
from surefoot.diagnostics import MemoryDiagnostics
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall
from surefoot.outcome import to_wire_text
from surefoot.testing import call

LEAKY = "disk I/O error at /srv/data/users.db while running SELECT * FROM secrets"


def _state(conversation: str = "conv-1", user_turn: int = 0) -> TurnState:
    return TurnState(conversation, user_turn, lang="en")


def _run(executor: Executor, calls: Sequence[ToolCall], state: TurnState | None = None) -> Any:
    return asyncio.run(executor.run_batch(list(calls), state or _state()))


def _error(outcome: object) -> ToolError:
    assert isinstance(outcome, ToolError), outcome
    return outcome


class Calls:
    """A log of handler calls, by tool name."""

    def __init__(self) -> None:
        self.log: list[tuple[str, dict[str, Any]]] = []

    def record(self, name: str, **arguments: Any) -> None:
        self.log.append((name, arguments))

    def count(self, name: str) -> int:
        return sum(1 for n, _ in self.log if n == name)


def _tools(calls: Calls) -> ToolSet:
    """A small registry: a read, a failing read, a domain-error read, writes that succeed/fail."""
    tools = ToolSet()

    @tools.tool
    def lookup(
        date: CalendarDate,
        weight_kg: float | None = None,
        meal: Literal["breakfast", "lunch"] = "lunch",
    ) -> dict[str, Any]:
        """Look something up."""
        calls.record("lookup", date=date, weight_kg=weight_kg, meal=meal)
        return {"date": date.isoformat()}

    @tools.tool
    def missing(date: CalendarDate) -> dict[str, Any] | ToolError:
        """Always a domain not_found."""
        calls.record("missing", date=date)
        return ToolError("not_found", f"No record for {date}.", Recovery.CHOOSE_ALTERNATIVE)

    @tools.tool
    def broken_read(date: CalendarDate) -> dict[str, Any]:
        """A read whose storage raises."""
        calls.record("broken_read", date=date)
        raise RuntimeError(LEAKY)

    @tools.tool
    def halt() -> dict[str, Any] | ToolError:
        """A domain error that stops the turn."""
        calls.record("halt")
        return ToolError("quota_exhausted", "The quota is exhausted.", Recovery.STOP_TURN)

    @tools.tool(effect="write")
    def save(value: str) -> dict[str, Any]:
        """A write that succeeds."""
        calls.record("save", value=value)
        return {"saved": value}

    @tools.tool(effect="write")
    def broken_write(value: str) -> dict[str, Any]:
        """A write that raises, its effect not determinable."""
        calls.record("broken_write", value=value)
        raise OSError(LEAKY)

    return tools


# -- row 1: unknown tool ---------------------------------------------------------------------


def test_unknown_tool_is_correct_arguments_and_the_turn_continues() -> None:
    """An undeclared name → unknown_tool / correct_arguments; later calls of the batch still run."""
    calls = Calls()
    state = _state()
    batch = _run(
        Executor(_tools(calls)),
        [call("delete_everything", {"x": 1}), call("lookup", {"date": "2020-01-01"})],
        state,
    )
    error = _error(batch.records[0].outcome)
    assert (error.code, error.recovery) == ("unknown_tool", Recovery.CORRECT_ARGUMENTS)
    assert batch.records[0].executed is False
    assert "lookup" in error.message  # it tells the model what does exist
    assert state.stopped is False
    assert isinstance(batch.records[1].outcome, Ok)
    assert calls.count("lookup") == 1


def test_unknown_tool_name_is_trimmed_in_the_message() -> None:
    """A huge or unprintable model-supplied name cannot flood the message."""
    batch = _run(Executor(_tools(Calls())), [call("x" * 5000 + "\x00\x1b[31m", {})])
    error = _error(batch.records[0].outcome)
    assert "x" * 65 not in error.message
    assert "\x00" not in error.message
    assert "\x1b" not in error.message


# -- row 2: invalid arguments ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"date": "2020-01-01", "weight_kg": "76"}, "weight_kg"),
        ({"date": "2020-01-01", "weight_kg": "76kg"}, "weight_kg"),
        ({}, "date"),
        ({"date": "2020-01-01", "meal": "brunch"}, "meal"),
        ({"date": "02/01/2020"}, "date"),
        ({"date": "2020-02-30"}, "date"),
        ({"date": "2020-01-01", "surprise": True}, "surprise"),
    ],
    ids=["type", "type-with-unit", "required", "enum", "format", "not-a-real-day", "extra"],
)
def test_invalid_arguments_never_reach_the_handler(arguments: dict[str, Any], field: str) -> None:
    """Schema failures → invalid_arguments / correct_arguments with details; handler not run."""
    calls = Calls()
    state = _state()
    batch = _run(Executor(_tools(calls)), [call("lookup", arguments)], state)
    (record,) = batch.records
    error = _error(record.outcome)
    assert (error.code, error.recovery) == ("invalid_arguments", Recovery.CORRECT_ARGUMENTS)
    assert field in [d.field for d in error.details]
    assert all(isinstance(d, Detail) and d.expected for d in error.details)
    assert record.executed is False
    assert calls.log == []
    assert state.stopped is False


def test_unparseable_arguments_are_invalid_arguments() -> None:
    """Arguments that did not parse into an object → invalid_arguments naming ``$``; no run."""
    calls = Calls()
    batch = _run(Executor(_tools(calls)), [call("lookup", raw='{"date": "2020-01-')])
    error = _error(batch.records[0].outcome)
    assert error.code == "invalid_arguments"
    assert [d.field for d in error.details] == ["$"]
    assert calls.log == []


# -- row 3: domain error ---------------------------------------------------------------------


def test_domain_error_passes_through_and_the_turn_continues() -> None:
    """A handler's own ToolError reaches the model unchanged; the next call still runs."""
    calls = Calls()
    state = _state()
    batch = _run(
        Executor(_tools(calls)),
        [call("missing", {"date": "2020-01-02"}), call("lookup", {"date": "2020-01-01"})],
        state,
    )
    error = _error(batch.records[0].outcome)
    assert error == ToolError("not_found", "No record for 2020-01-02.", Recovery.CHOOSE_ALTERNATIVE)
    assert batch.records[0].executed is True
    assert calls.count("missing") == 1
    assert isinstance(batch.records[1].outcome, Ok)
    assert state.stopped is False


def test_domain_stop_turn_stops() -> None:
    """A domain error with stop_turn stops the turn: later calls get not_executed."""
    calls = Calls()
    state = _state()
    batch = _run(Executor(_tools(calls)), [call("halt"), call("save", {"value": "a"})], state)
    assert _error(batch.records[0].outcome).code == "quota_exhausted"
    assert state.stopped is True
    assert _error(batch.records[1].outcome).code == "not_executed"
    assert calls.count("save") == 0


# -- row 4: read raises ----------------------------------------------------------------------


def test_read_that_raises_is_unavailable_and_the_turn_continues() -> None:
    """A read handler's exception → unavailable / choose_alternative; the batch goes on."""
    calls = Calls()
    state = _state()
    batch = _run(
        Executor(_tools(calls)),
        [call("broken_read", {"date": "2020-01-01"}), call("lookup", {"date": "2020-01-01"})],
        state,
    )
    error = _error(batch.records[0].outcome)
    assert (error.code, error.recovery) == ("unavailable", Recovery.CHOOSE_ALTERNATIVE)
    assert error.recoverable is True
    assert batch.records[0].executed is True
    assert calls.count("broken_read") == 1
    assert state.stopped is False
    assert isinstance(batch.records[1].outcome, Ok)


def test_handler_returning_a_non_json_value_is_a_failure_not_a_success() -> None:
    """A read handler returning a set (not a JSON value) is never presented as success."""
    tools = ToolSet()

    @tools.tool
    def bad() -> Any:
        """Returns a set."""
        return {1, 2}

    error = _error(_run(Executor(tools), [call("bad")]).records[0].outcome)
    assert error.code == "unavailable"


class Reading(BaseModel):
    """What a handler may return instead of a dict."""

    date: CalendarDate
    weight_kg: float


def test_handler_returning_a_pydantic_model_is_its_json_data() -> None:
    """A handler may return a pydantic model: the outcome is its JSON form (dates as text)."""
    tools = ToolSet()

    @tools.tool
    def model_read() -> Reading:
        """Returns a model."""
        return Reading.model_validate({"date": "2026-03-01", "weight_kg": 81.5})

    outcome = _run(Executor(tools), [call("model_read")]).records[0].outcome
    assert outcome == Ok({"date": "2026-03-01", "weight_kg": 81.5})


# -- row 5: write raises, effect unknown -----------------------------------------------------


def test_write_that_raises_without_proof_is_outcome_unknown_and_stops() -> None:
    """MemoryLedger, no reconcile: a raising write → outcome_unknown / stop_turn, ledger unknown."""
    calls = Calls()
    ledger = MemoryLedger()
    state = _state()
    batch = _run(
        Executor(_tools(calls), ledger=ledger), [call("broken_write", {"value": "a"})], state
    )
    (record,) = batch.records
    error = _error(record.outcome)
    assert (error.code, error.recovery) == ("outcome_unknown", Recovery.STOP_TURN)
    assert error.recoverable is False
    assert record.executed is True
    assert calls.count("broken_write") == 1
    assert state.stopped is True
    assert record.key is not None
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == "unknown"


def test_outcome_unknown_write_is_never_repeated_on_replay() -> None:
    """Replaying the same turn after outcome_unknown does not run the write again."""
    calls = Calls()
    ledger = MemoryLedger()
    executor = Executor(_tools(calls), ledger=ledger)
    _run(executor, [call("broken_write", {"value": "a"})], _state())
    again = _run(executor, [call("broken_write", {"value": "a"})], _state())
    error = _error(again.records[0].outcome)
    assert error.code == "outcome_unknown"
    assert error.recovery is Recovery.STOP_TURN
    assert again.records[0].executed is False
    assert calls.count("broken_write") == 1


# -- rows 6 and 7: atomic writes on the SQL ledger -------------------------------------------


def _atomic_tools(db: Any, calls: Calls, fail: Literal["none", "before", "after"]) -> ToolSet:
    tools = ToolSet()

    @tools.tool(effect="write", atomic=True)
    def put(ctx: ToolContext, k: str, v: str) -> dict[str, Any]:
        """Store one value, atomically with the ledger."""
        calls.record("put", k=k, v=v)
        with db.transaction() as tx:
            tx.execute("INSERT INTO effects (k, v) VALUES (?, ?)", (k, v))
            if fail == "before":
                raise OSError(LEAKY)
            ctx.commit_in(tx, {"k": k, "v": v, "stored": True})
        if fail == "after":
            msg = "connection reset while acknowledging"
            raise ConnectionResetError(msg)
        return {"k": k, "v": v, "stored": True}

    return tools


def _effects(db: Any) -> list[tuple[Any, ...]]:
    return db.query("SELECT k, v FROM effects ORDER BY k")


@pytest.fixture
def effects_db(sqlite_url: str) -> Any:
    """A SQLite database with surefoot's tables and one application table, ``effects``."""
    db = open_database(sqlite_url)
    db.migrate("test", ["CREATE TABLE effects (k TEXT PRIMARY KEY, v TEXT NOT NULL)"])
    yield db
    db.close()


def test_atomic_write_failing_before_commit_is_not_applied(effects_db: Any) -> None:
    """An atomic write raising before ``ctx.commit_in`` → not_applied / stop_turn, no effect."""
    calls = Calls()
    ledger = SqlLedger(effects_db)
    state = _state()
    executor = Executor(_atomic_tools(effects_db, calls, "before"), ledger=ledger)
    (record,) = _run(executor, [call("put", {"k": "a", "v": "1"})], state).records
    error = _error(record.outcome)
    assert (error.code, error.recovery) == ("not_applied", Recovery.STOP_TURN)
    assert state.stopped is True
    assert calls.count("put") == 1
    assert _effects(effects_db) == []
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == "failed"


class _LandsLate(SqlLedger):
    """The handler's transaction lands just as the write is about to be recorded as failed:
    a COMMIT the server carried out after the caller had given up waiting for its answer."""

    def finalize(self, key: str, attempt: int, state: Any, **given: Any) -> bool:
        if state == "failed":
            landed = {"k": "a", "v": "1", "stored": True}
            super().finalize(key, attempt, "committed", result=landed)
        return super().finalize(key, attempt, state, **given)


def test_atomic_write_that_lands_while_it_is_settled_is_the_landed_success(
    effects_db: Any,
) -> None:
    """Never "not applied" for a write the ledger says landed: when the settlement's own
    record of the failure finds the entry settled already, the ledger's record is the outcome."""
    calls = Calls()
    ledger = _LandsLate(effects_db)
    executor = Executor(_atomic_tools(effects_db, calls, "before"), ledger=ledger)
    (record,) = _run(executor, [call("put", {"k": "a", "v": "1"})]).records
    assert record.outcome == Ok({"k": "a", "v": "1", "stored": True})
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == "committed"


def test_atomic_write_failing_after_commit_is_the_recorded_success(effects_db: Any) -> None:
    """Committed with the ledger, then raised: the outcome is Ok with the recorded result."""
    calls = Calls()
    ledger = SqlLedger(effects_db)
    state = _state()
    executor = Executor(_atomic_tools(effects_db, calls, "after"), ledger=ledger)
    (record,) = _run(executor, [call("put", {"k": "a", "v": "1"})], state).records
    assert record.outcome == Ok({"k": "a", "v": "1", "stored": True})
    assert record.executed is True
    assert state.stopped is False
    assert _effects(effects_db) == [("a", "1")]
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == "committed"
    assert calls.count("put") == 1


def test_atomic_write_success_is_committed_once(effects_db: Any) -> None:
    """A clean atomic write commits its effect and its ledger record; replay does not redo it."""
    calls = Calls()
    ledger = SqlLedger(effects_db)
    executor = Executor(_atomic_tools(effects_db, calls, "none"), ledger=ledger)
    (first,) = _run(executor, [call("put", {"k": "a", "v": "1"})]).records
    (replay,) = _run(executor, [call("put", {"k": "a", "v": "1"})]).records
    assert first.outcome == replay.outcome == Ok({"k": "a", "v": "1", "stored": True})
    assert replay.executed is False
    assert calls.count("put") == 1
    assert _effects(effects_db) == [("a", "1")]


def test_atomic_write_whose_transaction_rolled_back_is_never_ok(effects_db: Any) -> None:
    """The handler calls ``ctx.commit_in``, its transaction then fails and rolls back, and it
    catches that and returns its data anyway: the outcome is what the ledger says (not
    applied), never Ok, and the diagnostics say why."""
    diagnostics = MemoryDiagnostics()
    ledger = SqlLedger(effects_db)
    tools = ToolSet()

    @tools.tool(effect="write", atomic=True)
    def put_once(ctx: ToolContext, k: str, v: str) -> dict[str, Any]:
        """Store one value, atomically with the ledger."""
        try:
            with effects_db.transaction() as tx:
                ctx.commit_in(tx, {"k": k, "stored": True})
                tx.execute("INSERT INTO effects (k, v) VALUES (?, ?)", (k, v))
        except StoreError:  # the key is taken: the handler believes it is "already there"
            pass
        return {"k": k, "stored": True}

    effects_db.query("INSERT INTO effects (k, v) VALUES ('a', 'old')")
    state = _state()
    executor = Executor(tools, ledger=ledger, diagnostics=diagnostics)
    (record,) = _run(executor, [call("put_once", {"k": "a", "v": "1"})], state).records
    error = _error(record.outcome)
    assert (error.code, error.recovery) == ("not_applied", Recovery.STOP_TURN)
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == "failed"
    assert _effects(effects_db) == [("a", "old")]
    assert "did not commit" in diagnostics.list()[-1].message


@pytest.fixture
def deferred_db(db_url: str) -> Any:
    """SQLite or PostgreSQL with a table whose foreign key is checked only at ``COMMIT``."""
    db = open_database(db_url)
    db.migrate(
        "test",
        [
            (
                "CREATE TABLE owners (k TEXT PRIMARY KEY);"
                "CREATE TABLE owned (k TEXT PRIMARY KEY, owner TEXT NOT NULL "
                "REFERENCES owners (k) DEFERRABLE INITIALLY DEFERRED)"
            )
        ],
    )
    yield db
    db.close()


def _owned_tools(db: Any) -> ToolSet:
    tools = ToolSet()

    @tools.tool(effect="write", atomic=True)
    def own(ctx: ToolContext, k: str, owner: str) -> dict[str, Any]:
        """Record what ``owner`` owns, atomically with the ledger."""
        try:
            with db.transaction() as tx:
                tx.execute("INSERT INTO owned (k, owner) VALUES (?, ?)", (k, owner))
                ctx.commit_in(tx, {"k": k, "owner": owner})
        except StoreError:  # the COMMIT refused it; the handler claims success all the same
            pass
        return {"k": k, "owner": owner}

    return tools


def test_atomic_write_whose_commit_fails_is_never_ok(deferred_db: Any) -> None:
    """Everything in the handler's transaction ran, ``commit_in`` included, and only its
    ``COMMIT`` failed (a deferred check): the outcome is not applied, never Ok, whatever the
    handler returns; the ledger's own check of that transaction says it did not commit."""
    ledger = SqlLedger(deferred_db)
    executor = Executor(_owned_tools(deferred_db), ledger=ledger)
    (record,) = _run(executor, [call("own", {"k": "a", "owner": "nobody"})]).records
    error = _error(record.outcome)
    assert (error.code, error.recovery) == ("not_applied", Recovery.STOP_TURN)
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == "failed"
    assert deferred_db.query("SELECT k FROM owned") == []


def test_atomic_write_that_committed_is_not_read_back(deferred_db: Any) -> None:
    """A handler's transaction that committed with ``commit_in`` in it is its success: the
    settlement asks the database nothing more, and the result is the stored one (as a
    replay loads it)."""
    deferred_db.query("INSERT INTO owners (k) VALUES ('ana')")
    ledger = SqlLedger(deferred_db)
    executor = Executor(_owned_tools(deferred_db), ledger=ledger)
    sent = deferred_db.counts.round_trips
    (record,) = _run(executor, [call("own", {"k": "a", "owner": "ana"})]).records
    trips = deferred_db.counts.round_trips - sent
    assert record.outcome == Ok({"k": "a", "owner": "ana"})
    # the claim (1 statement), then BEGIN, the insert, commit_in's update and COMMIT; on
    # SQLite the claim is a transaction that reads its row back (BEGIN, insert, read, COMMIT)
    assert trips == (5 if deferred_db.dialect == "postgresql" else 8)
    (replay,) = _run(executor, [call("own", {"k": "a", "owner": "ana"})]).records
    assert (replay.executed, replay.outcome) == (False, record.outcome)


# -- row 7 via reconcile ---------------------------------------------------------------------


def _reconciled_tools(calls: Calls, verdict: object) -> ToolSet:
    tools = ToolSet()

    def reconcile(key: str, arguments: dict[str, Any]) -> Any:
        calls.record("reconcile", key=key, arguments=arguments)
        if isinstance(verdict, BaseException):
            raise verdict
        return verdict

    @tools.tool(effect="write", reconcile=reconcile)
    def send(to: str) -> dict[str, Any]:
        """Send something through an outside service."""
        calls.record("send", to=to)
        raise TimeoutError(LEAKY)

    return tools


@pytest.mark.parametrize(
    ("verdict", "code", "state"),
    [
        (Ok({"sent": True, "id": 7}), None, "committed"),
        ("absent", "not_applied", "failed"),
        (None, "outcome_unknown", "unknown"),
        (RuntimeError("the checker is down too"), "outcome_unknown", "unknown"),
    ],
    ids=["reconciled-ok", "reconciled-absent", "undecided", "reconcile-raises"],
)
def test_reconcile_hook_decides_a_failed_write(
    verdict: object, code: str | None, state: str
) -> None:
    """After a raising write: hook Ok → success, "absent" → not_applied, None/raise → unknown."""
    calls = Calls()
    ledger = MemoryLedger()
    turn = _state()
    (record,) = _run(
        Executor(_reconciled_tools(calls, verdict), ledger=ledger),
        [call("send", {"to": "coach"})],
        turn,
    ).records
    assert calls.count("send") == 1
    assert calls.count("reconcile") == 1
    _, seen = calls.log[1]
    assert seen == {"key": record.key, "arguments": {"to": "coach"}}
    if code is None:
        assert record.outcome == verdict
        assert turn.stopped is False
    else:
        error = _error(record.outcome)
        assert (error.code, error.recovery) == (code, Recovery.STOP_TURN)
        assert turn.stopped is True
    entry = ledger.get(record.key)
    assert entry is not None
    assert entry.state == state


# -- row 8: after a stop_turn ----------------------------------------------------------------


def test_calls_after_a_stop_turn_are_not_executed() -> None:
    """Every call after a stop_turn outcome → not_executed / stop_turn, its handler not run."""
    calls = Calls()
    tools = _tools(calls)

    @tools.tool
    async def async_lookup(date: CalendarDate) -> dict[str, Any]:
        """An async read."""
        calls.record("async_lookup", date=date)
        return {}

    batch = _run(
        Executor(tools),
        [
            call("lookup", {"date": "2020-01-01"}),
            call("broken_write", {"value": "a"}),
            call("lookup", {"date": "2020-01-02"}),
            call("async_lookup", {"date": "2020-01-03"}),
            call("save", {"value": "b"}),
            call("no_such_tool", {}),
        ],
    )
    codes = [r.outcome.code if isinstance(r.outcome, ToolError) else "ok" for r in batch.records]
    assert codes == ["ok", "outcome_unknown"] + ["not_executed"] * 4
    for record in batch.records[2:]:
        assert record.executed is False
        assert _error(record.outcome).recovery is Recovery.STOP_TURN
    assert [n for n, _ in calls.log] == ["lookup", "broken_write"]


def test_every_call_gets_exactly_one_record_in_order() -> None:
    """A batch returns one record per call, in call order, whatever happened to each."""
    calls = [
        call("lookup", {"date": "2020-01-01"}),
        call("nope"),
        call("lookup", {"date": "bad"}),
        call("missing", {"date": "2020-01-01"}),
        call("broken_read", {"date": "2020-01-01"}),
        call("broken_write", {"value": "x"}),
        call("save", {"value": "y"}),
    ]
    batch = _run(Executor(_tools(Calls())), calls)
    assert [r.call.call_id for r in batch.records] == [c.call_id for c in calls]


# -- row 9: the convergence guard ------------------------------------------------------------


def test_identical_failing_call_is_escalated_then_stopped() -> None:
    """Same call failing: 2nd → same code, choose_alternative, not run; 3rd → stop_turn."""
    calls = Calls()
    executor = Executor(_tools(calls))
    state = _state()
    first = _error(
        _run(executor, [call("missing", {"date": "2020-01-02"})], state).records[0].outcome
    )
    second_record = _run(executor, [call("missing", {"date": "2020-01-02"})], state).records[0]
    second = _error(second_record.outcome)
    assert (second.code, second.recovery) == ("not_found", Recovery.CHOOSE_ALTERNATIVE)
    assert second.message != first.message  # it says this exact call already failed
    assert second_record.executed is False
    assert state.stopped is False
    third_record = _run(executor, [call("missing", {"date": "2020-01-02"})], state).records[0]
    third = _error(third_record.outcome)
    assert (third.code, third.recovery) == ("not_found", Recovery.STOP_TURN)
    assert third_record.executed is False
    assert state.stopped is True
    assert calls.count("missing") == 1


def test_guard_uses_canonical_arguments() -> None:
    """Arguments equal up to key order (or defaults spelled out) count as the same call."""
    calls = Calls()
    executor = Executor(_tools(calls))
    state = _state()
    _run(executor, [call("broken_read", {"date": "2020-01-02"})], state)
    again = _run(executor, [call("broken_read", {"date": "2020-01-02"})], state).records[0]
    assert _error(again.outcome).code == "unavailable"
    assert _error(again.outcome).recovery is Recovery.CHOOSE_ALTERNATIVE
    assert calls.count("broken_read") == 1

    tools = ToolSet()

    @tools.tool
    def two(a: int, b: int, c: int = 0) -> dict[str, Any] | ToolError:
        """Two arguments."""
        calls.record("two", a=a, b=b)
        return ToolError("conflict", "Conflict.", Recovery.CHOOSE_ALTERNATIVE)

    executor = Executor(tools)
    _run(executor, [call("two", {"a": 1, "b": 2})], state)
    reordered = _run(executor, [call("two", {"b": 2, "a": 1, "c": 0})], state).records[0]
    assert reordered.executed is False
    assert calls.count("two") == 1


def test_guard_covers_invalid_arguments_too() -> None:
    """Repeating the same invalid call escalates: choose_alternative, then stop_turn."""
    executor = Executor(_tools(Calls()))
    state = _state()
    bad = {"date": "02/01/2020"}
    recoveries = [
        _error(_run(executor, [call("lookup", bad)], state).records[0].outcome).recovery
        for _ in range(3)
    ]
    assert recoveries == [
        Recovery.CORRECT_ARGUMENTS,
        Recovery.CHOOSE_ALTERNATIVE,
        Recovery.STOP_TURN,
    ]


def test_guard_leaves_different_calls_and_new_turns_alone() -> None:
    """Other arguments run normally; in the next user turn the same call runs again."""
    calls = Calls()
    executor = Executor(_tools(calls))
    state = _state()
    _run(executor, [call("missing", {"date": "2020-01-02"})], state)
    other = _run(executor, [call("missing", {"date": "2020-01-03"})], state).records[0]
    assert other.executed is True
    next_turn = _run(executor, [call("missing", {"date": "2020-01-02"})], _state(user_turn=1))
    assert next_turn.records[0].executed is True
    assert calls.count("missing") == 3


def test_guard_limit_is_configurable() -> None:
    """``guard_limit=1`` stops at the second identical failure."""
    executor = Executor(_tools(Calls()), guard_limit=1)
    state = _state()
    _run(executor, [call("missing", {"date": "2020-01-02"})], state)
    again = _error(
        _run(executor, [call("missing", {"date": "2020-01-02"})], state).records[0].outcome
    )
    assert again.recovery is Recovery.STOP_TURN


# -- batches: concurrency and barriers -------------------------------------------------------


def test_async_reads_overlap_and_writes_are_barriers() -> None:
    """Consecutive async reads run concurrently; a write waits for them and reads after see it."""
    log: list[str] = []
    written: dict[str, bool] = {"done": False}
    events: dict[str, asyncio.Event] = {}
    tools = ToolSet()

    @tools.tool
    async def meet(me: str, other: str) -> dict[str, Any]:
        """Wait until ``other`` has started: only possible if both run at the same time."""
        log.append(f"start {me}")
        events[me].set()
        await asyncio.wait_for(events[other].wait(), timeout=2)
        log.append(f"end {me}")
        return {"me": me, "saw_write": written["done"]}

    @tools.tool(effect="write")
    def mark() -> dict[str, Any]:
        """A write between the two groups."""
        log.append("write")
        written["done"] = True
        return {"marked": True}

    async def scenario() -> Any:
        events.update({name: asyncio.Event() for name in "abcd"})
        return await Executor(tools).run_batch(
            [
                call("meet", {"me": "a", "other": "b"}),
                call("meet", {"me": "b", "other": "a"}),
                call("mark"),
                call("meet", {"me": "c", "other": "d"}),
                call("meet", {"me": "d", "other": "c"}),
            ],
            _state(),
        )

    batch = asyncio.run(scenario())
    outcomes = [r.outcome for r in batch.records]
    assert all(isinstance(o, Ok) for o in outcomes), outcomes
    assert [o.data.get("saw_write") for o in outcomes if "me" in o.data] == [  # type: ignore[union-attr]
        False,
        False,
        True,
        True,
    ]
    barrier = log.index("write")
    assert set(log[:barrier]) == {"start a", "start b", "end a", "end b"}
    assert set(log[barrier + 1 :]) == {"start c", "start d", "end c", "end d"}
    assert [r.call.arguments for r in batch.records] == [
        {"me": "a", "other": "b"},
        {"me": "b", "other": "a"},
        {},
        {"me": "c", "other": "d"},
        {"me": "d", "other": "c"},
    ]


def test_sync_handlers_run_inline_on_the_loop_thread() -> None:
    """A sync tool runs on the event loop's thread: no worker-thread hop."""
    seen: list[int] = []
    tools = ToolSet()

    @tools.tool
    def where() -> dict[str, Any]:
        """Report the thread."""
        seen.append(threading.get_ident())
        return {}

    async def scenario() -> int:
        await Executor(tools).run_batch([call("where"), call("where")], _state())
        return threading.get_ident()

    loop_thread = asyncio.run(scenario())
    assert seen == [loop_thread, loop_thread]


# -- diagnostics -----------------------------------------------------------------------------


def test_exception_text_goes_to_diagnostics_never_to_the_outcome() -> None:
    """The original exception is kept by call id; the model-visible outcome has none of it."""
    diagnostics = MemoryDiagnostics()
    read = call("broken_read", {"date": "2020-01-01"})
    write = call("broken_write", {"value": "a"})
    executor = Executor(_tools(Calls()), diagnostics=diagnostics)
    first = _run(executor, [read], _state("conv-d"))
    second = _run(executor, [write], _state("conv-d"))
    items = diagnostics.list(conversation_id="conv-d")
    assert [d.call_id for d in items] == [read.call_id, write.call_id]
    assert [d.tool for d in items] == ["broken_read", "broken_write"]
    assert [d.exception_type for d in items] == ["RuntimeError", "OSError"]
    for item in items:
        assert item.message == LEAKY
        assert "Traceback" in item.traceback
        assert LEAKY in item.traceback
    assert items[1].key == second.records[0].key
    assert items[0].key is None
    for record in (*first.records, *second.records):
        wire = to_wire_text(record.outcome)
        for fragment in (LEAKY, "/srv/data", "SELECT", "RuntimeError", "OSError", "Traceback"):
            assert fragment not in wire


def test_redactor_removes_configured_secrets_from_diagnostics(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Configured secrets are replaced by [redacted] in the stored diagnostic and in the log."""
    secret = "sk-live-ABCDEF123456"
    tools = ToolSet()

    @tools.tool
    def leaky() -> dict[str, Any]:
        """Raises with a key in its text."""
        msg = f"401 from upstream with key {secret}"
        raise PermissionError(msg)

    diagnostics = MemoryDiagnostics()
    executor = Executor(tools, diagnostics=diagnostics, redactor=Redactor([secret, None, ""]))
    with caplog.at_level(logging.ERROR, logger="surefoot"):
        _run(executor, [call("leaky")])
    (item,) = diagnostics.list()
    assert secret not in item.message
    assert secret not in item.traceback
    assert "[redacted]" in item.message
    assert "[redacted]" in item.traceback
    assert caplog.records, "the failure is logged"
    assert all(secret not in r.getMessage() for r in caplog.records)


# -- idempotency -----------------------------------------------------------------------------


def test_committed_key_is_replayed_without_running_the_handler() -> None:
    """The same write in the same turn (resume/replay, new call id) returns the recorded result."""
    calls = Calls()
    ledger = MemoryLedger()
    executor = Executor(_tools(calls), ledger=ledger)
    (first,) = _run(executor, [call("save", {"value": "a"})], _state()).records
    (replay,) = _run(executor, [call("save", {"value": "a"})], _state()).records
    assert first.call.call_id != replay.call.call_id
    assert first.key == replay.key
    assert replay.outcome == first.outcome == Ok({"saved": "a"})
    assert replay.executed is False
    assert calls.count("save") == 1
    entry = ledger.get(first.key)
    assert entry is not None
    assert (entry.state, entry.result) == ("committed", {"saved": "a"})


def test_identical_writes_in_one_turn_are_distinct_writes() -> None:
    """Two identical calls in one turn get ordinals 0 and 1: two keys, two runs."""
    calls = Calls()
    batch = _run(
        Executor(_tools(calls)), [call("save", {"value": "a"}), call("save", {"value": "a"})]
    )
    assert batch.records[0].key != batch.records[1].key
    assert calls.count("save") == 2


def test_key_depends_on_conversation_turn_and_arguments() -> None:
    """Another conversation, user turn or argument gives another key (and a real run)."""
    calls = Calls()
    executor = Executor(_tools(calls))
    keys = {
        _run(executor, [call("save", {"value": v})], _state(c, t)).records[0].key
        for c, t, v in [("c1", 0, "a"), ("c2", 0, "a"), ("c1", 1, "a"), ("c1", 0, "b")]
    }
    assert len(keys) == 4
    assert calls.count("save") == 4


def test_same_key_with_other_arguments_is_invalid_arguments() -> None:
    """A key already bound to another fingerprint → invalid_arguments; the handler does not run."""
    calls = Calls()
    probe = _run(Executor(_tools(Calls())), [call("save", {"value": "a"})]).records[0]
    ledger: Ledger = MemoryLedger()
    ledger.claim(
        key=probe.key,
        conversation_id="conv-1",
        tool="save",
        fingerprint="a-different-fingerprint",
        arguments={"value": "something else"},
        lease_seconds=60,
    )
    (record,) = _run(Executor(_tools(calls), ledger=ledger), [call("save", {"value": "a"})]).records
    error = _error(record.outcome)
    assert (error.code, error.recovery) == ("invalid_arguments", Recovery.CORRECT_ARGUMENTS)
    assert record.executed is False
    assert calls.count("save") == 0


def test_reads_are_not_put_in_the_ledger() -> None:
    """Only writes get an idempotency key and a ledger row."""
    ledger = MemoryLedger()
    (record,) = _run(
        Executor(_tools(Calls()), ledger=ledger), [call("lookup", {"date": "2020-01-01"})]
    ).records
    assert record.key is None
    assert ledger.entries() == []


def test_handler_sees_the_write_key_in_its_context() -> None:
    """A write handler's ``ctx.key`` is the harness-minted key of the record; reads get None."""
    seen: list[str | None] = []
    tools = ToolSet()

    @tools.tool(effect="write")
    def w(ctx: ToolContext) -> dict[str, Any]:
        """A write."""
        seen.append(ctx.key)
        return {}

    @tools.tool
    def r(ctx: ToolContext) -> dict[str, Any]:
        """A read."""
        seen.append(ctx.key)
        return {}

    batch = _run(Executor(tools), [call("w"), call("r")])
    assert seen == [batch.records[0].key, None]
    assert seen[0] is not None
    assert seen[0].startswith("sfk_")


# -- confirmation ----------------------------------------------------------------------------


def _confirm_tools(calls: Calls) -> ToolSet:
    tools = _tools(calls)

    @tools.tool(effect="write", confirm=True)
    def forget(key: str) -> dict[str, Any]:
        """Delete a note (a person must confirm)."""
        calls.record("forget", key=key)
        return {"deleted": key}

    return tools


def test_confirm_tool_pauses_the_batch() -> None:
    """A confirm tool without a decision pauses: ``pending`` is that call, its handler not run."""
    calls = Calls()
    batch_calls = [call("lookup", {"date": "2020-01-01"}), call("forget", {"key": "goal"})]
    batch = _run(Executor(_confirm_tools(calls)), batch_calls)
    assert batch.pending is not None
    assert batch.pending.call == batch_calls[1]
    assert batch.pending.arguments == {"key": "goal"}
    assert [r.call for r in batch.records] == batch_calls[:1]
    assert calls.count("forget") == 0


def test_denied_confirmation_is_choose_alternative_and_the_turn_continues() -> None:
    """A refused confirmation → denied / choose_alternative, handler never run, turn goes on."""
    calls = Calls()
    executor = Executor(_confirm_tools(calls))
    state = _state()
    batch_calls = [
        call("lookup", {"date": "2020-01-01"}),
        call("forget", {"key": "goal"}),
        call("lookup", {"date": "2020-01-02"}),
    ]
    paused = asyncio.run(executor.run_batch(batch_calls, state))
    assert paused.pending is not None
    again = _state()  # a resumed batch runs from its start, with the turn's state rebuilt
    again.decisions[paused.pending.key] = False
    resumed = asyncio.run(executor.run_batch(batch_calls, again))
    assert resumed.pending is None
    assert [r.call for r in resumed.records] == batch_calls
    error = _error(resumed.records[1].outcome)
    assert (error.code, error.recovery) == ("denied", Recovery.CHOOSE_ALTERNATIVE)
    assert resumed.records[1].executed is False
    assert again.stopped is False
    assert calls.count("forget") == 0
    assert calls.count("lookup") == 3  # reads before the pause ran again on resume


def test_approved_confirmation_runs_once() -> None:
    """An approved confirm tool runs exactly once."""
    calls = Calls()
    executor = Executor(_confirm_tools(calls))
    forget = call("forget", {"key": "goal"})
    paused = asyncio.run(executor.run_batch([forget], _state()))
    assert paused.pending is not None
    state = _state()
    state.decisions[paused.pending.key] = True
    batch = asyncio.run(executor.run_batch([forget], state))
    assert batch.pending is None
    assert batch.records[0].outcome == Ok({"deleted": "goal"})
    assert calls.count("forget") == 1


def test_invalid_arguments_to_a_confirm_tool_do_not_ask_a_person() -> None:
    """A confirm tool called with bad arguments is refused at once; nobody is asked."""
    batch = _run(Executor(_confirm_tools(Calls())), [call("forget", {"key": 5})])
    assert batch.pending is None
    assert _error(batch.records[0].outcome).code == "invalid_arguments"


# -- messages are localized ------------------------------------------------------------------


def test_harness_messages_are_localized() -> None:
    """Harness-owned codes carry a message in the turn's language: es, pt and en differ."""
    messages = {}
    for lang in ("es", "pt", "en"):
        state = TurnState("c", 0, lang=lang)  # type: ignore[arg-type]
        batch = asyncio.run(Executor(_tools(Calls())).run_batch([call("nope")], state))
        messages[lang] = _error(batch.records[0].outcome).message
    assert len(set(messages.values())) == 3
    assert "herramienta" in messages["es"]
    assert "ferramenta" in messages["pt"]
    assert "tool" in messages["en"]


@pytest.mark.parametrize("effect", ["read", "write"])
def test_an_async_handler_behind_a_plain_decorator_is_awaited(effect: str) -> None:
    """A coroutine function wrapped by a plain (sync) decorator is not seen as async when it
    is declared: what it returns is awaited, so the tool really runs (a write used to be
    reported unknown without ever running, with "coroutine was never awaited")."""
    runs: list[int] = []

    def logged(func: Any) -> Any:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs)

        return wrapper

    @logged
    async def store(n: int) -> dict[str, Any]:
        """Store a number."""
        await asyncio.sleep(0)
        runs.append(n)
        return {"stored": n}

    tools = ToolSet()
    tools.add(Tool.from_function(store, effect=effect))  # type: ignore[arg-type]
    (record,) = _run(Executor(tools), [call("store", {"n": 7})]).records
    assert record.outcome == Ok({"stored": 7})
    assert runs == [7]


@pytest.mark.parametrize("effect", ["read", "write"])
def test_a_stray_cancelled_error_is_the_handlers_failure(effect: str) -> None:
    """A handler that raises ``CancelledError`` while nobody cancelled the turn has failed
    (a read is unavailable, a write's fate is unknown); it used to escape ``run_batch``."""
    tools = ToolSet()

    async def flaky() -> dict[str, Any]:
        """Ask a service that cancels its own request."""
        raise asyncio.CancelledError

    tools.add(Tool.from_function(flaky, effect=effect))  # type: ignore[arg-type]
    (record,) = _run(Executor(tools), [call("flaky")]).records
    expected = "unavailable" if effect == "read" else "outcome_unknown"
    assert _error(record.outcome).code == expected


def test_a_real_cancellation_still_goes_up() -> None:
    """Cancelling the batch's task is not turned into an outcome: it propagates."""
    tools = ToolSet()
    started = asyncio.Event()

    @tools.tool
    async def slow() -> dict[str, Any]:
        """Wait a long time."""
        started.set()
        await asyncio.sleep(60)
        return {}

    async def cancel_it() -> None:
        task = asyncio.create_task(Executor(tools).run_batch([call("slow")], _state()))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_it())
