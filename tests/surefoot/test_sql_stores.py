"""The durable stores (``SqlLedger``, ``SqlJournal``, ``SqlDiagnostics``), one suite over
SQLite and PostgreSQL: ledger states and fencing, a key bound to its fingerprint, every
message kind surviving a round trip, decisions recorded once, diagnostics kept apart."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from surefoot import (
    Agent,
    Approval,
    Detail,
    Diagnostic,
    ErrorCode,
    MemoryLedger,
    Ok,
    ReconcileResult,
    Recovery,
    SqlDiagnostics,
    SqlJournal,
    SqlLedger,
    StoreError,
    Tool,
    ToolContext,
    ToolError,
    ToolSet,
    open_database,
)
from surefoot._journal import approval_id
from surefoot.executor import Executor, TurnState
from surefoot.ledger import FencedError
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
    message_to_json,
)
from surefoot.sql import Database
from surefoot.testing import ScriptedModel, call, turn, write_transcript

EFFECTS = ["CREATE TABLE t_effects (key TEXT NOT NULL, note TEXT NOT NULL)"]


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    """The database under test, with a small effects table beside the ledger."""
    database = open_database(db_url)
    database.migrate("tests", EFFECTS)
    yield database
    database.close()


@pytest.fixture
def ledger(db: Database) -> SqlLedger:
    """A ledger on the database under test."""
    return SqlLedger(db)


def _claim(ledger: SqlLedger, key: str = "k1", *, fp: str = "fp-a", lease: float = 60.0) -> Any:
    return ledger.claim(
        key=key,
        conversation_id="conv",
        tool="write_note",
        fingerprint=fp,
        arguments={"note": fp},
        lease_seconds=lease,
    )


def _effects(db: Database, key: str) -> list[str]:
    return [r[0] for r in db.query("SELECT note FROM t_effects WHERE key = ?", (key,))]


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def _write_with_commit(db: Database, ledger: SqlLedger, key: str, attempt: int) -> None:
    """An effect and its ``commit_in`` in one transaction, as an atomic tool does it."""
    with db.transaction() as tx:
        tx.execute("INSERT INTO t_effects (key, note) VALUES (?, ?)", (key, "late"))
        ledger.commit_in(tx, key, attempt, {"saved": "late"})


# -- claim -------------------------------------------------------------------------------------


def test_claim_of_a_new_key_owns_a_pending_attempt(ledger: SqlLedger) -> None:
    """A first claim inserts ``pending`` at attempt 1 and owns it."""
    claim = _claim(ledger)
    assert claim.owned
    entry = claim.entry
    assert (entry.state, entry.attempt, entry.lease_expired) == ("pending", 1, False)
    assert (entry.conversation_id, entry.tool, entry.fingerprint) == ("conv", "write_note", "fp-a")
    assert entry.arguments == {"note": "fp-a"}
    assert entry.result is None
    assert entry.error is None


def test_second_claim_of_a_key_does_not_own_it(ledger: SqlLedger) -> None:
    """Claiming a key that exists returns what it is, without taking it over."""
    first = _claim(ledger)
    again = _claim(ledger)
    assert not again.owned
    assert again.entry.attempt == first.entry.attempt
    assert again.entry.state == "pending"


def test_a_key_stays_bound_to_its_first_fingerprint(ledger: SqlLedger) -> None:
    """A later claim with other arguments changes nothing: the key keeps its fingerprint."""
    _claim(ledger, fp="fp-a")
    other = _claim(ledger, fp="fp-b")
    assert not other.owned
    assert other.entry.fingerprint == "fp-a"
    assert other.entry.arguments == {"note": "fp-a"}
    stored = ledger.get("k1")
    assert stored is not None
    assert stored.fingerprint == "fp-a"


def test_executor_answers_a_key_bound_to_other_arguments_with_invalid_arguments(
    ledger: SqlLedger,
) -> None:
    """A ledger key claimed with another fingerprint is ``invalid_arguments``; nothing runs."""
    ran: list[str] = []
    tools = ToolSet()

    @tools.tool(effect="write")
    def write_note(note: str) -> dict[str, Any]:
        """Save a note."""
        ran.append(note)
        return {"note": note}

    key, _ = _minted("write_note", {"note": "hello"})
    ledger.claim(
        key=key,
        conversation_id="conv",
        tool="write_note",
        fingerprint="someone-else",
        arguments={"note": "other"},
        lease_seconds=60,
    )
    executor = Executor(tools, ledger=ledger)
    batch = _run(executor.run_batch([call("write_note", {"note": "hello"})], TurnState("conv", 0)))
    outcome = batch.records[0].outcome
    assert isinstance(outcome, ToolError)
    assert outcome.code == ErrorCode.INVALID_ARGUMENTS
    assert outcome.recovery is Recovery.CORRECT_ARGUMENTS
    assert ran == []
    entry = ledger.get(key)
    assert entry is not None
    assert (entry.state, entry.fingerprint) == ("pending", "someone-else")


# -- commit_in ---------------------------------------------------------------------------------


def test_commit_in_lands_together_with_the_effect(db: Database, ledger: SqlLedger) -> None:
    """Effect and ``committed`` commit in one transaction; a new connection sees both."""
    claim = _claim(ledger)
    with db.transaction() as tx:
        tx.execute("INSERT INTO t_effects (key, note) VALUES (?, ?)", ("k1", "done"))
        ledger.commit_in(tx, "k1", claim.entry.attempt, {"saved": "done"})
    other = open_database(db.url)
    try:
        entry = SqlLedger(other).get("k1")
        assert entry is not None
        assert (entry.state, entry.result) == ("committed", {"saved": "done"})
        assert _effects(other, "k1") == ["done"]
    finally:
        other.close()


def test_a_failed_transaction_takes_commit_in_back_with_the_effect(
    db: Database, ledger: SqlLedger
) -> None:
    """If the transaction raises after ``commit_in``, neither the effect nor the record lands."""
    claim = _claim(ledger)

    class BoomError(Exception):
        pass

    def write_then_fail() -> None:
        with db.transaction() as tx:
            tx.execute("INSERT INTO t_effects (key, note) VALUES (?, ?)", ("k1", "done"))
            ledger.commit_in(tx, "k1", claim.entry.attempt, {"saved": "done"})
            raise BoomError

    with pytest.raises(BoomError):
        write_then_fail()
    entry = ledger.get("k1")
    assert entry is not None
    assert entry.state == "pending"
    assert _effects(db, "k1") == []


def test_commit_in_with_a_stale_attempt_is_fenced_and_rolls_back(
    db: Database, ledger: SqlLedger
) -> None:
    """``commit_in`` for an attempt the row no longer holds raises; the effect is undone."""
    _claim(ledger)
    with pytest.raises(FencedError):
        _write_with_commit(db, ledger, "k1", 2)
    assert _effects(db, "k1") == []
    entry = ledger.get("k1")
    assert entry is not None
    assert entry.state == "pending"


def test_commit_in_on_a_settled_row_is_fenced(db: Database, ledger: SqlLedger) -> None:
    """Once a row is settled (here ``failed``), no transaction can commit it."""
    claim = _claim(ledger)
    assert ledger.finalize("k1", claim.entry.attempt, "failed", error={"x": 1})
    with pytest.raises(FencedError):
        _write_with_commit(db, ledger, "k1", claim.entry.attempt)
    assert _effects(db, "k1") == []
    entry = ledger.get("k1")
    assert entry is not None
    assert entry.state == "failed"


def test_commit_in_needs_a_transaction_of_the_ledgers_database(ledger: SqlLedger) -> None:
    """Anything but a ``Tx`` is refused with ``StoreError``."""
    claim = _claim(ledger)
    with pytest.raises(StoreError):
        ledger.commit_in(object(), "k1", claim.entry.attempt, {"saved": 1})


# -- finalize and expire -----------------------------------------------------------------------


@pytest.mark.parametrize("state", ["committed", "failed", "unknown"])
def test_finalize_settles_a_pending_row_once(ledger: SqlLedger, state: Any) -> None:
    """``finalize`` moves pending to a state with its result/error; a second call is refused."""
    claim = _claim(ledger)
    result = {"ok": True} if state == "committed" else None
    error = None if state == "committed" else {"error": state}
    assert ledger.finalize("k1", claim.entry.attempt, state, result=result, error=error)
    entry = ledger.get("k1")
    assert entry is not None
    assert (entry.state, entry.result, entry.error) == (state, result, error)
    if state == "unknown":
        assert ledger.finalize("k1", claim.entry.attempt, "failed", error={"error": "x"})
    else:
        assert not ledger.finalize("k1", claim.entry.attempt, "failed", error={"error": "x"})
        again = ledger.get("k1")
        assert again is not None
        assert again.state == state


def test_finalize_with_another_attempt_is_refused(ledger: SqlLedger) -> None:
    """Only the attempt that was claimed may settle the row."""
    _claim(ledger)
    assert not ledger.finalize("k1", 2, "committed", result={"x": 1})
    assert not ledger.finalize("missing", 1, "committed", result={"x": 1})
    entry = ledger.get("k1")
    assert entry is not None
    assert entry.state == "pending"


def test_expire_waits_for_the_lease(ledger: SqlLedger) -> None:
    """A pending row inside its lease is not expired."""
    _claim(ledger, lease=60)
    entry = ledger.expire("k1")
    assert entry is not None
    assert (entry.state, entry.attempt, entry.lease_expired) == ("pending", 1, False)


def test_expire_after_the_lease_fences_the_old_attempt(db: Database, ledger: SqlLedger) -> None:
    """Past its lease a pending row becomes ``unknown`` at attempt 2; attempt 1 can't land."""
    _claim(ledger, lease=-1)
    seen = ledger.get("k1")
    assert seen is not None
    assert seen.lease_expired
    entry = ledger.expire("k1")
    assert entry is not None
    assert (entry.state, entry.attempt, entry.lease_expired) == ("unknown", 2, False)
    with pytest.raises(FencedError):
        _write_with_commit(db, ledger, "k1", 1)
    assert _effects(db, "k1") == []
    assert not ledger.finalize("k1", 1, "committed", result={"saved": "late"})
    assert ledger.finalize("k1", 2, "failed", error={"error": "not_applied"})
    final = ledger.get("k1")
    assert final is not None
    assert (final.state, final.attempt) == ("failed", 2)


