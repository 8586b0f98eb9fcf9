"""Real processes on DBOS: a worker SIGKILLed in the middle of a write (before its effect, or
after it and before its step is recorded) has its turn recovered by another process, with at
most one effect per key, and the person told the truth: saved, not saved, or unknown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from surefoot import SqlJournal, SqlLedger, open_database
from surefoot.messages import AssistantMessage, HarnessMessage, ToolResultsMessage

sys.path.insert(0, str(Path(__file__).parent))

from dbos_support import create_database, drop_database

WORKER = Path(__file__).parent / "dbos_worker.py"
UNKNOWN = "not confirmed whether it was saved: "
ROOT = Path(__file__).parents[2]


@pytest.fixture
def crash_url(pg_server: str) -> Iterator[str]:
    """A database of its own for the workers of one test."""
    name, url = create_database(pg_server)
    yield url
    drop_database(pg_server, name)


def _worker(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "packages" / "surefoot" / "src")}
    return subprocess.run(
        [sys.executable, str(WORKER), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def _crash_and_recover(url: str, tool: str, point: str) -> dict[str, Any]:
    killed = _worker(url, "A", "run", tool, point)
    assert killed.returncode == -9, killed.stderr[-2000:]
    recovered = _worker(url, "B", "recover", "A")
    assert recovered.returncode == 0, recovered.stderr[-2000:]
    results = json.loads(recovered.stdout.strip().splitlines()[-1])
    assert len(results) == 1
    return next(iter(results.values()))


def _effects(url: str) -> list[str]:
    db = open_database(url)
    try:
        return [row[0] for row in db.query("SELECT key FROM t_effects")]
    finally:
        db.close()


def _journal_and_ledger(url: str) -> tuple[list[Any], list[Any]]:
    db = open_database(url)
    try:
        return SqlJournal(db, user="worker").load("c1"), SqlLedger(db, user="worker").entries()
    finally:
        db.close()


@pytest.mark.parametrize(
    ("tool", "point", "code", "state", "effects", "told"),
    [
        ("send_remote", "after_effect", "ok", "committed", 1, None),
        ("send_remote", "before_effect", "not_applied", "failed", 0, "not saved: "),
        ("post", "after_effect", "outcome_unknown", "unknown", 1, UNKNOWN),
        ("post", "before_effect", "outcome_unknown", "unknown", 0, UNKNOWN),
    ],
)
def test_a_killed_worker_s_turn_is_finished_by_another(
    crash_url: str, tool: str, point: str, code: str, state: str, effects: int, told: str | None
) -> None:
    """SIGKILL at the write's point; another worker recovers the workflow: the write is never
    run again, its ledger state matches the effects, the journal has one result for it."""
    result = _crash_and_recover(crash_url, tool, point)
    assert result["codes"] == [code]
    found = _effects(crash_url)
    assert len(found) == effects
    messages, entries = _journal_and_ledger(crash_url)
    assert [e.state for e in entries] == [state]
    assert all(key == entries[0].key for key in found)
    results = [m for m in messages if isinstance(m, ToolResultsMessage)]
    assert len(results) == 1
    assert results[0].results[0].executed is False  # settled by the ledger, not run again
    if told is None:  # saved: the model was told, and answered
        assert result["reply"] == "done"
    else:  # the harness tells the person what is known, and the turn stops
        assert told in result["reply"]
        assert isinstance(messages[-1], HarnessMessage)
        assert result["stop_reason"] == "stop_turn"
    # the engine's history agrees: one model step per journaled response, one tools step
    responses = sum(isinstance(m, AssistantMessage) for m in messages)
    assert result["steps"].count("surefoot.model") == responses
    assert result["steps"].count("surefoot.tools") == 1
