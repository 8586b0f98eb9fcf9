"""Crash and resume in Gymnasia, on SQLite and PostgreSQL: a process killed in the middle of
a turn is finished by ``gymnasia resume`` without doing a committed write again, and the
``--fault`` modes reconcile from the ledger."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from surefoot import Ok, SqlDiagnostics, SqlJournal, SqlLedger, open_database
from surefoot.ledger import LedgerEntry
from surefoot.messages import AssistantMessage, Message, ToolResultsMessage
from surefoot.sql import Database

SAVE = "Save my weight: 77.4 kg on 2020-01-04."
DAY = "2020-01-04"

CRASH_TURN = f'''
"""Run one Gymnasia turn and SIGKILL this process at the point named on the command line."""
import asyncio, os, signal, sys

from gymnasia.app import open_coach
from gymnasia.faults import Faults
from gymnasia.offline import OfflineModel
from gymnasia.tools import build_tools
from surefoot import Agent
from surefoot.messages import ToolResultsMessage

db, point, conversation = sys.argv[1:4]


def die():
    os.kill(os.getpid(), signal.SIGKILL)


class Crash(Faults):
    """Gymnasia's fault seam, used to die instead of raising."""

    def __bool__(self):
        return True

    def before_commit(self, ctx):
        if point == "before_commit":
            die()  # inside the write's transaction: effect and ledger record not committed

    def after_commit(self, ctx):
        if point == "after_commit":
            die()  # the transaction committed; the handler never returned


class Crashing(OfflineModel):
    """The offline Coach (the model ``gymnasia resume`` continues with), dying on cue."""

    async def request(self, request):
        if point == "next_step" and isinstance(request.messages[-1], ToolResultsMessage):
            die()  # the results go into the journal with the next response: not yet
        return await super().request(request)