def test_expire_leaves_settled_rows_alone(ledger: SqlLedger) -> None:
    """A committed row is never expired, however old its lease."""
    claim = _claim(ledger, lease=-1)
    assert ledger.finalize("k1", claim.entry.attempt, "committed", result={"x": 1})
    entry = ledger.expire("k1")
    assert entry is not None
    assert (entry.state, entry.attempt, entry.lease_expired) == ("committed", 1, False)
    assert ledger.expire("missing") is None


def test_entries_filter_by_conversation_and_state(ledger: SqlLedger) -> None:
    """``entries`` lists oldest first and filters on conversation and state."""
    for index, conversation in enumerate(["a", "b", "a"]):
        ledger.claim(
            key=f"k{index}",
            conversation_id=conversation,
            tool="t",
            fingerprint=f"f{index}",
            arguments={},
            lease_seconds=60,
        )
    ledger.finalize("k2", 1, "committed", result={})
    assert [e.key for e in ledger.entries()] == ["k0", "k1", "k2"]
    assert [e.key for e in ledger.entries(conversation_id="a")] == ["k0", "k2"]
    assert [e.key for e in ledger.entries(state="pending")] == ["k0", "k1"]
    assert [e.key for e in ledger.entries(conversation_id="a", state="committed")] == ["k2"]


