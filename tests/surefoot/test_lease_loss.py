"""A turn that loses its hold on the conversation after its write committed says what it had
done: a real process, paused (SIGSTOP) past its lease right after the commit, while another
process takes the conversation over and finishes the turn; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from surefoot import (
    Agent,
    ConversationBusyError,
    Ok,
    SqlJournal,
    SqlLedger,
    ToolError,
    open_database,
)
from surefoot.executor import CallRecord
from surefoot.messages import ToolCall
from surefoot.testing import ScriptedModel, turn

sys.path.insert(0, str(Path(__file__).parent))

from notes_app import NotesApp

WORKER = Path(__file__).parent / "lease_worker.py"


def _wait_for(path: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, "the worker never reached its commit"
        time.sleep(0.05)


def test_a_turn_paused_past_its_lease_after_its_write_reports_the_write(
    db_url: str, tmp_path: Path
) -> None:
    """A commits, stops past its lease; B resumes and finishes the turn (the write answered
    from the ledger, never run twice); A, continued, is refused the journal and reports the
    saved write — never "nothing was done"."""
    marker = tmp_path / "committed"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), "--db", db_url, "--marker", str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        _wait_for(marker, 60)
        time.sleep(0.3)  # it stops itself right after writing the marker
        time.sleep(1.5)  # past its one-second lease (its heartbeat is stopped with it)
        db = open_database(db_url)
        try:
            app = NotesApp(db)
            other = Agent(
                model=ScriptedModel([turn("saved, as you asked")]),
                tools=app.tools(),
                ledger=SqlLedger(db),
                journal=SqlJournal(db),
            )
            result = asyncio.run(other.resume("c1"))
            assert result.stop_reason == "completed"
            (record,) = result.calls
            assert isinstance(record.outcome, Ok)
            assert not record.executed  # answered from the ledger: no second effect
            assert app.notes()["a"] == "77.4"
            assert len(app.effects()) == 1
        finally:
            db.close()
        worker.send_signal(signal.SIGCONT)
        out, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["busy"] is True
    assert report["writes"] == [
        {"tool": "save_note", "ok": True, "outcome": {"ok": {"key": "a", "value": "77.4"}}}
    ]
    assert report["lines"] == ["• saved: save_note (key a, value 77.4)"]


def test_a_busy_error_before_anything_ran_has_no_writes() -> None:
    """Refused before its turn starts: ``writes`` is empty (then "nothing was done" is true)."""
    assert ConversationBusyError("c1").writes == ()


def test_busy_writes_leave_out_denied_and_unkeyed_calls() -> None:
    """``writes`` lists what reached the ledger: a denied write and a read are left out."""
    saved = CallRecord(ToolCall("1", "save", {}), Ok({"v": 1}), executed=True, key="k1")
    denied = CallRecord(
        ToolCall("2", "drop", {}),
        ToolError("denied", "no", "choose_alternative"),  # type: ignore[arg-type]
        executed=False,
        key="k2",
    )
    read = CallRecord(ToolCall("3", "look", {}), Ok({}), executed=True)
    error = ConversationBusyError("c1", calls=(saved, denied, read))
    assert error.writes == (saved,)
    assert "after 3 call(s)" in str(error)
