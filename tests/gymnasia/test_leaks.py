"""Leak tests: an exception carrying a secret, a path and SQL never reaches
anything the model or a program reading ``--json`` sees; it is kept in the local diagnostics,
with configured keys redacted."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gymnasia.app import Coach, open_coach
from gymnasia.render import turn_json
from surefoot import SqlDiagnostics, TurnResult
from surefoot.messages import message_to_json
from surefoot.testing import ScriptedModel, call, turn

SECRET = "sk-test-SECRET123"
PATH = "/home/alice/.config/secret.db"
SQL = "SELECT * FROM users"
LEAK = f"auth {SECRET} refused opening {PATH} while running {SQL}"
FRAGMENTS = (SECRET, PATH, "/home/alice", "secret.db", SQL, "OperationalError", "Traceback")
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without Gymnasia settings, provider keys or a terminal width."""
    drop = {"COLUMNS", "LINES", *KEY_VARIABLES}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("GYMNASIA_")}
    env.update(extra)
    return env


def gym(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``python -m gymnasia ARGS`` in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def _leaky(*args: Any, **kwargs: Any) -> Any:
    raise sqlite3.OperationalError(LEAK)


def _model_visible(model: ScriptedModel) -> str:
    """Everything the model was sent: every request's transcript, system prompt and tools."""
    payload = [
        {
            "system": request.system,
            "tools": [
                {"name": s.name, "description": s.description, "parameters": s.parameters}
                for s in request.tools
            ],
            "messages": [message_to_json(m) for m in request.messages],
        }
        for request in model.requests
    ]
    return json.dumps(payload, ensure_ascii=False)


def _assert_clean(text: str) -> None:
    for fragment in FRAGMENTS:
        assert fragment not in text, fragment


def _coach(tmp_path: Path, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> Coach:
    """The real app wiring with a storage whose reads and writes raise the leaky exception.

    The store is the one object a test cannot inject through ``open_coach``, so its two
    methods are replaced on the instance (the tools hold that same instance)."""
    coach = open_coach(
        db=str(tmp_path / "gym.db"), model=model, lang="en", today=dt.date(2020, 1, 5)
    )
    monkeypatch.setattr(coach.store, "read_measurement", _leaky)
    monkeypatch.setattr(coach.store, "upsert_measurement", _leaky)
    return coach


def _turn(coach: Coach) -> TurnResult:
    try:
        return asyncio.run(coach.agent.run_turn("Look up 2020-01-02 and save 77 kg."))
    finally:
        coach.close()


@pytest.fixture
def leaky_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ScriptedModel, Any, Path]:
    """One turn over the leaky storage: a read (unavailable), then a write (not_applied)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    model = ScriptedModel(
        [
            turn(call("read_measurement", {"date": "2020-01-02"})),
            turn(call("write_measurement", {"date": "2020-01-02", "weight_kg": 77})),
        ]
    )
    result = _turn(_coach(tmp_path, model, monkeypatch))
    return model, result, tmp_path / "gym.db"


def test_exception_text_never_reaches_the_model(leaky_turn: Any) -> None:
    """No request the model received carries the secret, the path, the SQL or a traceback."""
    model, result, _ = leaky_turn
    assert len(model.requests) == 2
    codes = [r.outcome.code for r in result.calls]
    assert codes == ["unavailable", "not_applied"]
    _assert_clean(_model_visible(model))
    _assert_clean(result.reply)


def test_exception_text_never_reaches_the_json_output(leaky_turn: Any) -> None:
    """The ``--json`` form of the turn carries none of it either."""
    _, result, _ = leaky_turn
    payload = json.dumps(turn_json(result, provider="scripted", model="script"), ensure_ascii=False)
    assert '"unavailable"' in payload
    _assert_clean(payload)


def test_exception_is_kept_in_local_diagnostics_redacted(leaky_turn: Any) -> None:
    """The diagnostics keep the path and SQL by call id; the configured key is [redacted]."""
    from surefoot import open_database

    _, result, db_path = leaky_turn
    db = open_database(db_path, create=False)
    try:
        items = SqlDiagnostics(db).list(conversation_id=result.conversation_id)
    finally:
        db.close()
    assert [d.call_id for d in items] == [r.call.call_id for r in result.calls]
    assert [d.tool for d in items] == ["read_measurement", "write_measurement"]
    for item in items:
        assert item.exception_type == "OperationalError"
        assert PATH in item.message
        assert SQL in item.message
        assert "[redacted]" in item.message
        assert SECRET not in item.message
        assert SECRET not in item.traceback
        assert PATH in item.traceback


def test_diagnostics_command_shows_the_failure_and_redacts_configured_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``diagnostics --json`` shows path and SQL and redacts a key its environment configures."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    model = ScriptedModel([turn(call("read_measurement", {"date": "2020-01-02"})), turn("Sorry.")])
    result = _turn(_coach(tmp_path, model, monkeypatch))
    _assert_clean(_model_visible(model))
    db = str(tmp_path / "gym.db")

    raw = gym("diagnostics", "--json", "--db", db, cwd=tmp_path, env=clean_env())
    assert raw.returncode == 0, raw.stderr
    (item,) = json.loads(raw.stdout)
    assert item["call_id"] == result.calls[0].call.call_id
    assert item["exception_type"] == "OperationalError"
    assert SECRET in item["message"]  # nobody configured it as a key: it is local data

    redacted = gym(
        "diagnostics", "--json", "--db", db, cwd=tmp_path, env=clean_env(ANTHROPIC_API_KEY=SECRET)
    )
    assert redacted.returncode == 0, redacted.stderr
    assert SECRET not in redacted.stdout
    (item,) = json.loads(redacted.stdout)
    assert "[redacted]" in item["message"]
    assert "[redacted]" in item["traceback"]
    assert PATH in item["message"]
    assert SQL in item["message"]
    assert "OperationalError" in item["traceback"]


def test_cli_fault_stays_out_of_json_and_lands_in_diagnostics(tmp_path: Path) -> None:
    """An injected fault stays out of ``ask --json`` and is listed by ``diagnostics --json``."""
    db = str(tmp_path / "gym.db")
    env = clean_env(ANTHROPIC_API_KEY=SECRET)
    asked = gym(
        "ask",
        "Guarda mi peso: 77,0 kg el 2020-01-03.",
        "--json",
        "--db",
        db,
        "--today",
        "2020-01-05",
        "--fault",
        "write_measurement:before_commit",
        cwd=tmp_path,
        env=env,
    )
    assert asked.returncode == 0, asked.stderr
    turn_out = json.loads(asked.stdout)
    assert turn_out["provider"] == "offline"
    (tool_call,) = turn_out["tool_calls"]
    assert tool_call["outcome"]["error"] == "not_applied"
    for fragment in ("InjectedFault", "injected", "Traceback", "faults.py", SECRET, db):
        assert fragment not in asked.stdout, fragment

    shown = gym("diagnostics", "--json", "--db", db, cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    items = json.loads(shown.stdout)
    assert [i["exception_type"] for i in items] == ["InjectedFault"]
    (item,) = items
    assert item["call_id"] == tool_call["call_id"]
    assert item["conversation_id"] == turn_out["conversation_id"]
    assert item["tool"] == "write_measurement"
    assert "before commit" in item["message"]
    assert "InjectedFault" in item["traceback"]

    scoped = gym(
        "diagnostics",
        "--json",
        "--db",
        db,
        "--conversation",
        "c_does_not_exist",
        cwd=tmp_path,
        env=env,
    )
    assert scoped.returncode == 0, scoped.stderr
    assert json.loads(scoped.stdout) == []


def test_database_holding_diagnostics_is_private(leaky_turn: Any) -> None:
    """The database file that holds the diagnostics is readable by its owner only (0600)."""
    _, _, db_path = leaky_turn
    for path in (db_path, *db_path.parent.glob(db_path.name + "-*")):
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, (path.name, oct(mode))