# -- the executor over the SQL ledger -----------------------------------------------------------


def _note_tools(effects: list[str], db: Database, *, reconcile: bool = True) -> ToolSet:
    """An atomic write, and a non-atomic write with (optionally) a reconcile hook."""
    tools = ToolSet()

    def find(key: str, arguments: dict[str, Any]) -> ReconcileResult:
        rows = db.query("SELECT note FROM t_effects WHERE key = ?", (key,))
        return Ok({"note": rows[0][0]}) if rows else "absent"

    @tools.tool(effect="write", atomic=True)
    def save_atomic(ctx: ToolContext, note: str) -> dict[str, Any]:
        """Save a note, atomically with the ledger."""
        effects.append(note)
        with db.transaction() as tx:
            tx.execute("INSERT INTO t_effects (key, note) VALUES (?, ?)", (ctx.key, note))
            ctx.commit_in(tx, {"note": note})
        return {"note": note}

    @tools.tool(effect="write", reconcile=find if reconcile else None)
    def save_plain(ctx: ToolContext, note: str) -> dict[str, Any]:
        """Save a note, then let the executor settle the ledger."""
        effects.append(note)
        db.query("INSERT INTO t_effects (key, note) VALUES (?, ?)", (ctx.key, note))
        return {"note": note}

    return tools


