"""The write and approval contract on the paths a hostile user or a crashing machine takes:
reused call ids, resumes, crash windows, the round limit, concurrent writers, what a handler
returns, slow handlers. One regression test (at least) per path that used to break; each runs
on SQLite and on PostgreSQL where storage matters."""

from __future__ import annotations

import asyncio
import datetime as dt
import math
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from surefoot import (
    Agent,
    ConfigurationError,
    ConversationBusyError,
    MemoryLedger,
    Ok,
    Recovery,
    SqlDiagnostics,
    SqlJournal,
    SqlLedger,
    Tool,
    ToolContext,
    ToolError,
    ToolSet,
    TurnResult,
    open_database,
)
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    Message,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
)
from surefoot.sql import Database
from surefoot.testing import FunctionModel, ScriptedModel, call, turn, write_transcript

sys.path.insert(0, str(Path(__file__).parent))

from notes_app import NotesApp  # the path tests' small app
from strict_wire import wire_problems


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    """A database (SQLite file or PostgreSQL schema), closed after the test."""
    database = open_database(db_url)
    yield database
    database.close()


def _agent(
    db: Database, model: Any, *, user: str = "default", **options: Any
) -> tuple[Agent, NotesApp]:
    app = NotesApp(db, user=user)
    agent = Agent(
        model=model,
        tools=app.tools(),
        lang="en",
        ledger=SqlLedger(db, user=user),
        journal=SqlJournal(db, user=user),
        diagnostics=SqlDiagnostics(db, user=user),
        **options,
    )
    return agent, app


def _run(coroutine: Any) -> TurnResult:
    result: TurnResult = asyncio.run(coroutine)
    return result


def _answered_once(messages: Sequence[Message]) -> None:
    """Every call has exactly one result, in order, right after its response."""
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            if index + 1 == len(messages):
                continue  # the last response may wait for a decision
            answer = messages[index + 1]
            assert isinstance(answer, ToolResultsMessage), answer
            assert [r.call_id for r in answer.results] == [c.call_id for c in message.tool_calls]
        if isinstance(message, ToolResultsMessage):
            assert isinstance(messages[index - 1], AssistantMessage)


# -- 1. a reused call id never inherits a decision -------------------------------------------


@pytest.mark.parametrize("approved", [True, False])
def test_a_reused_call_id_does_not_inherit_a_decision(db: Database, approved: bool) -> None:
    """Turn 1 deletes "alpha" as call_0 (approved, or denied); turn 2 deletes "beta", also
    call_0: it is not run (nor refused) on turn 1's decision — a person is asked again."""
    model = ScriptedModel(
        [
            turn(call("delete_note", {"key": "alpha"}, call_id="call_0")),
            turn("done"),
            turn(call("delete_note", {"key": "beta"}, call_id="call_0")),
        ]
    )
    agent, app = _agent(db, model)
    with db.transaction() as tx:
        for key in ("alpha", "beta"):
            tx.execute(
                "INSERT INTO t_notes (user_id, key, value) VALUES ('default', ?, 'v')", (key,)
            )
    first = _run(agent.run_turn("delete alpha", conversation_id="c1"))
    assert first.pending_confirmation is not None
    assert agent.decide("c1", first.pending_confirmation.id, approved=approved)
    assert _run(agent.resume("c1")).stop_reason == "completed"
    second = _run(agent.run_turn("delete beta", conversation_id="c1"))
    assert second.stop_reason == "awaiting_confirmation"
    assert second.pending_confirmation is not None
    assert second.pending_confirmation.arguments == {"key": "beta"}
    assert second.pending_confirmation.id != first.pending_confirmation.id
    assert second.calls == ()  # neither run nor refused
    assert "beta" in app.notes()
    assert ("alpha" in app.notes()) is (not approved)
    assert app.runs["delete_note"] == (1 if approved else 0)
    assert not agent.decide("c1", first.pending_confirmation.id, approved=True)  # stale id


