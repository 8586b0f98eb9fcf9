"""Confirmations across processes, and one-line usage errors on every data command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def gym(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``gymnasia ARGS`` in a new process."""
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GYMNASIA_LANG": "es", **(env or {})},
        check=False,
    )


def test_pending_confirmation_survives_a_restart_and_runs_once(tmp_path: Path) -> None:
    """A delete waiting for approval is approved from a new process, and only once."""
    db = str(tmp_path / "g.db")
    assert gym("ask", "Guarda la nota meta: correr 10 km.", "--db", db).returncode == 0
    paused = json.loads(gym("ask", "Borra la nota meta.", "--db", db, "--json").stdout)
    assert paused["stop_reason"] == "awaiting_confirmation"
    pending = paused["pending_confirmation"]
    assert pending["tool"] == "delete_memory"
    assert pending["arguments"] == {"key": "meta"}

    listed = json.loads(gym("approvals", "list", "--db", db, "--json").stdout)
    assert [row["id"] for row in listed] == [pending["id"]]

    approved = gym("approvals", "approve", pending["id"], "--db", db, "--json")
    assert approved.returncode == 0, approved.stderr
    result = json.loads(approved.stdout)
    assert result["stop_reason"] == "completed"
    assert [c["outcome"] for c in result["tool_calls"]] == [{"ok": {"deleted": "meta"}}]

    again = gym("approvals", "approve", pending["id"], "--db", db)
    assert again.returncode == 2
    assert again.stdout == ""
    writes = json.loads(gym("writes", "--db", db, "--json").stdout)
    deletes = [w for w in writes if w["tool"] == "delete_memory"]
    assert len(deletes) == 1
    assert deletes[0]["state"] == "committed"
    exported = json.loads(gym("export", "--db", db).stdout)
    assert exported["memory"] == []


def test_denied_confirmation_is_reported_to_the_model(tmp_path: Path) -> None:
    """Denying yields `denied` / choose_alternative, and the note is still there."""
    db = str(tmp_path / "g.db")
    gym("ask", "Guarda la nota meta: correr 10 km.", "--db", db)
    paused = json.loads(gym("ask", "Borra la nota meta.", "--db", db, "--json").stdout)
    denied = json.loads(
        gym("approvals", "deny", paused["pending_confirmation"]["id"], "--db", db, "--json").stdout
    )
    outcome = denied["tool_calls"][0]["outcome"]
    assert outcome["error"] == "denied"
    assert outcome["recovery"] == "choose_alternative"
    assert denied["tool_calls"][0]["executed"] is False
    exported = json.loads(gym("export", "--db", db).stdout)
    assert [m["key"] for m in exported["memory"]] == ["meta"]


MISSING_DB_COMMANDS = [
    ("measurements", "list"),
    ("measurements", "show", "2020-01-01"),
    ("diagnostics",),
    ("approvals", "list"),
    ("approvals", "approve", "x"),
    ("resume", "c_missing"),
    ("writes",),
    ("reconcile",),
    ("export",),
    ("delete-data", "--yes"),
    ("meals", "show", "2020-01-01"),
    ("routines", "list"),
]


@pytest.mark.parametrize("command", MISSING_DB_COMMANDS, ids=" ".join)
def test_data_commands_refuse_a_missing_database(tmp_path: Path, command: tuple[str, ...]) -> None:
    """On a database file that does not exist: one line on stderr, exit 2, nothing created."""
    db = tmp_path / "absent.db"
    done = gym(*command, "--db", str(db))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert not db.exists()


BAD_INPUT = [
    ("measurements", "show", "02/01/2020"),
    ("measurements", "list", "--from", "2020-13-01"),
    ("measurements", "add", "2020-02-30", "--weight-kg", "76"),
    ("meals", "show", "2020-01-01", "--meal", "brunch"),
    ("ask", "hola", "--fault", "write_measurement:read_error"),
    ("ask", "hola", "--lang", "fr"),
    ("ask", "hola", "--provider", "nope"),
    ("ask", "hola", "--today", "01/05/2020"),
    ("writes", "--state", "lost"),
    ("measurements", "list", "--bogus"),
]


@pytest.mark.parametrize("command", BAD_INPUT, ids=" ".join)
def test_user_mistakes_are_one_line_and_exit_2(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A bad date, meal, fault, language, provider or option: one line, exit 2, no traceback."""
    db = tmp_path / "g.db"
    gym("measurements", "add", "2020-01-01", "--weight-kg", "76", "--db", str(db))
    done = gym(*command, "--db", str(db))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