@pytest.mark.parametrize("tool", ["save_atomic", "save_plain"])
def test_a_committed_write_replays_without_running_again(
    db: Database, ledger: SqlLedger, tool: str
) -> None:
    """The same call in the same turn (a resume) returns the recorded result; one effect."""
    effects: list[str] = []
    executor = Executor(_note_tools(effects, db), ledger=ledger)
    first = _run(executor.run_batch([call(tool, {"note": "n"})], TurnState("conv", 0)))
    again = _run(executor.run_batch([call(tool, {"note": "n"})], TurnState("conv", 0)))
    assert first.records[0].outcome == Ok({"note": "n"})
    assert again.records[0].outcome == Ok({"note": "n"})
    assert (first.records[0].executed, again.records[0].executed) == (True, False)
    assert first.records[0].key == again.records[0].key
    assert effects == ["n"]
    assert _effects(db, first.records[0].key or "") == ["n"]
    entry = ledger.get(first.records[0].key or "")
    assert entry is not None
    assert entry.state == "committed"


@pytest.mark.parametrize("tool", ["save_atomic", "save_plain"])
def test_a_pending_write_inside_its_lease_is_held_back(
    db: Database, ledger: SqlLedger, tool: str
) -> None:
    """A key left pending by a live (or not yet expired) claim is not run again, and is not
    reported Ok: ``in_progress``, and the turn stops."""
    effects: list[str] = []
    tools = _note_tools(effects, db)
    executor = Executor(tools, ledger=ledger)
    key, fp = _minted(tool, {"note": "n"})
    ledger.claim(
        key=key,
        conversation_id="conv",
        tool=tool,
        fingerprint=fp,
        arguments={"note": "n"},
        lease_seconds=60,
    )
    batch = _run(executor.run_batch([call(tool, {"note": "n"})], TurnState("conv", 0)))
    outcome = batch.records[0].outcome
    assert isinstance(outcome, ToolError)
    assert (outcome.code, outcome.recovery) == (ErrorCode.IN_PROGRESS, Recovery.STOP_TURN)
    assert effects == []
    entry = ledger.get(key)
    assert entry is not None
    assert entry.state == "pending"


def _probe(note: str) -> dict[str, Any]:
    """Stands in for a write, only to learn the key the executor mints."""
    return {}


def _minted(tool: str, arguments: dict[str, Any]) -> tuple[str, str]:
    """The key and fingerprint the executor mints for this call in turn 0 of ``conv``."""
    probe = ToolSet()
    probe.add(Tool.from_function(_probe, name=tool, effect="write"))
    ledger = MemoryLedger()
    batch = _run(
        Executor(probe, ledger=ledger).run_batch([call(tool, arguments)], TurnState("conv", 0))
    )
    key = batch.records[0].key
    assert key is not None
    entry = ledger.get(key)
    assert entry is not None
    return key, entry.fingerprint


def _orphan(ledger: SqlLedger, tools: ToolSet, tool: str) -> str:
    """A pending claim whose lease already ran out, as a killed worker leaves it."""
    key, fp = _minted(tool, {"note": "n"})
    ledger.claim(
        key=key,
        conversation_id="conv",
        tool=tool,
        fingerprint=fp,
        arguments={"note": "n"},
        lease_seconds=-1,
    )
    return key


@pytest.mark.parametrize(
    ("tool", "effect_landed", "expected"),
    [
        ("save_atomic", False, "failed"),
        ("save_plain", False, "failed"),
        ("save_plain", True, "committed"),
    ],
)
def test_reconcile_settles_an_expired_write_by_ledger_or_hook(
    db: Database, ledger: SqlLedger, tool: str, effect_landed: bool, expected: str
) -> None:
    """``Executor.reconcile``: an atomic write by the ledger, a plain one by its hook."""
    tools = _note_tools([], db)
    key = _orphan(ledger, tools, tool)
    if effect_landed:
        db.query("INSERT INTO t_effects (key, note) VALUES (?, ?)", (key, "n"))
    settled = Executor(tools, ledger=ledger).reconcile(conversation_id="conv")
    assert [(e.key, e.state) for e in settled] == [(key, expected)]
    entry = ledger.get(key)
    assert entry is not None
    assert entry.attempt == 2
    if expected == "committed":
        assert entry.result == {"note": "n"}


