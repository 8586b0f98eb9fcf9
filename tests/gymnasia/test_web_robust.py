"""Requests the web app cannot serve get one clean JSON error in the request's language: a
body over the limit is 413 without being read, malformed JSON is 400, a lone surrogate or
any invalid field is 422 (pydantic's English text never reaches the page, the input is never
echoed back), and a database that cannot be used is 503 with the store's own words."""

from __future__ import annotations

import datetime as dt
import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_browser import running

from gymnasia.store import GymStore
from gymnasia.web import create_app
from gymnasia.web._security import MAX_BODY
from pg_relay import Relay
from surefoot import open_database

BASE = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}
PYDANTIC_WORDS = ("Input should", "Field required", "JSON decode", "value_error", "Extra inputs")


def _seeded(db: Path) -> str:
    store = GymStore(open_database(str(db)))
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 1), {"weight_kg": 76.0})
    store.db.close()
    return str(db)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(db=_seeded(tmp_path / "web.db"), lang="es")
    with TestClient(app, base_url=BASE) as made:
        yield made


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert body["error"] == code
    assert isinstance(body["message"], str)
    assert body["message"]
    for word in PYDANTIC_WORDS:
        assert word not in response.text
    return body


@pytest.mark.parametrize(
    ("url", "body", "status", "code", "says"),
    [
        ("/api/chat", b'{"message": ', 400, "invalid_json", "no es JSON válido"),
        ("/api/chat?lang=en", b'{"message": ', 400, "invalid_json", "not valid JSON"),
        ("/api/chat", b"\xff\xfe{}", 400, "invalid_json", "no es JSON válido"),
        ("/api/chat", b'{"message": "hola \\ud800"}', 422, "invalid_request", "message"),
        ("/api/chat", b'{"message": "", "lang": "pt"}', 422, "invalid_request", "Nada foi feito"),
        ("/api/chat", b'{"message": 5, "lang": "en"}', 422, "invalid_request", "message"),
        ("/api/chat", b"[1, 2]", 422, "invalid_request", "body"),
        ("/api/chat", b'{"message": "x", "\\ud800x": 1}', 422, "invalid_request", "body"),
        ("/api/chat", b'{"message": "x", "lang": "fr"}', 422, "invalid_request", "lang"),
        ("/api/chat", b'{"message": "x", "extra": 1}', 422, "invalid_request", "?"),
        ("/api/approvals/c_1/a_1", b'{"approved": "yes"}', 422, "invalid_request", "approved"),
    ],
)
def test_a_bad_request_is_one_localized_json_error(
    client: TestClient, url: str, body: bytes, status: int, code: str, says: str
) -> None:
    response = client.post(url, content=body, headers=JSON)
    answer = _error(response, status, code)
    assert says in answer["message"]
    assert "\\ud800" not in response.text
    assert "ud800" not in response.text


def test_a_declared_body_over_the_limit_is_refused_unread(client: TestClient) -> None:
    huge = json.dumps({"message": "x" * (MAX_BODY + 10)}).encode()
    answer = _error(client.post("/api/chat", content=huge, headers=JSON), 413, "too_large")
    assert "64 KiB" in answer["message"]


