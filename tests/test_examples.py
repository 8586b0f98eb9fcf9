"""Every program in ``examples/`` runs as a person would run it (this interpreter, a
subprocess, a fresh working folder, bounded in time) and prints what its docstring promises.
No example reaches a real model: the local-model one is pointed at a closed port, or at a
fake server on 127.0.0.1."""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from surefoot.testing import FakeOpenAIChatServer, RecordedRequest, Reply, call, turn

EXAMPLES = Path(__file__).parent.parent / "examples"
TIMEOUT = 60


def run(
    name: str, tmp_path: Path, *, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python examples/<name>`` in ``tmp_path``; it must exit 0."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=tmp_path,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_every_example_is_run_here_and_says_what_it_shows() -> None:
    """Each program has a docstring saying how to run it, and a test in this module."""
    names = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert len(names) >= 6
    tested = Path(__file__).read_text(encoding="utf-8")
    for name in names:
        doc = ast.get_docstring(ast.parse((EXAMPLES / name).read_text(encoding="utf-8")))
        assert doc, f"examples/{name} has no docstring"
        assert f"python examples/{name}" in doc, f"examples/{name} does not say how to run it"
        assert f'"{name}"' in tested, f"examples/{name} is run by no test"


def test_first_tool(tmp_path: Path) -> None:
    """The missing date is an error with its code and recovery; the fallback is data."""
    out = run("first_tool.py", tmp_path).stdout.splitlines()
    assert out == [
        "read_weight({'date': '2020-01-02'}) -> error not_found (choose_alternative)",
        "read_weight({'date': '2020-01-01'}) -> {'date': '2020-01-01', 'weight_kg': 76.0}",
        "reply (model): Nothing is saved for 2020-01-02; on 2020-01-01 you weighed 76 kg.",
    ]


@pytest.mark.parametrize(
    ("answer", "ran", "reply", "left"),
    [
        ("y\n", "ran", "Done: the note about water is gone.", "['n2']"),
        ("n\n", "not run", "I kept the note (denied).", "['n1', 'n2']"),
    ],
)
def test_approval(tmp_path: Path, answer: str, ran: str, reply: str, left: str) -> None:
    """The write waits for the person: yes runs it once, no leaves the notes as they were."""
    out = run("approval.py", tmp_path, stdin=answer).stdout
    assert "turn paused (awaiting_confirmation): delete_note({'note_id': 'n1'})" in out
    assert f"delete_note: {ran}\n" in out
    assert f"reply (model): {reply}\n" in out
    assert out.endswith(f"notes left: {left}\n")


def test_crash_and_resume(tmp_path: Path) -> None:
    """The child dies after its commit; the resumed turn answers from the ledger: one row."""
    out = run("crash_and_resume.py", tmp_path).stdout.splitlines()
    assert out == [
        "child process died mid-turn (exit 3)",
        "unfinished turn in the journal: True",
        "resumed: save_weight ran again: False; outcome: {'day': '2020-01-01', 'kg': 76.0}",
        "reply: Saved: 76 kg on 2020-01-01.",
        "rows in the table: 1 [('2020-01-01', 76.0)]",
        "ledger: [('save_weight', 'committed')]",
    ]


def test_streaming(tmp_path: Path) -> None:
    """The tool's line, then the streamed reply in full, over two streamed requests."""
    out = run("streaming.py", tmp_path).stdout.splitlines()
    assert out == [
        "[weekly_plan -> ok]",
        "Train on Monday, Wednesday and Friday: three full-body sessions with a day of rest.",
        "(2 streamed requests, stop: completed)",
    ]


def test_mcp_contract(tmp_path: Path) -> None:
    """Across MCP the error keeps its code and recovery, and the write carries its key."""
    out = run("mcp_contract.py", tmp_path).stdout.splitlines()
    assert out[:3] == [
        "remote tools: ['read_weight', 'save_weight']",
        "read_weight -> ToolError not_found (choose_alternative)",
        "read_weight -> Ok {'date': '2020-01-01', 'weight_kg': 76.0}",
    ]
    assert out[3].startswith("save_weight -> Ok {'date': '2020-01-02', 'weight_kg': 75.5} key=sfk_")
    assert out[4] == "reply: Saved 75.5 kg for 2020-01-02 (the day before, you weighed 76 kg)."


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound but not listening, held for the test: connecting is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_local_model_skips_cleanly_without_a_server(tmp_path: Path, closed_port: int) -> None:
    """Nothing answers at the configured address: it says so and why, and exits 0."""
    url = f"http://127.0.0.1:{closed_port}/v1"
    out = run("local_model.py", tmp_path, env={"SUREFOOT_LOCAL_BASE_URL": url}).stdout
    assert out == (
        f"skipped: no OpenAI-compatible server answers at {url}\n"
        "start one (llama-server, ollama serve) or set SUREFOOT_LOCAL_BASE_URL\n"
    )


class ListingChatServer(FakeOpenAIChatServer):
    """The fake chat server, also answering ``GET /v1/models`` as llama-server does."""

    def handle(self, request: RecordedRequest) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return Reply.json(200, {"object": "list", "data": [{"id": "qwen-local"}]})
        return super().handle(request)


def test_local_model_runs_a_turn_on_a_server(tmp_path: Path) -> None:
    """With a server answering (a fake one here), it takes the listed model and runs a turn."""
    script = [
        turn(call("read_weight", {"date": "2020-01-02"})),
        turn(call("read_weight", {"date": "2020-01-01"})),
        turn("Nothing on 2020-01-02; 76 kg on 2020-01-01."),
    ]
    with ListingChatServer(script, model="qwen-local") as server:
        env = {"SUREFOOT_LOCAL_BASE_URL": server.base_url + "/v1"}
        out = run("local_model.py", tmp_path, env=env).stdout.splitlines()
        assert [body["model"] for body in server.bodies] == ["qwen-local"] * 3
    assert out == [
        "read_weight({'date': '2020-01-02'}) -> error not_found",
        "read_weight({'date': '2020-01-01'}) -> {'date': '2020-01-01', 'weight_kg': 76.0}",
        "reply (model, qwen-local): Nothing on 2020-01-02; 76 kg on 2020-01-01.",
    ]


def test_typed_results(tmp_path: Path) -> None:
    """A pydantic model and a dataclass reach the model as JSON objects (ISO dates, enum values)."""
    out = run("typed_results.py", tmp_path).stdout.splitlines()
    assert out == [
        "read_measurement -> {'day': '2020-01-08', 'weight_kg': 75.2}",
        (
            "summarize -> {'first': {'day': '2020-01-01', 'weight_kg': 76.0}, "
            "'last': {'day': '2020-01-08', 'weight_kg': 75.2}, 'trend': 'down'}"
        ),
        "reply: On 2020-01-08 you weighed 75.2 kg, down from 76 kg a week before.",
    ]
