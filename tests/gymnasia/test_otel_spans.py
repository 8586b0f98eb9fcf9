"""OpenTelemetry spans of Gymnasia's scenarios, caught with the SDK's in-memory exporter:
one turn span, a ``chat`` span per model request and an ``execute_tool`` span per call under
it, with the stable error code as ``error.type``, and nothing of the user's data by default."""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from gymnasia.app import open_coach
from surefoot import Redactor
from surefoot.otel import OtelTracer
from surefoot.testing import ScriptedModel, call, turn

TODAY = dt.date(2020, 1, 5)
SECRET = "sk-test-0123456789abcdef"
FALLBACK = (
    "Look up my weight for 2020-01-02; if there is none, look up 2020-01-01. "
    "Don't create or change anything."
)
SAVE = "Save my weight: 77.0 kg on 2020-01-03."


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    yield memory
    memory.clear()


def provider_for(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def ask(
    db: Path,
    message: str,
    exporter: InMemorySpanExporter,
    *,
    faults: tuple[str, ...] = (),
    model: Any = None,
    capture_content: bool = False,
) -> tuple[Any, list[ReadableSpan]]:
    """One Gymnasia turn with OTel spans going to ``exporter``: its result and the spans."""
    tracer = OtelTracer(
        provider_for(exporter), capture_content=capture_content, redactor=Redactor([SECRET])
    )
    coach = open_coach(
        db=str(db),
        lang="en",
        faults=faults,
        today=TODAY,
        model=model,
        tracer=tracer,
        extra_secrets=(SECRET,),
    )
    try:
        result = asyncio.run(coach.agent.run_turn(message))
    finally:
        coach.close()
    return result, list(exporter.get_finished_spans())


def seed(db: Path) -> None:
    coach = open_coach(db=str(db), lang="en")
    with coach.store.transaction() as tx:
        coach.store.upsert_measurement(tx, dt.date(2020, 1, 1), {"weight_kg": 76.0})
    coach.close()


def named(spans: Sequence[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


def the_turn(spans: Sequence[ReadableSpan]) -> ReadableSpan:
    [turn_span] = named(spans, "invoke_agent ")
    assert turn_span.parent is None
    for child in [*named(spans, "chat "), *named(spans, "execute_tool ")]:
        assert child.parent is not None
        assert child.parent.span_id == turn_span.context.span_id
        assert child.context.trace_id == turn_span.context.trace_id
    return turn_span


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def strings(spans: Sequence[ReadableSpan]) -> list[str]:
    """Every string in every span's name and attributes."""
    found = []
    for span in spans:
        found.append(span.name)
        for value in attrs(span).values():
            values = value if isinstance(value, tuple) else (value,)
            found.extend(str(v) for v in values)
    return found


def test_scenario_1_spans(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    """Three model requests and two reads: the first ``not_found``, the second a success."""
    db = tmp_path / "g.db"
    seed(db)
    result, spans = ask(db, FALLBACK, exporter)
    assert result.stop_reason == "completed"
    turn_span = the_turn(spans)
    assert attrs(turn_span)["gen_ai.operation.name"] == "invoke_agent"
    assert attrs(turn_span)["gen_ai.conversation.id"] == result.conversation_id
    assert attrs(turn_span)["surefoot.stop_reason"] == "completed"
    chats = named(spans, "chat ")
    assert len(chats) == 3
    for chat in chats:
        assert chat.name == f"chat {result_model(chat)}"
        assert attrs(chat)["gen_ai.operation.name"] == "chat"
        assert attrs(chat)["gen_ai.provider.name"] == "offline"
    tools = named(spans, "execute_tool ")
    assert [t.name for t in tools] == ["execute_tool read_measurement"] * 2
    missing, found = (attrs(t) for t in tools)
    assert missing["gen_ai.operation.name"] == "execute_tool"
    assert missing["error.type"] == "not_found"
    assert missing["surefoot.recovery"] == "choose_alternative"
    assert tools[0].status.status_code is StatusCode.ERROR
    assert "error.type" not in found
    assert [a["gen_ai.tool.call.id"] for a in (missing, found)] == [
        c.call.call_id for c in result.calls
    ]
    assert "surefoot.idempotency_key" not in missing  # reads have no key


def result_model(chat: ReadableSpan) -> str:
    return str(attrs(chat)["gen_ai.request.model"])


def test_scenario_2_spans(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    """The write's storage fails before commit: ``not_applied``, its key, the ledger's
    ``failed``, and the turn stopped after one request."""
    db = tmp_path / "g.db"
    seed(db)
    result, spans = ask(db, SAVE, exporter, faults=("write_measurement:before_commit",))
    assert result.stop_reason == "stop_turn"
    turn_span = the_turn(spans)
    assert attrs(turn_span)["surefoot.stop_reason"] == "stop_turn"
    assert len(named(spans, "chat ")) == 1
    [write] = named(spans, "execute_tool ")
    write_attrs = attrs(write)
    assert write_attrs["error.type"] == "not_applied"
    assert write_attrs["surefoot.recovery"] == "stop_turn"
    assert write_attrs["surefoot.idempotency_key"] == result.calls[0].key
    assert write_attrs["surefoot.ledger.state"] == "failed"
    assert write_attrs["surefoot.tool.effect"] == "write"


def test_scenario_2b_spans(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    """An acknowledgement lost and the harness not allowed to check: the call's outcome is
    ``outcome_unknown`` while the span also shows what the ledger itself holds (the fault
    commits the effect with its record before it fails), for the operator to see."""
    result, spans = ask(tmp_path / "g.db", SAVE, exporter, faults=("write_measurement:ambiguous",))
    [write] = named(spans, "execute_tool ")
    assert attrs(write)["error.type"] == "outcome_unknown"
    assert attrs(write)["surefoot.recovery"] == "stop_turn"
    assert attrs(write)["surefoot.idempotency_key"] == result.calls[0].key
    assert attrs(write)["surefoot.ledger.state"] == "committed"


def scenario_4_model() -> ScriptedModel:
    return ScriptedModel(
        [
            turn(call("write_measurement", {"date": "02/01/2020", "weight_kg": "76kg"})),
            turn(call("write_measurement", {"date": "2020-01-02", "weight_kg": 76.0})),
            turn("Saved 76 kg on 2020-01-02."),
        ]
    )


SCENARIO_4 = "Save my weight: 76 kg on 2020-01-02."


def test_scenario_4_spans(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    """Bad arguments: ``invalid_arguments``, not executed, no key; the fixed call commits."""
    result, spans = ask(tmp_path / "g.db", SCENARIO_4, exporter, model=scenario_4_model())
    assert result.stop_reason == "completed"
    the_turn(spans)
    assert len(named(spans, "chat ")) == 3
    bad, good = (attrs(t) for t in named(spans, "execute_tool "))
    assert bad["error.type"] == "invalid_arguments"
    assert bad["surefoot.executed"] is False
    assert "surefoot.idempotency_key" not in bad
    assert "error.type" not in good
    assert good["surefoot.ledger.state"] == "committed"
    assert good["surefoot.idempotency_key"].startswith("sfk_")


@pytest.mark.parametrize("scenario", ["1", "2", "4"])
def test_no_content_and_no_secret_by_default(
    tmp_path: Path, exporter: InMemorySpanExporter, scenario: str
) -> None:
    """By default no attribute carries an argument, a result, a message or a secret."""
    db = tmp_path / "g.db"
    seed(db)
    if scenario == "1":
        _, spans = ask(db, FALLBACK, exporter)
        private = ["2020-01-02", "2020-01-01", "76.0"]
    elif scenario == "2":
        _, spans = ask(db, SAVE, exporter, faults=("write_measurement:before_commit",))
        private = ["2020-01-03", "77.0"]
    else:
        _, spans = ask(db, SCENARIO_4, exporter, model=scenario_4_model())
        private = ["02/01/2020", "76kg", "2020-01-02"]
    texts = strings(spans)
    assert texts
    for value in texts:
        assert SECRET not in value
        for item in private:
            assert item not in value, (item, value)
    keys = {k for span in spans for k in attrs(span)}
    assert not {"gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} & keys


def test_content_is_recorded_only_when_asked_and_redacted(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    """``capture_content=True`` records arguments and results, with secrets redacted."""
    model = ScriptedModel(
        [
            turn(call("save_memory", {"key": "token", "value": f"my key is {SECRET}"})),
            turn("Saved."),
        ]
    )
    _, spans = ask(tmp_path / "g.db", "remember", exporter, model=model, capture_content=True)
    [save] = named(spans, "execute_tool ")
    arguments = attrs(save)["gen_ai.tool.call.arguments"]
    assert "my key is" in arguments
    assert SECRET not in arguments
    assert arguments == '{"key":"token","value":"my key is [redacted]"}'
    assert SECRET not in attrs(save)["gen_ai.tool.call.result"]


def test_importing_surefoot_imports_neither_opentelemetry_nor_mcp() -> None:
    """``import surefoot`` (and Gymnasia's command line) loads no tracing or MCP SDK."""
    code = (
        "import sys, surefoot, gymnasia.cli\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('opentelemetry', 'mcp', 'mcp_types'))\n"
        "print(loaded)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"
