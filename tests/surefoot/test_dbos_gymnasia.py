"""Gymnasia's ``ask --engine dbos``: the turn runs as a DBOS workflow in the app's own
PostgreSQL database; a SQLite database is refused with one line saying why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from dbos_support import create_database, drop_database

GYMNASIA = Path(sys.executable).parent / "gymnasia"


@pytest.fixture
def app_url(pg_server: str) -> Iterator[str]:
    """A database of its own for the app and DBOS."""
    name, url = create_database(pg_server)
    yield url
    drop_database(pg_server, name)


def _ask(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GYMNASIA_TODAY": "2026-03-02"}
    return subprocess.run(
        [str(GYMNASIA), "ask", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_ask_runs_its_turn_as_a_dbos_workflow(app_url: str) -> None:
    """The reply is the one the built-in journal gives; DBOS recorded the turn's steps in the
    same database as the app's data."""
    import psycopg

    done = _ask("Guarda 77,4 kg hoy", "--db", app_url, "--engine", "dbos", "--lang", "en")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Saved: 77.4 kg on 2026-03-02." in done.stdout
    with psycopg.connect(app_url) as conn:
        rows = conn.execute(
            "SELECT function_name FROM dbos.operation_outputs ORDER BY function_id"
        ).fetchall()
    assert [r[0] for r in rows] == [
        "surefoot.begin",
        "surefoot.model",
        "surefoot.tools",
        "surefoot.model",
    ]


def test_the_engine_needs_postgresql(tmp_path: Path) -> None:
    """On a SQLite file the option is refused, in the person's language, before anything runs."""
    refused = _ask("hola", "--db", str(tmp_path / "g.db"), "--engine", "dbos", "--lang", "pt")
    assert refused.returncode != 0
    assert "--engine dbos executa os turnos no DBOS" in refused.stderr
    assert not (tmp_path / "g.db").exists()


def _gym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GYMNASIA), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GYMNASIA_TODAY": "2026-03-02", "GYMNASIA_ENGINE": "dbos"},
        check=False,
    )


def test_an_approval_from_another_process_reaches_the_waiting_workflow(app_url: str) -> None:
    """`ask` stops awaiting a decision; `approvals approve` in another process sends it to the
    workflow, which finishes (SUCCESS in DBOS) with the delete run once."""
    import psycopg

    assert _gym("ask", "Guarda la nota meta: correr 10 km.", "--db", app_url).returncode == 0
    asked = _gym("ask", "Borra la nota meta.", "--db", app_url, "--json")
    assert asked.returncode == 0, asked.stderr[-2000:]
    paused = json.loads(asked.stdout)
    assert paused["stop_reason"] == "awaiting_confirmation"
    pending = paused["pending_confirmation"]
    with psycopg.connect(app_url) as conn:
        waiting = conn.execute("SELECT status FROM dbos.workflow_status ORDER BY created_at")
        assert [r[0] for r in waiting.fetchall()] == ["SUCCESS", "PENDING"]

    approved = _gym("approvals", "approve", pending["id"], "--db", app_url, "--json")
    assert approved.returncode == 0, approved.stderr[-2000:]
    result = json.loads(approved.stdout)
    assert result["stop_reason"] == "completed"
    assert [c["outcome"] for c in result["tool_calls"]] == [{"ok": {"deleted": "meta"}}]
    with psycopg.connect(app_url) as conn:
        ended = conn.execute("SELECT status FROM dbos.workflow_status ORDER BY created_at")
        assert [r[0] for r in ended.fetchall()] == ["SUCCESS", "SUCCESS"]
    writes = json.loads(_gym("writes", "--db", app_url, "--json").stdout)
    deletes = [w for w in writes if w["tool"] == "delete_memory"]
    assert [w["state"] for w in deletes] == ["committed"]
    assert json.loads(_gym("export", "--db", app_url).stdout)["memory"] == []
