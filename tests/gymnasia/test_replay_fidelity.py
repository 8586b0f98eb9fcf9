"""Replay fidelity: a Gymnasia turn whose journal holds successes that read like
errors and real errors (with details) is recorded live; a new process loads the journal and
rebuilds every provider request byte for byte, marks included, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ADAPTERS = ("anthropic", "openai_responses", "google_interactions", "openai_chat")
CONVERSATION = "c_replay_fidelity"

COMMON = '''
import datetime as dt, importlib, json, sys

from gymnasia.app import open_coach
from surefoot.messages import ModelRequest, message_to_json

ADAPTERS = ("anthropic", "openai_responses", "google_interactions", "openai_chat")
TODAY = dt.date(2020, 1, 5)


def wire(request):
    """Every adapter's request body for ``request``, as the exact JSON text."""
    bodies = {}
    for name in ADAPTERS:
        try:
            module = importlib.import_module("surefoot.providers." + name)
            body = module.build_request(request, model="test-model", max_tokens=256)
        except Exception as exc:
            bodies[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        bodies[name] = {"text": json.dumps(body, ensure_ascii=False, separators=(",", ":"))}
    return {
        "messages": [message_to_json(m) for m in request.messages],
        "count": len(request.messages),
        "wire": bodies,
    }
'''

RECORD = (
    COMMON
    + """
from surefoot.messages import ReasoningPart, TextPart, ToolCall, AssistantMessage
from surefoot.testing import FunctionModel, call, turn

db, conversation, out = sys.argv[1:4]
LOOKS_LIKE_AN_ERROR = 'Error: {"kind": "tool_error", "is_error": true, "error": "not_found"}'
STEPS = [
    AssistantMessage(
        (
            ReasoningPart("anthropic", {"type": "thinking", "thinking": "…", "signature": "sig"}),
            TextPart("Voy a revisar tus datos."),
            call("save_memory", {"key": "nota", "description": "mi nota",
                                 "value": LOOKS_LIKE_AN_ERROR}, call_id="toolu_01"),
            call("read_memory", {"key": "no-existe"}, call_id="call_0"),
            call("write_measurement", {"date": "02/01/2020", "weight_kg": "76kg"},
                 call_id="call_9Xy|fc_68a/1"),
            call("read_measurement", {}, call_id="c" * 80, raw='{"date": "2020-01-0'),
            call("read_measurement", {"date": "2020-01-02"}, call_id="call_1"),
        ),
        finish="tool_use",
        provider="anthropic",
        model="claude-test",
    ),
    turn(call("read_memory", {"key": "nota"}, call_id="call_0"),  # ids reused, as local
         call("list_memory_keys", {}, call_id="call_1")),  # servers do on every turn
    turn("Tu nota dice eso; no hay medidas del 2020-01-02."),
]
live = []


def plan(request):
    live.append(wire(request))
    return STEPS[len(live) - 1]


coach = open_coach(db=db, model=FunctionModel(plan), lang="es", today=TODAY)
import asyncio

result = asyncio.run(coach.agent.run_turn("Guarda mi nota y mira mis medidas.",
                                          conversation_id=conversation))
coach.close()
json.dump({"stop_reason": result.stop_reason, "requests": live}, open(out, "w"))
"""
)

REPLAY = (
    COMMON
    + """
db, conversation, live_path, out = sys.argv[1:5]
live = json.load(open(live_path))
from surefoot.testing import FunctionModel
# the same kind of model as live: a language model is offered the tools its turn needs
coach = open_coach(db=db, model=FunctionModel(lambda *_: None), lang="es", today=TODAY)
journal = coach.agent.journal.load(conversation)
system = coach.agent.system
rebuilt = []
for r in live["requests"]:
    # one turn was recorded: every request carried the journal from its start (no window
    # of the Coach's HISTORY_TURNS cuts a conversation this short)
    messages = tuple(journal[: r["count"]])
    specs = coach.agent.offered(messages)
    rebuilt.append(wire(ModelRequest(messages=messages, tools=specs, system=system)))
coach.close()
json.dump({"journal": len(journal), "requests": rebuilt}, open(out, "w"))
"""
)

_RECORDINGS: dict[str, dict[str, Any]] = {}


def _python(script: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture
def recording(db_url: str, tmp_path: Path) -> dict[str, Any]:
    """The live requests of one recorded turn and the ones a new process rebuilt from the
    journal (recorded once per store, then shared by the tests of this module)."""
    store = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    if store not in _RECORDINGS:
        record, replay = tmp_path / "record.py", tmp_path / "replay.py"
        record.write_text(RECORD)
        replay.write_text(REPLAY)
        live, rebuilt = tmp_path / "live.json", tmp_path / "rebuilt.json"
        _python(record, db_url, CONVERSATION, str(live))
        _python(replay, db_url, CONVERSATION, str(live), str(rebuilt))
        _RECORDINGS[store] = {
            "live": json.loads(live.read_text()),
            "rebuilt": json.loads(rebuilt.read_text()),
        }
    return _RECORDINGS[store]


def _outcomes(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["outcome"] for m in messages if m["kind"] == "tool_results" for r in m["results"]]


def test_the_recorded_turn_holds_look_alike_successes_and_real_errors(
    recording: dict[str, Any],
) -> None:
    """The recorded journal has every kind of result the replay must keep apart."""
    live = recording["live"]
    assert live["stop_reason"] == "completed"
    assert len(live["requests"]) == 3
    outcomes = _outcomes(live["requests"][-1]["messages"])
    codes = [o.get("error", "ok") if "ok" not in o else "ok" for o in outcomes]
    assert codes == [
        "ok",
        "not_found",
        "invalid_arguments",
        "invalid_arguments",
        "not_found",
        "ok",
        "ok",
    ]
    assert "is_error" in outcomes[0]["ok"]["value"]
    assert '"is_error": true' in outcomes[5]["ok"]["value"]
    assert all(o["is_error"] is True for o in outcomes if "ok" not in o)
    assert outcomes[2]["details"], "invalid_arguments must carry details"


def test_a_new_process_rebuilds_the_same_neutral_requests(recording: dict[str, Any]) -> None:
    """Loading the journal in a new process yields every request's transcript unchanged."""
    live, rebuilt = recording["live"]["requests"], recording["rebuilt"]["requests"]
    assert [r["messages"] for r in rebuilt] == [r["messages"] for r in live]
    assert recording["rebuilt"]["journal"] == live[-1]["count"] + 1


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_new_process_rebuilds_byte_identical_provider_requests(
    recording: dict[str, Any], adapter: str
) -> None:
    """Each adapter's request body rebuilt from the journal is the live one, byte for byte."""
    live = [r["wire"][adapter] for r in recording["live"]["requests"]]
    rebuilt = [r["wire"][adapter] for r in recording["rebuilt"]["requests"]]
    for body in (*live, *rebuilt):
        assert "error" not in body, (
            f"surefoot.providers.{adapter}.build_request(request, *, model, max_tokens) "
            f"is required for replay fidelity and failed: {body.get('error')}"
        )
    assert [b["text"] for b in rebuilt] == [b["text"] for b in live]


def _marks(adapter: str, body: dict[str, Any]) -> list[bool]:
    """The error mark of every tool result in a request body, in order, as the wire says."""
    if adapter == "anthropic":
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        return [b.get("is_error") is True for b in blocks if b["type"] == "tool_result"]
    if adapter == "google_interactions":
        steps = [s for s in body["input"] if s.get("type") == "function_result"]
        return [s.get("is_error") is True for s in steps]
    if adapter == "openai_responses":
        outputs = [i["output"] for i in body["input"] if i.get("type") == "function_call_output"]
    else:
        outputs = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    return [json.loads(text).get("is_error") is True for text in outputs]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_rebuilt_requests_keep_every_results_mark(recording: dict[str, Any], adapter: str) -> None:
    """In the rebuilt request, exactly the real errors are marked; look-alikes are not."""
    last = recording["rebuilt"]["requests"][-1]
    body = last["wire"][adapter]
    assert "error" not in body, f"surefoot.providers.{adapter} failed: {body.get('error')}"
    expected = ["ok" not in o for o in _outcomes(last["messages"])]
    assert _marks(adapter, json.loads(body["text"])) == expected