def test_reconcile_keeps_an_undecidable_write_unknown(db: Database, ledger: SqlLedger) -> None:
    """A plain write without a hook can't be decided: it stays ``unknown``, never re-run."""
    effects: list[str] = []
    tools = _note_tools(effects, db, reconcile=False)
    key = _orphan(ledger, tools, "save_plain")
    settled = Executor(tools, ledger=ledger).reconcile()
    assert [(e.key, e.state) for e in settled] == [(key, "unknown")]
    assert effects == []


@pytest.mark.parametrize("tool", ["save_atomic", "save_plain"])
def test_an_expired_write_seen_again_is_settled_not_rerun(
    db: Database, ledger: SqlLedger, tool: str
) -> None:
    """Resuming a write whose worker died past its lease settles it; the handler never runs."""
    effects: list[str] = []
    tools = _note_tools(effects, db)
    key = _orphan(ledger, tools, tool)
    batch = _run(
        Executor(tools, ledger=ledger).run_batch([call(tool, {"note": "n"})], TurnState("conv", 0))
    )
    outcome = batch.records[0].outcome
    assert isinstance(outcome, ToolError)
    assert outcome.code == ErrorCode.NOT_APPLIED
    assert effects == []
    entry = ledger.get(key)
    assert entry is not None
    assert entry.state == "failed"


@pytest.mark.parametrize("takeover", ["expire", "reconcile"])
def test_a_success_is_only_reported_when_the_ledger_committed_it(
    db: Database, ledger: SqlLedger, takeover: str
) -> None:
    """A plain write fenced off mid-run (lease expired, taken over) is not reported Ok."""
    tools = ToolSet()
    other = Executor(_note_tools([], db), ledger=ledger)

    def find(key: str, arguments: dict[str, Any]) -> ReconcileResult:
        rows = db.query("SELECT note FROM t_effects WHERE key = ?", (key,))
        return Ok({"note": rows[0][0]}) if rows else "absent"

    @tools.tool(effect="write", reconcile=find)
    def save_plain(ctx: ToolContext, note: str) -> dict[str, Any]:
        """A write that stalls past its lease before its effect (a GC pause, a frozen VM)."""
        assert ctx.key is not None
        time.sleep(0.3)
        if takeover == "expire":
            ledger.expire(ctx.key)
        else:
            other.reconcile(conversation_id="conv")
        db.query("INSERT INTO t_effects (key, note) VALUES (?, ?)", (ctx.key, note))
        return {"note": note}

    executor = Executor(tools, ledger=ledger, lease_seconds=0.05)
    batch = _run(executor.run_batch([call("save_plain", {"note": "n"})], TurnState("conv", 0)))
    record = batch.records[0]
    entry = ledger.get(record.key or "")
    assert entry is not None
    if isinstance(record.outcome, Ok):
        assert entry.state == "committed", f"reported Ok while the ledger says {entry.state}"


# -- the journal ---------------------------------------------------------------------------------

LOOKS_LIKE_AN_ERROR = {
    "kind": "tool_error",
    "version": 1,
    "is_error": True,
    "error": "not_found",
    "message": "Error: is_error true",
    "recovery": "stop_turn",
    "recoverable": False,
}


