"""``gymnasia --otel``: a real command in its own process exports the GenAI spans where the
standard ``OTEL_*`` variables say: over OTLP/HTTP to a collector (here a loopback receiver
in the test), or to the console on stderr. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

QUESTION = "What did I weigh on 2020-01-01?"
SPANS = {"invoke_agent Gymnasia", "chat gymnasia-offline-rules-2", "execute_tool read_measurement"}


class Collector(HTTPServer):
    """An OTLP/HTTP trace receiver on 127.0.0.1: keeps each export request it is sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.exports: list[tuple[str, ExportTraceServiceRequest]] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        export = ExportTraceServiceRequest()
        export.ParseFromString(body)
        self.server.exports.append((self.path, export))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        del format, args


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def gymnasia(tmp_path: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m gymnasia ARGS`` in its own process, with ``env`` over a clean OTEL_*."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
        env={**base, **env},
    )


def ask(tmp_path: Path, *options: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One offline ``ask`` (a read that finds nothing), answered as JSON."""
    db = str(tmp_path / "coach.db")
    return gymnasia(
        tmp_path, *options, "ask", QUESTION, "--db", db, "--lang", "en", "--json", env=env
    )


def test_otel_exports_the_turn_over_otlp(tmp_path: Path, collector: Collector) -> None:
    """The turn, its model requests and its tool call reach the collector at
    ``OTEL_EXPORTER_OTLP_ENDPOINT``, with the stable code as ``error.type`` and the service
    name from ``OTEL_SERVICE_NAME``; stdout stays the command's JSON."""
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_SERVICE_NAME": "coach-test"}
    out = ask(tmp_path, "--otel", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["stop_reason"] == "completed"
    assert collector.exports, "nothing was exported"
    assert {path for path, _ in collector.exports} == {"/v1/traces"}
    spans = {}
    services = set()
    for _, export in collector.exports:
        for resource_spans in export.resource_spans:
            for attribute in resource_spans.resource.attributes:
                if attribute.key == "service.name":
                    services.add(attribute.value.string_value)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans[span.name] = {a.key: a.value for a in span.attributes}
    assert set(spans) == SPANS
    assert services == {"coach-test"}
    tool = spans["execute_tool read_measurement"]
    assert tool["error.type"].string_value == "not_found"
    assert tool["gen_ai.tool.name"].string_value == "read_measurement"
    assert spans["invoke_agent Gymnasia"]["surefoot.stop_reason"].string_value == "completed"


def test_otel_to_the_console_prints_spans_on_stderr(tmp_path: Path) -> None:
    """``OTEL_TRACES_EXPORTER=console``: each span as JSON on stderr, stdout still one object."""
    out = ask(tmp_path, "--otel", env={"OTEL_TRACES_EXPORTER": "console"})
    assert out.returncode == 0, out.stderr
    json.loads(out.stdout)
    decoder = json.JSONDecoder()
    names, text = set(), out.stderr
    index = text.find("{")
    while index != -1:
        span, end = decoder.raw_decode(text, index)
        names.add(span["name"])
        index = text.find("{", end)
    assert names == SPANS


def test_without_otel_nothing_is_exported(tmp_path: Path, collector: Collector) -> None:
    """The variables alone turn nothing on: without ``--otel`` the collector hears nothing."""
    out = ask(tmp_path, env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint})
    assert out.returncode == 0, out.stderr
    assert collector.exports == []


def test_an_exporter_it_cannot_use_is_one_line(tmp_path: Path) -> None:
    """gRPC (or an unknown exporter) is refused before the turn: one line, exit 2."""
    out = ask(tmp_path, "--otel", env={"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    assert out.returncode == 2
    assert json.loads(out.stdout) == {
        "error": "configuration",
        "message": "--otel exports over OTLP/HTTP (http/protobuf) or to the console, not otlp "
        "(grpc): check OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_PROTOCOL",
    }