def test_identical_confirm_calls_in_one_turn_each_need_their_own_decision(db: Database) -> None:
    """Two identical deletes in one response (both call_0): approving the first does not
    approve the second; they are two calls with two ids."""
    model = ScriptedModel(
        [
            turn(
                call("add_item", {"name": "x"}, call_id="call_0"),
                call("delete_note", {"key": "alpha"}, call_id="call_0"),
                call("delete_note", {"key": "alpha"}, call_id="call_0"),
            ),
            turn("done"),
        ]
    )
    agent, app = _agent(db, model)
    with db.transaction() as tx:
        tx.execute("INSERT INTO t_notes (user_id, key, value) VALUES ('default', 'alpha', 'v')")
    first = _run(agent.run_turn("go", conversation_id="c1"))
    assert first.pending_confirmation is not None
    assert agent.decide("c1", first.pending_confirmation.id, approved=True)
    second = _run(agent.resume("c1"))
    assert second.pending_confirmation is not None
    assert second.pending_confirmation.id != first.pending_confirmation.id
    assert app.runs["delete_note"] == 1
    assert agent.decide("c1", second.pending_confirmation.id, approved=True)
    done = _run(agent.resume("c1"))
    assert done.stop_reason == "completed"
    assert [r.outcome for r in done.calls][1:] == [Ok({"deleted": "alpha"}), done.calls[2].outcome]
    assert isinstance(done.calls[2].outcome, ToolError)  # the note was already gone
    assert app.items() == ["x"]  # the add before the pauses ran once, replayed twice
    assert app.runs["add_item"] == 1


# -- 2. a new write is never reported Ok without running ----------------------------------------