def _every_kind() -> list[Message]:
    """A transcript with every message and part kind, including look-alikes."""
    bad = ToolCall("call_bad", "write_measurement", None, raw_arguments='{"weight_kg": "76kg"')
    return [
        UserMessage("Guarda mi peso: 77,4 kg — ¿vale? 💪"),
        AssistantMessage(
            parts=(
                ReasoningPart("anthropic", {"type": "thinking", "thinking": "…", "signature": "s"}),
                TextPart("Voy a mirar."),
                ToolCall(
                    "toolu_01",
                    "read_memory",
                    {"key": "nota"},
                    raw_arguments='{"key":"nota"}',
                    provider_details={"openai": {"id": "fc_1", "status": "completed"}},
                ),
                ToolCall("call_0", "save_memory", {"key": "k", "description": "", "value": "v"}),
                bad,
                ToolCall("call_0:dup/ü", "list_memory_keys", {}),
                ToolCall("x" * 90, "read_measurement", {"date": "2020-01-02"}),
            ),
            finish="tool_use",
            provider="anthropic",
            model="claude-test",
            provider_details={"anthropic": {"id": "msg_1", "usage": {"input_tokens": 3}}},
        ),
        ToolResultsMessage(
            (
                ToolResult("toolu_01", "read_memory", Ok(dict(LOOKS_LIKE_AN_ERROR))),
                ToolResult("call_0", "save_memory", Ok({"ok": {"nested": [1, 2.5, None]}})),
                ToolResult(
                    "call_bad",
                    "write_measurement",
                    ToolError(
                        "invalid_arguments",
                        "Los argumentos no son válidos.",
                        Recovery.CORRECT_ARGUMENTS,
                        details=(
                            Detail("weight_kg", "is not a number", "a number"),
                            Detail("$", "bad JSON"),
                        ),
                    ),
                ),
                ToolResult("call_0:dup/ü", "list_memory_keys", Ok({})),
                ToolResult(
                    "x" * 90,
                    "read_measurement",
                    ToolError("outcome_unknown", "No se sabe.", Recovery.STOP_TURN),
                    executed=False,
                ),
            )
        ),
        HarnessMessage("Gymnasia no puede confirmar la acción.", "stop_turn"),
        UserMessage("¿y ahora?", said_on=dt.date(2024, 3, 9)),  # the day it was said
        AssistantMessage((TextPart(""),), finish="pause"),
        AssistantMessage((TextPart("Listo."),), finish="end_turn", provider="openai"),
        HarnessMessage("Límite.", "round_limit"),
    ]


def test_journal_round_trips_every_message_kind(db: Database) -> None:
    """Each message kind reads back equal from a new connection, marks and all."""
    messages = _every_kind()
    journal = SqlJournal(db)
    write_transcript(journal, "c1", messages)
    other = open_database(db.url)
    try:
        loaded = SqlJournal(other).load("c1")
    finally:
        other.close()
    assert loaded == messages
    assert [message_to_json(m) for m in loaded] == [message_to_json(m) for m in messages]
    results = loaded[2]
    assert isinstance(results, ToolResultsMessage)
    assert [r.outcome.is_error for r in results.results] == [False, False, True, False, True]
    assert results.results[0].outcome == Ok(LOOKS_LIKE_AN_ERROR)


def test_journal_keeps_the_mark_in_the_stored_payload(db: Database) -> None:
    """The stored row tags a look-alike success as ``ok``: the mark is data, not guessed."""
    journal = SqlJournal(db)
    outcome = Ok(dict(LOOKS_LIKE_AN_ERROR))
    write_transcript(
        journal, "c1", [ToolResultsMessage((ToolResult("c", "read_memory", outcome),))]
    )
    (payload,) = db.query("SELECT payload FROM sf_messages WHERE conversation_id = ?", ("c1",))
    stored = json.loads(payload[0])
    assert stored["results"][0]["outcome"] == {"ok": LOOKS_LIKE_AN_ERROR}


def test_journal_orders_per_conversation(db: Database) -> None:
    """Messages keep their order per conversation; conversations list most recent first."""
    journal = SqlJournal(db)
    assert not journal.exists("a")
    assert journal.load("a") == []
    write_transcript(journal, "a", [UserMessage("1")])
    write_transcript(journal, "b", [UserMessage("x")])
    write_transcript(journal, "a", [UserMessage("2")])
    assert journal.load("a") == [UserMessage("1"), UserMessage("2")]
    assert journal.load("b") == [UserMessage("x")]
    assert journal.exists("a")
    assert set(journal.conversations()) == {"a", "b"}
    assert journal.conversations()[0] == "a"


def _approval(conversation: str, key: str, call_id: str = "call_0") -> Approval:
    return Approval(
        id=approval_id(key),
        conversation_id=conversation,
        user_turn=0,
        key=key,
        call_id=call_id,
        tool="forget",
        fingerprint="fp",
        arguments={"key": "goal"},
    )