coach = open_coach(db=db, lang="en")
agent = Agent(
    model=Crashing(lang="en"),
    tools=build_tools(coach.store, Crash()),
    system=coach.agent.system,
    lang="en",
    app_name=coach.agent.app_name,
    ledger=coach.agent.executor.ledger,
    journal=coach.agent.journal,
    diagnostics=coach.agent.executor.diagnostics,
)
asyncio.run(agent.run_turn("{SAVE}", conversation_id=conversation))
print("the turn finished without being killed")
'''


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    return {**env, "PYTHONUNBUFFERED": "1"}


def gymnasia(*args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    """Run the ``gymnasia`` CLI; assert its exit code."""
    done = subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        check=False,
    )
    assert done.returncode == expect, (done.returncode, done.stdout, done.stderr[-3000:])
    return done


def ask_json(db: str, *extra: str) -> dict[str, Any]:
    """``gymnasia ask SAVE --json`` on ``db``."""
    done = gymnasia("ask", SAVE, "--db", db, "--lang", "en", "--json", *extra)
    payload: dict[str, Any] = json.loads(done.stdout)
    return payload


def crash_turn(tmp_path: Path, db: str, point: str, conversation: str) -> None:
    """Run one turn in a child process that SIGKILLs itself at ``point``."""
    script = tmp_path / "crash_turn.py"
    script.write_text(CRASH_TURN)
    done = subprocess.run(
        [sys.executable, str(script), db, point, conversation],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)


class Look:
    """A fresh connection to the database, as a restarted process sees it."""

    def __init__(self, url: str) -> None:
        self.db: Database = open_database(url)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def messages(self, conversation: str) -> list[Message]:
        """The journal of ``conversation``."""
        return SqlJournal(self.db).load(conversation)

    def writes(self, conversation: str) -> list[LedgerEntry]:
        """The ledger rows of ``conversation``."""
        return SqlLedger(self.db).entries(conversation_id=conversation)

    def measurement(self) -> tuple[float, float] | None:
        """(weight, updated_at) of the day's record: updated_at changes on every upsert."""
        rows = self.db.query(
            "SELECT weight_kg, updated_at FROM gym_measurements WHERE date = ?", (DAY,)
        )
        return (float(rows[0][0]), float(rows[0][1])) if rows else None

    def diagnostics(self, conversation: str) -> int:
        """How many local failures were recorded for ``conversation``."""
        return len(SqlDiagnostics(self.db).list(conversation_id=conversation))


@pytest.fixture
def look(db_url: str) -> Iterator[Any]:
    """Open a fresh :class:`Look` on demand; all are closed after the test."""
    opened: list[Look] = []

    def open_look() -> Look:
        opened.append(Look(db_url))
        return opened[-1]

    yield open_look
    for item in opened:
        item.close()


def _every_call_answered_once(messages: list[Message]) -> None:
    """Each assistant message's calls are answered, in order, by the next message."""
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            answer = messages[index + 1]
            assert isinstance(answer, ToolResultsMessage)
            assert [r.call_id for r in answer.results] == [c.call_id for c in message.tool_calls]


def test_resume_after_a_kill_between_commit_and_results_does_not_write_again(
    tmp_path: Path, db_url: str, look: Any
) -> None:
    """Killed between commit and journaled result: resume replays it, the handler never reruns."""
    conversation = "c_resume_after_commit"
    crash_turn(tmp_path, db_url, "after_commit", conversation)
    before = look()
    messages = before.messages(conversation)
    assert isinstance(messages[-1], AssistantMessage)
    assert [c.name for c in messages[-1].tool_calls] == ["write_measurement"]
    (entry,) = before.writes(conversation)
    assert entry.state == "committed"
    saved = before.measurement()
    assert saved is not None
    assert saved[0] == 77.4
    before.close()

    done = gymnasia("resume", conversation, "--db", db_url, "--lang", "en", "--json")
    result = json.loads(done.stdout)
    assert (result["stop_reason"], result["reply_author"]) == ("completed", "model")
    assert result["model_requests"] == 1
    (replayed,) = result["tool_calls"]
    assert replayed["executed"] is False
    assert replayed["outcome"] == {"ok": entry.result}

    after = look()
    assert after.measurement() == saved, "the write ran again (updated_at changed)"
    assert [(e.key, e.state) for e in after.writes(conversation)] == [(entry.key, "committed")]
    assert after.diagnostics(conversation) == 0
    messages = after.messages(conversation)
    _every_call_answered_once(messages)
    results = [m for m in messages if isinstance(m, ToolResultsMessage)]
    assert [r.outcome for m in results for r in m.results] == [Ok(entry.result or {})]


def test_resume_after_a_kill_before_the_next_model_step_asks_the_model_once(
    tmp_path: Path, db_url: str, look: Any
) -> None:
    """Killed when asked for the next step (the round's results travel with the next
    response, so they are not journaled yet): resume answers the write from the ledger,
    never runs it again, and asks the model once."""
    conversation = "c_resume_next_step"
    crash_turn(tmp_path, db_url, "next_step", conversation)
    before = look()
    assert isinstance(before.messages(conversation)[-1], AssistantMessage)
    (entry,) = before.writes(conversation)
    assert entry.state == "committed"
    saved = before.measurement()
    assert saved is not None
    before.close()

    done = gymnasia("resume", conversation, "--db", db_url, "--lang", "en", "--json")
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "completed"
    assert result["model_requests"] == 1
    (replayed,) = result["tool_calls"]
    assert replayed["executed"] is False
    assert replayed["outcome"] == {"ok": entry.result}
    assert "77" in result["reply"]

    after = look()
    assert after.measurement() == saved
    assert [e.state for e in after.writes(conversation)] == ["committed"]
    _every_call_answered_once(after.messages(conversation))


def test_resume_after_a_kill_inside_the_write_settles_it_as_not_applied(
    tmp_path: Path, db_url: str, look: Any
) -> None:
    """Killed mid-transaction: resume sees that the turn's process is gone, settles its write
    from the ledger (atomic, never committed: not applied) and stops without asking the model."""
    conversation = "c_resume_before_commit"
    crash_turn(tmp_path, db_url, "before_commit", conversation)
    before = look()
    (entry,) = before.writes(conversation)
    assert entry.state == "pending"
    assert before.measurement() is None
    before.close()

    done = gymnasia("resume", conversation, "--db", db_url, "--lang", "en", "--json")
    result = json.loads(done.stdout)
    assert (result["stop_reason"], result["reply_author"]) == ("stop_turn", "harness")
    assert result["model_requests"] == 0
    (held,) = result["tool_calls"]
    assert held["executed"] is False
    assert held["outcome"]["error"] == "not_applied"
    assert held["outcome"]["recovery"] == "stop_turn"
    assert "nothing was saved" in result["reply"]

    after = look()
    assert after.measurement() is None
    assert [(e.key, e.state, e.attempt) for e in after.writes(conversation)] == [
        (entry.key, "failed", 2)
    ]
    _every_call_answered_once(after.messages(conversation))
    again = gymnasia("resume", conversation, "--db", db_url, "--lang", "en", "--json")
    assert json.loads(again.stdout)["model_requests"] == 0  # a finished turn stays finished


def test_ask_with_a_lost_acknowledgement_reconciles_to_one_write(db_url: str, look: Any) -> None:
    """``after_commit``: reconciled from the ledger to success; the handler ran exactly once."""
    result = ask_json(db_url, "--fault", "write_measurement:after_commit")
    assert (result["stop_reason"], result["reply_author"]) == ("completed", "model")
    assert result["model_requests"] == 2
    (write,) = result["tool_calls"]
    assert write["executed"] is True
    assert write["outcome"]["ok"]["weight_kg"] == 77.4
    conversation = result["conversation_id"]
    after = look()
    assert [e.state for e in after.writes(conversation)] == ["committed"]
    assert after.diagnostics(conversation) == 1
    saved = after.measurement()
    assert saved is not None
    assert saved[0] == 77.4
    shown = gymnasia("measurements", "show", DAY, "--db", db_url, "--json")
    assert json.loads(shown.stdout)["weight_kg"] == 77.4


def test_ask_failing_before_commit_is_not_applied_and_saves_nothing(db_url: str, look: Any) -> None:
    """``before_commit``: ``not_applied``, one model request, no record after a reload."""
    result = ask_json(db_url, "--fault", "write_measurement:before_commit")
    assert (result["stop_reason"], result["reply_author"]) == ("stop_turn", "harness")
    assert result["model_requests"] == 1
    (write,) = result["tool_calls"]
    assert write["outcome"]["error"] == "not_applied"
    assert write["outcome"]["recovery"] == "stop_turn"
    conversation = result["conversation_id"]
    after = look()
    assert [e.state for e in after.writes(conversation)] == ["failed"]
    assert after.measurement() is None
    gymnasia("measurements", "show", DAY, "--db", db_url, "--json", expect=1)
