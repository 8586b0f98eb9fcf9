"""Two ``gymnasia serve`` processes on one PostgreSQL database, driven at once, on the same and
on different conversations: every turn either runs whole or is answered ``409 busy``; no
journal is ever interleaved, and each conversation's next request is one a strict provider
accepts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from surefoot import SqlJournal, open_database
from surefoot.messages import AssistantMessage, Message, ToolResultsMessage, UserMessage
from surefoot.testing import FakeOpenAIChatServer, call, turn
from surefoot.testing._http import RecordedRequest, Reply

sys.path.insert(0, str(Path(__file__).parent.parent / "surefoot"))

from strict_wire import wire_problems

MODEL_DELAY = 0.4
"""How long the fake model takes per request, so that turns overlap."""


class SlowChatModel(FakeOpenAIChatServer):
    """A local chat server answering from the request itself (any number of conversations at
    once): a user message gets a ``save_memory`` call named after it, a tool result gets the
    final answer. Each answer takes ``MODEL_DELAY``."""

    def __init__(self) -> None:
        super().__init__([])
        self._asked: Any = None

    def handle(self, request: RecordedRequest) -> Reply:
        self._asked = request.body
        return super().handle(request)

    def next_turn(self) -> AssistantMessage | None:
        time.sleep(MODEL_DELAY)
        self.served += 1
        messages = self._asked["messages"]
        if messages[-1]["role"] == "tool":
            return turn("Saved.")
        said = messages[-1]["content"]
        note = {"key": said, "description": "from the test", "value": said}
        return turn(call("save_memory", note))


def _free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def workers(pg_url: str, tmp_path: Path) -> Iterator[tuple[list[str], SlowChatModel]]:
    """Two ``gymnasia serve`` processes on ``pg_url``, both on the slow local model."""
    model = SlowChatModel().start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    ports = [_free_port(), _free_port()]
    logs = [(tmp_path / f"serve{port}.log").open("w") for port in ports]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gymnasia",
                "serve",
                "--db",
                pg_url,
                "--port",
                str(port),
                "--provider",
                "openai-chat",
                "--base-url",
                model.base_url + "/v1",
                "--api-key",
                "test-key",
                "--lang",
                "en",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for port, log in zip(ports, logs, strict=True)
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url in urls:
            _wait_ready(url)
        yield urls, model
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)
        for log in logs:
            log.close()
        model.close()


def _wait_ready(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/config", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"{url} did not start")


def _chat(url: str, conversation: str, message: str) -> tuple[int, dict[str, Any] | None]:
    """POST one message; (status, the turn's final JSON when it ran)."""
    body = {"message": message, "conversation_id": conversation}
    response = httpx.post(url + "/api/chat", json=body, timeout=120)
    if response.status_code != 200:
        assert response.json()["error"] == "busy", response.text
        return response.status_code, None
    events = [json.loads(line) for line in response.text.splitlines() if line]
    done = [e["turn"] for e in events if e["type"] == "done"]
    assert len(done) == 1, events
    return 200, done[0]


def _whole_turns(messages: list[Message]) -> None:
    """Turn after turn, never two mixed: a user message, then responses each followed by the
    results of its calls, until a response without calls (or the harness's message) ends it."""
    expecting = "user"
    for message in messages:
        if isinstance(message, UserMessage):
            assert expecting == "user", f"a user message inside another turn: {message}"
            expecting = "response"
        elif isinstance(message, AssistantMessage):
            assert expecting == "response", f"a response out of turn: {message}"
            expecting = "results" if message.tool_calls else "user"
            calls = [c.call_id for c in message.tool_calls]
        elif isinstance(message, ToolResultsMessage):
            assert expecting == "results", f"results out of turn: {message}"
            assert [r.call_id for r in message.results] == calls
            expecting = "response"
        else:
            assert expecting in ("response", "results"), f"a stop out of turn: {message}"
            expecting = "user"
    assert expecting == "user", "the last turn did not end"


def test_two_servers_on_one_database_never_interleave_a_conversation(
    workers: tuple[list[str], SlowChatModel], pg_url: str
) -> None:
    """Eight chats start at once on two servers: four on one shared conversation (two per
    server), four on conversations of their own. Own conversations all run; on the shared
    one each turn runs whole or is busy, at least one is busy, and its journal holds exactly
    the turns that ran, each complete."""
    urls, _ = workers
    plan = [(urls[i % 2], "shared", f"shared-{i}") for i in range(4)]
    plan += [(urls[i % 2], f"own-{i}", f"own-{i}") for i in range(4)]
    results: dict[str, tuple[int, dict[str, Any] | None]] = {}
    start = threading.Barrier(len(plan))

    def run(url: str, conversation: str, message: str) -> None:
        start.wait(30)
        results[message] = _chat(url, conversation, message)

    threads = [threading.Thread(target=run, args=item) for item in plan]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert len(results) == len(plan)
    ran = {message for message, (status, _) in results.items() if status == 200}
    busy = {message for message, (status, _) in results.items() if status == 409}
    assert ran | busy == set(results)
    assert {f"own-{i}" for i in range(4)} <= ran
    assert busy, "two servers started a turn on one conversation at once and neither was busy"
    for message in ran:
        finished = results[message][1]
        assert finished is not None
        assert finished["stop_reason"] == "completed", finished

    database = open_database(pg_url)
    try:
        journal = SqlJournal(database)
        for conversation in {c for _, c, _ in plan}:
            messages = journal.load(conversation)
            said = [m.text for m in messages if isinstance(m, UserMessage)]
            mine = {m for _, c, m in plan if c == conversation}
            assert sorted(said) == sorted(mine & ran), conversation
            _whole_turns(messages)
            assert wire_problems(messages, ()) == {}, conversation
        rows = database.query("SELECT key FROM gym_memory WHERE user_id = 'default'")
    finally:
        database.close()
    assert sorted(r[0] for r in rows) == sorted(ran)