def test_a_decision_is_recorded_once(db: Database) -> None:
    """The first decision on an approval wins; later ones, decisions on approvals nobody asked
    for, and decisions naming another conversation are refused, also after reopening."""
    journal = SqlJournal(db)
    first = journal.request_approval(_approval("c1", "sfk_" + "a" * 40))
    second = journal.request_approval(_approval("c1", "sfk_" + "b" * 40))
    assert journal.request_approval(_approval("c1", "sfk_" + "a" * 40)) == first  # asked once
    assert first.approved is None
    assert not journal.decide("c2", first.id, approved=True)  # not that conversation's
    assert not journal.decide("c1", approval_id("sfk_" + "c" * 40), approved=True)  # never asked
    assert journal.decide("c1", first.id, approved=True)
    assert not journal.decide("c1", first.id, approved=False)
    assert journal.decide("c1", second.id, approved=False)
    other = open_database(db.url)
    try:
        reopened = SqlJournal(other)
        decided = {a.id: a.approved for a in reopened.approvals(conversation_id="c1")}
        assert decided == {first.id: True, second.id: False}
        assert reopened.approvals(decided=False) == []
        assert not reopened.decide("c1", first.id, approved=False)
    finally:
        other.close()


def test_approvals_and_conversations_are_per_user(db: Database) -> None:
    """Another user sees none of a user's conversations or approvals, and cannot decide them."""
    alice, bob = SqlJournal(db, user="alice"), SqlJournal(db, user="bob")
    write_transcript(alice, "c1", [UserMessage("secret")])
    asked = alice.request_approval(_approval("c1", "sfk_" + "d" * 40))
    assert bob.load("c1") == []
    assert not bob.exists("c1")
    assert bob.conversations() == []
    assert bob.approvals() == []
    assert not bob.decide("c1", asked.id, approved=True)
    write_transcript(bob, "c1", [UserMessage("mine")])  # the same id is bob's own conversation
    assert alice.load("c1") == [UserMessage("secret")]
    assert bob.load("c1") == [UserMessage("mine")]
    assert alice.approvals(decided=False) == [asked]


# -- diagnostics -------------------------------------------------------------------------------

SECRET = "sk-test-Z9y8X7w6V5u4"


def test_diagnostics_round_trip_and_filter(db: Database) -> None:
    """Diagnostics read back as recorded, filtered by conversation, in order."""
    sink = SqlDiagnostics(db)
    first = Diagnostic("c1", "call_1", "t", "ValueError", "boom", "Traceback...", 1.5, key="k")
    second = Diagnostic("c2", "call_2", "t", "OSError", "disk", "Traceback...", 2.5)
    sink.record(first)
    sink.record(second)
    assert sink.list() == [first, second]
    assert sink.list(conversation_id="c2") == [second]


def test_a_failing_write_keeps_its_exception_apart_from_the_transcript(db: Database) -> None:
    """The exception's text and traceback go to diagnostics only, never into the journal."""
    tools = ToolSet()

    @tools.tool(effect="write")
    def save_note(note: str) -> dict[str, Any]:
        """Save a note."""
        msg = f"INSERT INTO notes failed at /srv/data/notes.db with key {SECRET}"
        raise OSError(msg)

    model = ScriptedModel([turn(call("save_note", {"note": "n"}, call_id="call_s"))])
    agent = Agent(
        model=model,
        tools=tools,
        lang="en",
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
        diagnostics=SqlDiagnostics(db),
    )
    result = _run(agent.run_turn("save it", conversation_id="c1"))
    assert result.stop_reason == "stop_turn"
    assert result.model_requests == 1
    (diagnostic,) = SqlDiagnostics(db).list(conversation_id="c1")
    assert (diagnostic.call_id, diagnostic.tool, diagnostic.exception_type) == (
        "call_s",
        "save_note",
        "OSError",
    )
    assert SECRET in diagnostic.message
    assert "Traceback" in diagnostic.traceback
    assert diagnostic.key is not None
    assert diagnostic.key.startswith("sfk_")
    payloads = [r[0] for r in db.query("SELECT payload FROM sf_messages")]
    assert payloads
    for payload in payloads:
        assert SECRET not in payload
        assert "/srv/data" not in payload
        assert "INSERT INTO" not in payload
        assert "Traceback" not in payload


