"""``gymnasia serve --engine dbos`` on a loopback port: the web's turns run as DBOS workflows in
the app's PostgreSQL database, stream their text, and a decision made on the page reaches the
workflow that waits for it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from dbos_support import create_database, drop_database

GYMNASIA = Path(sys.executable).parent / "gymnasia"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def app_url(pg_server: str) -> Iterator[str]:
    """A database of its own for the app and DBOS."""
    name, url = create_database(pg_server)
    yield url
    drop_database(pg_server, name)


@pytest.fixture
def web(app_url: str) -> Iterator[httpx.Client]:
    """`gymnasia serve --engine dbos` in its own process, and a client for it."""
    port = _free_port()
    env = {**os.environ, "GYMNASIA_TODAY": "2026-03-02", "GYMNASIA_ENGINE": "dbos"}
    command = [str(GYMNASIA), "serve", "--db", app_url, "--port", str(port), "--lang", "es"]
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if client.get("/api/config").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.3)
        yield client
    finally:
        client.close()
        server.terminate()
        server.communicate(timeout=60)  # its stderr read and closed


def _turn(client: httpx.Client, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def _statuses(url: str) -> list[tuple[str, str]]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT workflow_uuid, status FROM dbos.workflow_status ORDER BY created_at"
        ).fetchall()
    return [(r[0], r[1]) for r in rows]


def _committed(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tool FROM sf_ledger WHERE state = 'committed' ORDER BY created_at"
        ).fetchall()
    return [r[0] for r in rows]


def test_a_web_turn_with_a_write_runs_as_a_workflow_and_streams(
    web: httpx.Client, app_url: str
) -> None:
    """The reply streams as text deltas, the weight is stored once, and DBOS recorded the
    turn's steps (begin, model, tools, model) as one finished workflow."""
    import psycopg

    events = _turn(web, "/api/chat", {"message": "Guarda 77,4 kg hoy"})
    assert events[0]["type"] == "start"
    assert events[-1]["type"] == "done", events[-1]
    turn = events[-1]["turn"]
    assert turn["stop_reason"] == "completed"
    assert "".join(e["text"] for e in events if e["type"] == "text") == turn["reply"]
    calls = [e["call"] for e in events if e["type"] == "call"]
    assert len(calls) == 1
    assert "ok" in calls[0]["outcome"]
    assert len(web.get("/api/measurements").json()["measurements"]) == 1
    assert _committed(app_url) == [calls[0]["name"]]
    assert [s for _, s in _statuses(app_url)] == ["SUCCESS"]
    with psycopg.connect(app_url) as conn:
        steps = conn.execute(
            "SELECT function_name FROM dbos.operation_outputs ORDER BY function_id"
        ).fetchall()
    assert [r[0] for r in steps] == [
        "surefoot.begin",
        "surefoot.model",
        "surefoot.tools",
        "surefoot.model",
    ]


def test_a_decision_on_the_page_reaches_the_waiting_workflow(
    web: httpx.Client, app_url: str
) -> None:
    """A delete waits for a person (its workflow pending); approving it on the page sends the
    decision to the workflow, which runs the delete once and finishes."""
    saved = _turn(web, "/api/chat", {"message": "Guarda la nota meta: correr 10 km."})
    assert saved[-1]["turn"]["stop_reason"] == "completed"
    asked = _turn(web, "/api/chat", {"message": "Borra la nota meta."})
    paused = asked[-1]["turn"]
    assert paused["stop_reason"] == "awaiting_confirmation"
    pending = paused["pending_confirmation"]
    assert [s for _, s in _statuses(app_url)] == ["SUCCESS", "PENDING"]

    path = f"/api/approvals/{paused['conversation_id']}/{pending['id']}"
    decided = _turn(web, path, {"approved": True})
    turn = decided[-1]["turn"]
    assert turn["stop_reason"] == "completed"
    assert [c["outcome"] for c in turn["tool_calls"]][-1] == {"ok": {"deleted": "meta"}}
    assert [s for _, s in _statuses(app_url)] == ["SUCCESS", "SUCCESS"]
    again = web.post(path, json={"approved": True})
    assert again.status_code == 409
    assert _committed(app_url).count("delete_memory") == 1