def _raw_post(base: str, head_extra: str, sender: Any) -> tuple[bytes, int]:
    """POST by hand on a socket: ``sender(sock)`` writes the body until the server answers;
    returns the answer and how many body bytes were sent."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    try:
        sock.sendall(
            f"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            f"{head_extra}\r\n".encode()
        )
        sent = sender(sock)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer, sent
    finally:
        sock.close()


def test_a_streamed_body_is_cut_at_the_limit(tmp_path: Path) -> None:
    """Through a real server: a Content-Length of 100 MB is refused before any body is sent,
    and a chunked body with no end is refused once it passes the limit, long before it ends;
    the answer is a JSON 413 each time."""
    app = create_app(db=_seeded(tmp_path / "web.db"), lang="en")
    with running(app) as base:
        answer, _ = _raw_post(base, f"content-length: {100 * 1024 * 1024}\r\n", lambda _: 0)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b'"too_large"' in answer

        def endless(sock: socket.socket) -> int:
            sock.setblocking(False)
            sent = 0
            chunk = b"1000\r\n" + b"x" * 4096 + b"\r\n"
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    if sock.recv(1, socket.MSG_PEEK):
                        break  # the server answered
                except BlockingIOError:
                    pass
                try:
                    sent += sock.send(chunk)
                except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                    time.sleep(0.01)
            sock.setblocking(True)
            return sent

        answer, sent = _raw_post(base, "transfer-encoding: chunked\r\n", endless)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b"too large" in answer
        assert sent < 4 * 1024 * 1024  # it stopped reading; the client did not send it all


def test_a_locked_database_is_a_503_in_the_pages_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _seeded(tmp_path / "locked.db")
    monkeypatch.setenv("GYMNASIA_DB_TIMEOUT", "0.2")
    app = create_app(db=db, lang="es")
    holder = sqlite3.connect(db, isolation_level=None)
    with TestClient(app, base_url=BASE) as client:
        holder.execute("BEGIN EXCLUSIVE")
        try:
            # reads go on beside another process's write (each is one statement, and SQLite's
            # WAL lets it read while that process writes); a write waits, then is refused
            assert client.get("/api/measurements?lang=pt").status_code == 200
            edit = client.post(
                "/api/measurements/2020-01-01/edit?lang=pt", json={"weight_kg": 77.0}
            )
            answer = _error(edit, 503, "store_locked")
            assert "está bloqueado por outro processo" in answer["message"]
            assert edit.headers["retry-after"] == "5"
            chat = client.post("/api/chat", json={"message": "hola", "lang": "en"})
            answer = _error(chat, 503, "store_locked")
            assert "locked by another process" in answer["message"]
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert client.get("/api/measurements").status_code == 200  # and then it works again


def test_a_postgresql_server_that_stops_answering_is_a_503_not_a_hang(
    pg_relay: tuple[Relay, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its host paused or the network losing packets, the server neither answers nor refuses.
    The worker's call gives up after ``GYMNASIA_DB_TIMEOUT`` seconds, the calls after it fail
    at once, people get a 503 with Retry-After in their language, the readiness probe says
    so, and all of it works again once the server answers."""
    relay, url = pg_relay
    monkeypatch.setenv("GYMNASIA_DB_TIMEOUT", "0.5")
    answers: list[Any] = []
    with TestClient(create_app(db=url, lang="es"), base_url=BASE) as client:
        assert client.get("/api/measurements").status_code == 200
        relay.frozen.set()
        edit = "/api/measurements/2020-01-01/edit?lang=pt"
        # within GYMNASIA_DB_TIMEOUT's 0.5 s (and the worker's own work), not the default 10 s
        save = {"weight_kg": 77.0}
        assert relay.ends(lambda: answers.append(client.post(edit, json=save)), seconds=5) is None
        assert relay.ends(lambda: answers.append(client.get("/readyz?lang=en"))) is None
        assert (
            relay.ends(lambda: answers.append(client.post("/api/chat", json={"message": "hola"})))
            is None
        )
        saved, ready, chat = answers
        answer = _error(saved, 503, "store_unavailable")
        assert answer["message"].startswith("não é possível conectar ao banco de dados")
        assert saved.headers["retry-after"] == "5"
        assert ready.status_code == 503
        assert ready.json()["message"].startswith("The database is not answering")
        _error(chat, 503, "store_unavailable")
        assert client.get("/healthz").status_code == 200
        relay.frozen.clear()
        deadline = time.monotonic() + 20
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the server answers again, but not the app"
            time.sleep(0.1)
        assert client.get("/api/measurements").status_code == 200