# -- the databases themselves --------------------------------------------------------------------


def test_sqlite_runs_wal_with_full_sync(sqlite_url: str) -> None:
    """The SQLite connection really runs ``journal_mode=wal`` and ``synchronous=FULL`` (2)."""
    database = open_database(sqlite_url)
    try:
        assert database.query("PRAGMA journal_mode") == [("wal",)]
        assert database.query("PRAGMA synchronous") == [(2,)]
        assert database.query("PRAGMA busy_timeout") == [(30000,)]
        assert database.query("PRAGMA foreign_keys") == [(1,)]
    finally:
        database.close()
    import sqlite3

    raw = sqlite3.connect(sqlite_url)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # persisted in the file
    finally:
        raw.close()


def test_postgresql_commits_synchronously(pg_url: str) -> None:
    """A PostgreSQL commit waits for the WAL flush (``synchronous_commit`` on, fsync on)."""
    database = open_database(pg_url)
    try:
        assert database.dialect == "postgresql"
        assert database.query("SHOW synchronous_commit") == [("on",)]
        assert database.query("SHOW fsync") == [("on",)]
    finally:
        database.close()


SLOW = {
    "postgresql": "SELECT pg_sleep(0.8)",
    "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) "
    "SELECT count(*) FROM c",
}


def test_two_workers_migrating_at_once_both_succeed(
    db_url: str, request: pytest.FixtureRequest
) -> None:
    """A worker starting while another is mid-migration waits for it instead of failing."""
    dialect = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    script = f"CREATE TABLE t_raced (x INTEGER); {SLOW[dialect]}"
    first, second = open_database(db_url), open_database(db_url)
    errors: list[str] = []

    def migrate(db: Database) -> None:
        try:
            db.migrate("raced", [script])
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(f"{type(exc).__module__}.{type(exc).__name__}")

    try:
        ahead = threading.Thread(target=migrate, args=(first,))
        ahead.start()
        time.sleep(0.3)  # the first migration is now inside its transaction
        migrate(second)
        ahead.join(timeout=60)
        assert errors == []
        assert second.query("SELECT COUNT(*) FROM t_raced") == [(0,)]
    finally:
        first.close()
        second.close()


APPEND_MANY = """
import pathlib, sys, time
from surefoot import ConversationBusyError, SqlJournal, open_database
from surefoot.messages import UserMessage
from surefoot.testing import write_transcript
url, ready, start, me = sys.argv[1:5]
db = open_database(url)
journal = SqlJournal(db)
pathlib.Path(ready).touch()
while not pathlib.Path(start).exists():
    time.sleep(0.001)
busy = 0
for index in range(25):
    while True:
        try:
            write_transcript(journal, "shared", [UserMessage(f"{me}-{index}")])
            break
        except ConversationBusyError:
            busy += 1
            time.sleep(0.001)
db.close()
print(busy)
"""


def test_processes_appending_to_one_conversation_keep_every_message(
    db_url: str, tmp_path: Path
) -> None:
    """Four writers race for one conversation: each append holds it alone (the others are
    told it is busy and wait), nothing is lost, each keeps its order."""
    open_database(db_url).close()
    start = tmp_path / "start"
    ready = [tmp_path / f"ready{i}" for i in range(4)]
    workers = [
        subprocess.Popen([sys.executable, "-c", APPEND_MANY, db_url, str(flag), str(start), str(i)])
        for i, flag in enumerate(ready)
    ]
    deadline = time.monotonic() + 60
    while not all(flag.exists() for flag in ready) and time.monotonic() < deadline:
        time.sleep(0.01)
    start.touch()
    assert [worker.wait(timeout=60) for worker in workers] == [0] * 4
    database = open_database(db_url)
    try:
        texts = [m.text for m in SqlJournal(database).load("shared") if isinstance(m, UserMessage)]
    finally:
        database.close()
    assert len(texts) == 100
    for worker in range(4):
        mine = [t for t in texts if t.startswith(f"{worker}-")]
        assert mine == [f"{worker}-{index}" for index in range(25)]