def test_a_repeated_write_after_a_resume_runs_again(db: Database) -> None:
    """save(goal) → delete(goal) (approved, the turn resumes) → save(goal): the second save
    is a new call of the turn, so it runs and the note exists (it used to come back Ok from
    the first save's ledger row, not run, and the note stayed deleted)."""
    model = ScriptedModel(
        [
            turn(call("save_note", {"key": "goal", "value": "run 5k"})),
            turn(call("delete_note", {"key": "goal"})),
            turn(call("save_note", {"key": "goal", "value": "run 5k"})),
            turn("saved again"),
        ]
    )
    agent, app = _agent(db, model)
    paused = _run(agent.run_turn("go", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    assert agent.decide("c1", paused.pending_confirmation.id, approved=True)
    done = _run(agent.resume("c1"))
    assert done.stop_reason == "completed"
    last = done.calls[-1]
    assert last.executed is True
    assert app.runs["save_note"] == 2
    assert app.notes() == {"goal": "run 5k"}
    keys = [e.key for e in agent.writes(conversation_id="c1")]
    assert len(keys) == len(set(keys)) == 3


CRASH_SECOND_ADD = """
import asyncio, os, signal, sys
sys.path.insert(0, sys.argv[2])
from notes_app import NotesApp
from surefoot import Agent, SqlJournal, SqlLedger, open_database
from surefoot.testing import ScriptedModel, call, turn

db = open_database(sys.argv[1])
seen = []

def die(point, tool):
    if tool == "add_item" and point == "before_commit":
        seen.append(tool)
        if len(seen) == 2:
            os.kill(os.getpid(), signal.SIGKILL)  # the second add: effect made, not committed

app = NotesApp(db, on=die)
model = ScriptedModel([turn(call("add_item", {"name": "x"}), call("add_item", {"name": "x"}))])
ledger, journal = SqlLedger(db), SqlJournal(db)
agent = Agent(model=model, tools=app.tools(), lang="en", ledger=ledger, journal=journal)
asyncio.run(agent.run_turn("add x twice", conversation_id="c1"))
"""


def test_a_crash_during_the_second_identical_write_is_never_reported_ok(
    db: Database, db_url: str
) -> None:
    """Two identical add_item calls; the process dies inside the second. Resume replays the
    first (Ok, one item), and the second is not Ok: its dead process's claim is settled as
    not applied (it used to be Ok from the first one's row, with a pending row left behind)."""
    done = subprocess.run(
        [sys.executable, "-c", CRASH_SECOND_ADD, db_url, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    agent, app = _agent(db, ScriptedModel([turn("one added")]))
    assert [e.state for e in agent.writes()] == ["committed", "pending"]
    result = _run(agent.resume("c1"))
    first, second = result.calls
    assert first.outcome == Ok({"added": "x", "items": 1})
    assert first.executed is False
    assert isinstance(second.outcome, ToolError)
    assert second.outcome.code == "not_applied"
    assert result.stop_reason == "stop_turn"
    assert result.model_requests == 0
    assert app.items() == ["x"]
    assert [e.state for e in agent.writes()] == ["committed", "failed"]


# -- 3. no model request after a stop, whatever crashed ----------------------------------------


class Appends(SqlJournal):
    """A journal that remembers what each append carried."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.batches: list[tuple[Message, ...]] = []

    def append(self, conversation_id: str, *messages: Message, **options: Any) -> None:
        super().append(conversation_id, *messages, **options)
        self.batches.append(messages)


def test_a_stop_and_its_message_land_in_one_commit(db: Database) -> None:
    """The stop_turn result and the harness's stop message are one append (one commit): no
    crash can leave the first without the second."""
    app = NotesApp(db)
    journal = Appends(db)
    agent = Agent(
        model=ScriptedModel(
            [turn(call("send_remote", {"text": "hi"}), call("add_item", {"name": "y"}))]
        ),
        tools=_failing_remote(app),
        lang="en",
        ledger=SqlLedger(db),
        journal=journal,
    )
    result = _run(agent.run_turn("send", conversation_id="c1"))
    assert result.stop_reason == "stop_turn"
    last = journal.batches[-1]
    assert [type(m) for m in last] == [ToolResultsMessage, HarnessMessage]
    results = last[0]
    assert isinstance(results, ToolResultsMessage)
    assert [r.outcome.code for r in results.results if isinstance(r.outcome, ToolError)] == [
        "outcome_unknown",
        "not_executed",
    ]


def _failing_remote(app: NotesApp) -> ToolSet:
    tools = app.tools()
    remote = tools.get("send_remote")
    assert remote is not None

    def broken(ctx: ToolContext, text: str) -> dict[str, Any]:
        """Send, and lose the answer."""
        raise OSError("connection reset")

    return ToolSet(
        [t for t in tools if t.name != "send_remote"]
        + [Tool.from_function(broken, name="send_remote", effect="write")]
    )


def test_resume_after_results_that_stopped_the_turn_does_not_ask_the_model(
    db: Database,
) -> None:
    """A journal whose turn ends in a stop_turn result without the stop message (written by
    an older version, or by hand): resume ends the turn without a model request."""
    stopped = ToolError("outcome_unknown", "unknown", Recovery.STOP_TURN)
    write_transcript(
        SqlJournal(db),
        "c1",
        [
            UserMessage("send"),
            AssistantMessage((call("send_remote", {"text": "hi"}, call_id="c_a"),), "tool_use"),
            ToolResultsMessage((ToolResult("c_a", "send_remote", stopped, executed=True),)),
        ],
    )
    model = ScriptedModel([])  # any request raises ScriptError
    agent, _ = _agent(db, model)
    result = _run(agent.resume("c1"))
    assert (result.stop_reason, result.reply_author, result.model_requests) == (
        "stop_turn",
        "harness",
        0,
    )
    assert "can't confirm" in result.reply
    assert isinstance(agent.journal.load("c1")[-1], HarnessMessage)
    assert model.requests == []


# -- 4. every finish reason counts against the round limit -----------------------------------


def test_a_provider_that_keeps_pausing_hits_the_round_limit(db: Database) -> None:
    """A provider answering ``pause`` forever: the turn ends at the round limit (it used to go
    on until the provider ran out: 61 requests)."""
    model = FunctionModel(lambda request: turn("thinking...", finish="pause"))
    agent, _ = _agent(db, model, max_rounds=4)
    result = _run(agent.run_turn("go", conversation_id="c1"))
    assert (result.stop_reason, result.reply_author) == ("round_limit", "harness")
    assert result.model_requests == 5
    assert len(model.requests) == 5


def test_pauses_and_tool_rounds_share_the_limit_across_a_resume(db: Database) -> None:
    """Rounds are counted from the journal, so a resumed turn does not get a fresh budget."""
    steps = [
        turn("...", finish="pause"),
        turn(call("read_note", {"key": "a"})),
        turn(call("delete_note", {"key": "a"})),
        turn("...", finish="pause"),
        turn("never asked"),
    ]
    model = ScriptedModel(steps)
    agent, _ = _agent(db, model, max_rounds=3)
    with db.transaction() as tx:
        tx.execute("INSERT INTO t_notes (user_id, key, value) VALUES ('default', 'a', 'v')")
    paused = _run(agent.run_turn("go", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    assert agent.decide("c1", paused.pending_confirmation.id, approved=True)
    result = _run(agent.resume("c1"))
    assert result.stop_reason == "round_limit"
    assert model.remaining == 1


# -- 5. one writer per conversation ------------------------------------------------------------


CONCURRENT_TURN = """
import asyncio, sys, time
sys.path.insert(0, sys.argv[2])
from notes_app import NotesApp
from surefoot import Agent, ConversationBusyError, SqlJournal, SqlLedger, open_database
from surefoot.testing import FunctionModel, call, turn
from surefoot._messages import ToolResultsMessage

db = open_database(sys.argv[1])
me, start = sys.argv[3], float(sys.argv[4])

def plan(request):
    if isinstance(request.messages[-1], ToolResultsMessage):
        return turn(f"done {me}")
    time.sleep(0.05)  # a model taking its time: the others arrive meanwhile
    return turn(call("add_item", {"name": me}, call_id="call_0"))

app = NotesApp(db)
agent = Agent(model=FunctionModel(plan), tools=app.tools(), lang="en",
              ledger=SqlLedger(db), journal=SqlJournal(db))
while time.time() < start:
    time.sleep(0.001)
try:
    result = asyncio.run(agent.run_turn(f"add {me}", conversation_id="shared"))
    print("ran", result.stop_reason)
except ConversationBusyError:
    print("busy")
"""


def test_concurrent_writers_on_one_conversation_never_interleave(db: Database, db_url: str) -> None:
    """Six processes start a turn on one conversation at once: each either runs its whole turn
    or is told the conversation is busy; the journal holds whole turns, every call answered
    once, and the strict fakes accept the next request (it used to interleave: duplicate call
    ids, two results for one call)."""
    here = str(Path(__file__).parent)
    start = time.time() + 1.5
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT_TURN, db_url, here, f"w{i}", str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(6)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outputs]
    said = [o[0].strip() for o in outputs]
    ran = [s for s in said if s == "ran completed"]
    assert len(ran) + said.count("busy") == 6, said
    assert ran, said
    agent, app = _agent(db, ScriptedModel([]))
    messages = agent.journal.load("shared")
    users = [m for m in messages if isinstance(m, UserMessage)]
    assert len(users) == len(ran)
    _answered_once(messages)
    assert wire_problems(messages, agent.tools.specs()) == {}
    assert len(app.items()) == len(ran)


def test_resume_during_a_live_turn_is_busy(db: Database) -> None:
    """While a turn holds the conversation (here: a slow approved write), a second agent's
    resume is told it is busy and changes nothing (it used to run the batch a second time)."""
    release = threading.Event()
    entered = threading.Event()
    app = NotesApp(db)

    def slow(point: str, tool: str) -> None:
        if tool == "delete_note" and point == "after_commit":  # the turn is still running
            entered.set()
            release.wait(30)

    app.on = slow
    model = ScriptedModel([turn(call("delete_note", {"key": "a"})), turn("deleted")])
    agent = Agent(
        model=model, tools=app.tools(), lang="en", ledger=SqlLedger(db), journal=SqlJournal(db)
    )
    with db.transaction() as tx:
        tx.execute("INSERT INTO t_notes (user_id, key, value) VALUES ('default', 'a', 'v')")
    paused = _run(agent.run_turn("delete a", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    assert agent.decide("c1", paused.pending_confirmation.id, approved=True)
    outcome: list[Any] = []
    worker = threading.Thread(target=lambda: outcome.append(_run(agent.resume("c1"))))
    worker.start()
    assert entered.wait(30)
    other_db = open_database(db.url)
    try:
        other, _ = _agent(other_db, ScriptedModel([]))
        with pytest.raises(ConversationBusyError):
            _run(other.resume("c1"))
        with pytest.raises(ConversationBusyError):
            _run(other.run_turn("hello", conversation_id="c1"))
    finally:
        release.set()
        worker.join(30)
        other_db.close()
    assert outcome[0].stop_reason == "completed"
    assert app.runs["delete_note"] == 1
    _answered_once(agent.journal.load("c1"))


# -- 7. what a handler returns is inside the error boundary ---------------------------------


def _circular() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


BAD_VALUES: dict[str, Any] = {
    "datetime": lambda: {"at": dt.datetime(2020, 1, 1, tzinfo=dt.UTC)},
    "set": lambda: {"tags": {"a", "b"}},
    "bytes": lambda: {"raw": b"\x00\x01"},
    "circular": _circular,
    "nan": lambda: {"weight": math.nan},
    "infinity": lambda: {"weight": math.inf},
    "ok_list": lambda: Ok([1]),  # type: ignore[arg-type]
    "list_of_sets": lambda: [{1}, {2}],
    "nested_ok": lambda: {"inner": Ok({"n": 1})},
    "int_key": lambda: {1: "one"},
    "surrogate": lambda: {"text": "\ud800"},
    "deep": lambda: _deep(200),
    "huge": lambda: {"text": "x" * 2_000_001},
}


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for _ in range(levels):
        node = {"n": node}
    return node


@pytest.mark.parametrize("kind", sorted(BAD_VALUES))
def test_a_read_returning_bad_data_is_unavailable_and_the_journal_still_loads(
    db: Database, kind: str
) -> None:
    """A read handler returning something that is not an outcome of plain JSON data is
    ``unavailable`` with the reason in diagnostics; the turn goes on and the conversation
    loads again (it used to escape ``run_turn``, or be stored and break every later load)."""
    tools = ToolSet()

    @tools.tool
    def bad_read() -> Any:
        """Read something."""
        return BAD_VALUES[kind]()

    model = ScriptedModel([turn(call("bad_read")), turn("sorry")])
    agent = Agent(
        model=model,
        tools=tools,
        lang="en",
        journal=SqlJournal(db),
        ledger=SqlLedger(db),
        diagnostics=SqlDiagnostics(db),
    )
    result = _run(agent.run_turn("read", conversation_id="c1"))
    assert result.stop_reason == "completed"
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError)
    assert (record.outcome.code, record.outcome.recovery.value) == (
        "unavailable",
        "choose_alternative",
    )
    (diagnostic,) = agent.diagnostics(conversation_id="c1")
    assert diagnostic.exception_type in ("TypeError", "ValueError")
    reopened = open_database(db.url)
    try:
        assert len(SqlJournal(reopened).load("c1")) == 4
    finally:
        reopened.close()


@pytest.mark.parametrize("kind", ["nan", "set", "circular", "ok_list"])
def test_a_write_returning_bad_data_is_settled_not_left_pending(db: Database, kind: str) -> None:
    """A write returning bad data is decided like a failure after its effect may have
    happened: a plain write with no way to check is ``outcome_unknown`` (ledger: unknown),
    an atomic one that committed is its recorded result; never pending, never an exception."""
    app = NotesApp(db)
    tools = app.tools()

    @tools.tool(effect="write")
    def plain(ctx: ToolContext, n: int) -> Any:
        """A write without a way to check it."""
        return BAD_VALUES[kind]()

    @tools.tool(effect="write", atomic=True)
    def atomic(ctx: ToolContext, n: int) -> Any:
        """A write that commits with its ledger record, then returns bad data."""
        with db.transaction() as tx:
            ctx.commit_in(tx, {"n": n})
        return BAD_VALUES[kind]()

    model = ScriptedModel([turn(call("atomic", {"n": 1})), turn(call("plain", {"n": 2}))])
    agent = Agent(model=model, tools=tools, lang="en", journal=SqlJournal(db), ledger=SqlLedger(db))
    result = _run(agent.run_turn("write", conversation_id="c1"))
    first, second = result.calls
    assert first.outcome == Ok({"n": 1})
    assert isinstance(second.outcome, ToolError)
    assert second.outcome.code == "outcome_unknown"
    assert result.stop_reason == "stop_turn"
    assert [e.state for e in agent.writes()] == ["committed", "unknown"]
    assert len(agent.journal.load("c1")) == 6


def test_commit_in_refuses_data_it_could_not_store_faithfully(db: Database) -> None:
    """``ctx.commit_in`` with NaN aborts the transaction: an atomic write is then known not
    applied, and nothing was stored."""
    app = NotesApp(db)
    tools = app.tools()

    @tools.tool(effect="write", atomic=True)
    def atomic(ctx: ToolContext, n: int) -> dict[str, Any]:
        """Commit NaN."""
        with db.transaction() as tx:
            tx.execute("INSERT INTO t_items (user_id, name) VALUES ('default', 'nan')")
            ctx.commit_in(tx, {"n": math.nan})
        return {"n": n}

    agent = Agent(
        model=ScriptedModel([turn(call("atomic", {"n": 1}))]),
        tools=tools,
        lang="en",
        journal=SqlJournal(db),
        ledger=SqlLedger(db),
    )
    result = _run(agent.run_turn("write", conversation_id="c1"))
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "not_applied"
    assert app.items() == []


# -- 9. a slow handler keeps its claim ---------------------------------------------------------


def test_a_handler_slower_than_its_lease_is_not_reconciled_away(db: Database) -> None:
    """A plain write takes 4 leases' time; meanwhile another worker reconciles again and
    again. Its claim is renewed while it runs, so it is never taken for dead: no "absent",
    no second attempt, and the write commits once (it used to be declared not applied while
    its effect still landed)."""
    app = NotesApp(db)
    running = threading.Event()
    lease = 0.3

    def slow(point: str, tool: str) -> None:
        if tool == "send_remote" and point == "before_effect":  # a slow remote call
            running.set()
            time.sleep(lease * 4)

    app.on = slow
    model = ScriptedModel([turn(call("send_remote", {"text": "hi"})), turn("sent")])
    agent = Agent(
        model=model,
        tools=app.tools(),
        lang="en",
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
        lease_seconds=lease,
    )
    outcome: list[TurnResult] = []
    worker = threading.Thread(
        target=lambda: outcome.append(_run(agent.run_turn("send", conversation_id="c1")))
    )
    worker.start()
    assert running.wait(30)
    other_db = open_database(db.url)
    seen: list[str] = []
    try:
        other, _ = _agent(other_db, ScriptedModel([]), lease_seconds=lease)
        while worker.is_alive():
            seen.extend(e.state for e in other.reconcile())
            time.sleep(lease / 4)
    finally:
        worker.join(30)
        other_db.close()
    assert "failed" not in seen, seen
    assert "unknown" not in seen, seen
    assert outcome[0].calls[0].outcome == Ok({"sent": "hi"})
    assert [(e.state, e.attempt) for e in agent.writes()] == [("committed", 1)]
    assert len(app.effects()) == 1


# -- Ctrl-C during a write ---------------------------------------------------------------------


def test_ctrl_c_inside_a_write_leaves_it_for_the_next_resume_to_settle(db: Database) -> None:
    """A KeyboardInterrupt inside an atomic write: the effect rolls back, the write is marked
    unknown on the way out (not left pending for a lease's time) and the conversation is let
    go; the next resume settles it as not applied at once, without asking the model."""
    app = NotesApp(db)

    def interrupt(point: str, tool: str) -> None:
        if tool == "add_item" and point == "before_commit":
            raise KeyboardInterrupt

    app.on = interrupt
    agent = Agent(
        model=ScriptedModel([turn(call("add_item", {"name": "x"}))]),
        tools=app.tools(),
        lang="en",
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
    )
    with pytest.raises(KeyboardInterrupt):
        _run(agent.run_turn("add x", conversation_id="c1"))
    assert [e.state for e in agent.writes()] == ["unknown"]
    app.on = None
    result = _run(agent.resume("c1"))  # the conversation was released: no wait, no busy
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "not_applied"
    assert (result.stop_reason, result.model_requests) == ("stop_turn", 0)
    assert app.items() == []
    assert [e.state for e in agent.writes()] == ["failed"]


# -- a durable journal never runs beside a forgetful ledger -----------------------------------


def test_a_durable_journal_without_a_ledger_gets_one_in_its_database(db: Database) -> None:
    """``Agent(journal=SqlJournal(db))`` with no ledger: the writes are claimed in ``db`` too.
    A process that dies after a remote write's effect leaves the claim there, so the next
    process's resume settles it from the remote side instead of sending it again (an in-memory
    ledger would have died with the first process and the write would run twice)."""
    first_app = NotesApp(db)

    def die(point: str, tool: str) -> None:
        if point == "after_commit":
            raise KeyboardInterrupt  # the process goes down after the effect

    first_app.on = die
    first = Agent(
        model=ScriptedModel([turn(call("send_remote", {"text": "hola"}))]),
        tools=first_app.tools(),
        lang="en",
        journal=SqlJournal(db),
    )
    assert isinstance(first.executor.ledger, SqlLedger)
    with pytest.raises(KeyboardInterrupt):
        _run(first.run_turn("send hola", conversation_id="c1"))

    second_app = NotesApp(db)  # a new process: nothing of the first one's memory
    second = Agent(
        model=ScriptedModel([turn("Sent.")]),
        tools=second_app.tools(),
        lang="en",
        journal=SqlJournal(db),
    )
    result = _run(second.resume("c1"))
    (record,) = result.calls
    assert record.outcome == Ok({"sent": "hola"})
    assert second_app.runs["send_remote"] == 0
    assert [tool for _, tool, _ in second_app.effects()] == ["send_remote"]


def test_a_durable_journal_beside_an_in_memory_ledger_is_refused(db: Database) -> None:
    """Passing both on purpose is refused: a resume after a crash could repeat a write."""
    with pytest.raises(ConfigurationError, match="durable ledger"):
        Agent(
            model=ScriptedModel([]),
            tools=ToolSet(),
            journal=SqlJournal(db),
            ledger=MemoryLedger(),
        )


# -- arguments a model can send that JSON (or the stores) cannot hold --------------------------


def _deep(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(levels):
        node["a"] = {}
        node = node["a"]
    return root


@pytest.mark.parametrize(
    "arguments",
    [{"text": "hola \ud83d"}, {"text": "x", "payload": _deep(300)}, {"text": "x", "n": 1e999}],
    ids=["lone-surrogate", "nested-300", "infinity"],
)
def test_arguments_json_cannot_hold_are_refused_and_the_conversation_goes_on(
    db: Database, arguments: dict[str, Any]
) -> None:
    """A lone surrogate, absurd nesting or an infinite number in a write's arguments: the
    call is refused as invalid arguments (the handler never runs), the turn ends normally, the
    transcript loads, and the conversation takes its next turn (this used to raise from
    ``run_turn`` and ``resume`` and leave the conversation unfinished for good)."""
    runs: list[str] = []
    tools = ToolSet()

    @tools.tool(effect="write")
    def put(text: str, payload: dict[str, Any] | None = None, n: float = 0) -> dict[str, Any]:
        """Store something."""
        runs.append(text)
        return {"stored": True}

    agent = Agent(
        model=ScriptedModel([turn(call("put", arguments)), turn("cannot"), turn("next")]),
        tools=tools,
        lang="es",
        journal=SqlJournal(db),
    )
    result = _run(agent.run_turn("guarda", conversation_id="c1"))
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "invalid_arguments"
    assert (record.executed, runs) == (False, [])
    assert not agent.unfinished("c1")
    assert len(SqlJournal(db).load("c1")) == 4
    assert _run(agent.run_turn("otra", conversation_id="c1")).reply == "next"
