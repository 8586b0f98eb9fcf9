"""The acceptance scenarios (1, 2, 4, 5, 6, and a provider outage) for every wire API,
through the real ``gymnasia ask --json`` in a subprocess, against surefoot's strict fake provider
servers on 127.0.0.1, scripted with the turns a model would produce.

Besides the ``--json`` contract every test that can asserts on the request bodies the
official SDK actually sent, where the error mark lives: Anthropic ``tool_result``
``is_error: true`` with content; OpenAI ``function_call_output`` with the envelope in ``output``
and no extra field; Google ``function_result`` with ``name``, ``is_error: true`` and an object
``result``; Chat Completions ``role: "tool"`` with the envelope in ``content``.

Speed: each ``ask`` process pays its SDK's import (``anthropic`` alone takes ~4 s of CPU here), so
every scenario's ``ask`` runs for all providers start together on a small thread pool (longest
first) when the first test needs them, and each test only asserts on its own run. The data
commands (``measurements``, ``writes``) run the same Typer app in this process, which saves a
Python start per command; Typer's runner swaps the global ``sys.stdout``, and so does pytest
between tests, so they run on the main thread only (seeding in the fixtures, checks in the
tests). The pool threads only run ``ask`` processes and the fake servers; a snapshot taken while
a request is being answered reads through the library instead.
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from surefoot.testing import (
    FakeAnthropicServer,
    FakeGoogleInteractionsServer,
    FakeOpenAIChatServer,
    FakeOpenAIResponsesServer,
    call,
    turn,
)

sys.path.insert(0, str(Path(__file__).parent))

from provider_scenarios import (  # the shared scenario code
    SCENARIO_1,
    SCENARIO_4,
    CliRunAsk,
    check_scenario_1,
    check_scenario_4,
    seed_scenario_1,
)

PROVIDERS = ("anthropic", "openai", "google", "openai-chat")
FAKES: dict[str, Any] = {
    "anthropic": FakeAnthropicServer,
    "openai": FakeOpenAIResponsesServer,
    "google": FakeGoogleInteractionsServer,
    "openai-chat": FakeOpenAIChatServer,
}
COST = {"anthropic": 3, "google": 2, "openai": 1, "openai-chat": 1}
"""Relative start-up cost of an ``ask`` per provider (SDK import), to schedule longest first."""
API_KEY = "test-key"
TODAY = "2020-01-05"
ASK_TIMEOUT = 180.0
LANG_OF = {"anthropic": "es", "openai": "pt", "google": "en", "openai-chat": "en"}
"""The failure scenarios run each provider in one language, so es, pt and en are all covered."""

NOTE_KEY = "training_note"
LOOKS_LIKE_AN_ERROR = 'Error: {"is_error": true}'
NOTE = {"key": NOTE_KEY, "description": "What the user dictated", "value": LOOKS_LIKE_AN_ERROR}
LEAK = "sekrit-7731"
"""Planted in the outage servers' error bodies: it must never reach the user or the JSON."""

NOTHING_SAVED = {"es": "no se guardó nada", "pt": "nada foi salvo", "en": "nothing was saved"}
CANT_CONFIRM = {"es": "no puede confirmar", "pt": "não consegue confirmar", "en": "can't confirm"}
PROVIDER_WORD = {"es": "proveedor", "pt": "fornecedor", "en": "provider"}
SAVE_0103 = {
    "es": "Guarda mi peso: 77 kg el 2020-01-03.",
    "pt": "Salve meu peso: 77 kg em 2020-01-03.",
    "en": "Save my weight: 77 kg on 2020-01-03.",
}
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
ID_RULES: dict[str, Callable[[str], bool]] = {
    "anthropic": lambda wire: bool(ANTHROPIC_ID.match(wire)),
    "openai": lambda wire: 0 < len(wire) <= 64,
    "google": bool,
    "openai-chat": lambda wire: 0 < len(wire) <= 40,
}
UNIQUE_IDS = frozenset({"anthropic", "openai", "google"})
"""APIs whose call ids must be unique in the whole conversation (not only in one turn)."""


def _environment() -> dict[str, str]:
    drop = {
        "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
    }  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("GYMNASIA_")}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1"
    return env


ENV = _environment()


# -- running the command line ------------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """One ``gymnasia ask --json`` process: its exit code, its one JSON object, its stderr."""

    returncode: int
    turn: dict[str, Any]
    stdout: str
    stderr: str


def ask(provider: str, url: str, db: str, message: str, *options: str, lang: str = "en") -> Asked:
    """Run ``gymnasia ask MESSAGE --provider P --base-url URL ... --json`` in a new process."""
    argv = [
        sys.executable, "-m", "gymnasia", "ask", message, "--provider", provider,
        "--base-url", url, "--api-key", API_KEY, "--db", db, "--today", TODAY, "--json",
        "--lang", lang, "--timeout", "30", *options,
    ]  # fmt: skip
    proc = subprocess.run(
        argv, env=ENV, capture_output=True, text=True, timeout=ASK_TIMEOUT, check=False
    )
    try:
        value, end = json.JSONDecoder().raw_decode(proc.stdout)
    except ValueError:
        pytest.fail(f"ask printed no JSON (exit {proc.returncode}): {proc.stderr[-3000:]}")
    assert proc.stdout[end:].strip() == "", "ask --json printed more than one JSON value"
    assert isinstance(value, dict), value
    return Asked(proc.returncode, value, proc.stdout, proc.stderr)


def data_command(*args: str) -> Any:
    """Run a data command of the real ``gymnasia`` Typer app in this process and return its
    result (``exit_code``, ``stdout``, ``stderr``). Main thread only: the runner swaps
    ``sys.stdout``, which pytest also does between tests."""
    assert threading.current_thread() is threading.main_thread(), "data commands: main thread"
    from typer.testing import CliRunner

    from gymnasia.cli import app

    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def db_state(db: str) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """(measurements, ledger (tool, state) pairs) read through the library: safe on any
    thread, for snapshots taken while a request is being answered."""
    from gymnasia.store import GymStore
    from surefoot import SqlLedger, open_database

    database = open_database(db, create=False)
    try:
        rows = GymStore(database).list_measurements()
        return rows, [(e.tool, e.state) for e in SqlLedger(database).entries()]
    finally:
        database.close()


def data_json(db: str, *args: str) -> Any:
    """``gymnasia ARGS --json --db DB`` (exit 0 checked), decoded."""
    result = data_command(*args, "--json", "--db", db)
    assert result.exit_code == 0, (args, result.exit_code, result.stderr)
    return json.loads(result.stdout)


@dataclass
class InProcessData(CliRunAsk):
    """``CliRunAsk`` (``ask`` in a subprocess, any thread) whose data commands run in this
    process (main thread)."""

    def cli(self, *args: str) -> str:
        """Run a data command on the same database and return its stdout (exit 0 checked)."""
        result = data_command(*args, "--db", self.db)
        assert result.exit_code == 0, (args, result.exit_code, result.stderr)
        return str(result.stdout)


def data_on(db: str) -> InProcessData:
    """A ``RunAsk`` for the shared scenarios' data steps and checks on ``db``."""
    return InProcessData(db=db, env=ENV)


def run_ask_for(provider: str, url: str, db: str) -> InProcessData:
    """The shared scenarios' ``RunAsk`` for one provider behind a fake at ``url``."""
    return InProcessData(
        db=db,
        provider=provider,
        base_url=url,
        env=ENV,
        timeout=ASK_TIMEOUT,
        extra=("--api-key", API_KEY, "--timeout", "30"),
    )


# -- fake providers ----------------------------------------------------------------------------


def base_url(provider: str, fake: Any) -> str:
    """What ``--base-url`` must be for ``fake`` (the OpenAI SDK wants the ``/v1`` in it)."""
    return str(fake.base_url) + ("/v1" if provider in ("openai", "openai-chat") else "")


@functools.cache
def _probing(base: type) -> type:
    class Probing(base):  # type: ignore[misc]
        """The strict fake, calling ``probe()`` as each request arrives (before answering)
        and keeping every answer's status and body (``replies``)."""

        probe: Callable[[], Any] | None = None
        snapshots: list[Any]
        probe_seconds: list[float]
        replies: list[tuple[int, str]]

        def handle(self, request: Any) -> Any:
            if self.probe is not None:
                started = time.monotonic()
                try:
                    self.snapshots.append(self.probe())
                except BaseException as exc:  # noqa: BLE001 - shown by the test, not lost
                    self.snapshots.append(f"the probe failed: {exc!r}\n{traceback.format_exc()}")
                self.probe_seconds.append(round(time.monotonic() - started, 2))
            reply = super().handle(request)
            body = reply.body if isinstance(reply.body, bytes) else b"<stream>"
            self.replies.append((reply.status, body.decode("utf-8", "replace")[:500]))
            return reply

    return Probing


def fake_server(
    provider: str, turns: Sequence[Any], *, probe: Callable[[], Any] | None = None, **options: Any
) -> Any:
    """The strict fake of ``provider`` scripted with ``turns``; ``probe`` snapshots state as
    every request arrives (``fake.snapshots``)."""
    fake = _probing(FAKES[provider])(turns, **options)
    fake.probe = probe
    fake.snapshots = []
    fake.probe_seconds = []
    fake.replies = []
    return fake


class StatusServer:
    """A loopback HTTP server that answers every request with ``status`` and a JSON body
    (``x-should-retry: false``, so the SDKs that honour it do not retry)."""

    def __init__(self, status: int, payload: Mapping[str, Any]) -> None:
        self.status = status
        self.body = json.dumps(payload).encode()
        self.hits = 0
        self._server: ThreadingHTTPServer | None = None

    def __enter__(self) -> StatusServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                outer.hits += 1
                self.send_response(outer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(outer.body)))
                self.send_header("x-should-retry", "false")
                self.end_headers()
                self.wfile.write(outer.body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                del format, args

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


# -- what the SDK sent -------------------------------------------------------------------------


@dataclass(frozen=True)
class WireResult:
    """One tool result in a request body: the id it answers, its raw item, its decoded data."""

    call_id: str
    item: dict[str, Any]
    payload: Any


def _decoded(text: object) -> Any:
    assert isinstance(text, str), f"a result's text is not a string: {text!r}"
    assert text, "a result with empty text"
    return json.loads(text)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def wire_calls(provider: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """Every tool call in the request's history: (wire id, tool name), in order."""
    if provider == "anthropic":
        return [
            (block["id"], block["name"])
            for message in body["messages"]
            if message["role"] == "assistant"
            for block in _blocks(message)
            if block["type"] == "tool_use"
        ]
    if provider in ("openai", "google"):
        key = "call_id" if provider == "openai" else "id"
        return [(i[key], i["name"]) for i in body["input"] if i.get("type") == "function_call"]
    return [
        (c["id"], c["function"]["name"])
        for message in body["messages"]
        if message["role"] == "assistant"
        for c in message.get("tool_calls") or ()
    ]


def wire_results(provider: str, body: dict[str, Any]) -> list[WireResult]:
    """Every tool result in the request's history, in order."""
    if provider == "anthropic":
        return [
            WireResult(block["tool_use_id"], block, _decoded(block.get("content")))
            for message in body["messages"]
            if message["role"] == "user"
            for block in _blocks(message)
            if block["type"] == "tool_result"
        ]
    if provider == "openai":
        return [
            WireResult(item["call_id"], item, _decoded(item.get("output")))
            for item in body["input"]
            if item.get("type") == "function_call_output"
        ]
    if provider == "google":
        return [
            WireResult(step["call_id"], step, step.get("result"))
            for step in body["input"]
            if step.get("type") == "function_result"
        ]
    return [
        WireResult(m["tool_call_id"], m, _decoded(m.get("content")))
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def assert_carries(provider: str, result: WireResult, name: str, outcome: dict[str, Any]) -> None:
    """``result`` carries the ``--json`` ``outcome`` of tool ``name``, with the provider's
    error mark exactly when the outcome is an error."""
    is_error = "ok" not in outcome
    assert result.payload == (outcome if is_error else outcome["ok"]), (result.item, outcome)
    item = result.item
    if provider in ("anthropic", "google"):
        if is_error:
            assert item.get("is_error") is True, item
        else:
            assert "is_error" not in item, f"a success went out marked: {item}"
    if provider == "anthropic":
        assert set(item) == {"type", "tool_use_id", "content"} | (
            {"is_error"} if is_error else set()
        )
        assert item["content"], item
    elif provider == "openai":
        assert set(item) == {"type", "call_id", "output"}, f"an invented field: {item}"
    elif provider == "google":
        assert item["name"] == name, item
        assert isinstance(item["result"], dict), item
    else:
        assert set(item) == {"role", "tool_call_id", "content"}, item
        assert item["role"] == "tool", item


def outcomes(*turns: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, outcome) of every call in ``--json`` turns, in order."""
    return [(c["name"], c["outcome"]) for t in turns for c in t["tool_calls"]]


def assert_history_carries(
    provider: str, body: dict[str, Any], expected: list[tuple[str, dict[str, Any]]]
) -> None:
    """The request's whole history answers every call, in order, with its recorded outcome
    and mark."""
    calls = wire_calls(provider, body)
    results = wire_results(provider, body)
    assert [name for _, name in calls] == [name for name, _ in expected], calls
    assert [r.call_id for r in results] == [wire for wire, _ in calls], (calls, results)
    for result, (name, outcome) in zip(results, expected, strict=True):
        assert_carries(provider, result, name, outcome)


# -- running many processes at once ------------------------------------------------------------


@dataclass
class Run:
    """What one scripted run left behind (``db`` is its database, for the tests to inspect)."""

    db: str
    asked: Asked | None = None
    turn: dict[str, Any] = field(default_factory=dict)
    bodies: list[Any] = field(default_factory=list)
    snapshots: list[Any] = field(default_factory=list)
    after: dict[str, Any] = field(default_factory=dict)
    hits: int | None = None
    replies: list[tuple[int, str]] = field(default_factory=list)


def process(run: Run) -> Asked:
    """The ``ask`` process of ``run``."""
    assert run.asked is not None, "this run has no ask process"
    return run.asked


Jobs = dict[tuple[str, str], Callable[[], Run]]


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    """Threads that wait on ``ask`` processes (a little more than the cores: runs also wait)."""
    with ThreadPoolExecutor(max_workers=(os.cpu_count() or 2) + 1) as executor:
        yield executor


def start(pool: ThreadPoolExecutor, jobs: Jobs) -> dict[tuple[str, str], Future[Run]]:
    """Submit ``jobs`` keyed (scenario, provider), the costliest providers first."""
    order = sorted(jobs, key=lambda key: -COST.get(key[1], 1))
    return {key: pool.submit(jobs[key]) for key in order}


def db_in(tmp: Path, name: str) -> str:
    """A new database path in ``tmp``."""
    return str(tmp / f"{name}.db")


# -- scenarios 1, 4, 5 -------------------------------------------------------------------------


def run_scenario_1(provider: str, db: str) -> Run:
    """Scenario 1's turn (the fixture seeded 76 kg on 2020-01-01): two reads, the first
    not_found, then the answer."""
    turns = [
        turn(call("read_measurement", {"date": "2020-01-02"}, call_id="s1_first")),
        turn(call("read_measurement", {"date": "2020-01-01"}, call_id="s1_second")),
        turn("No record for 2020-01-02. On 2020-01-01 there is 76 kg."),
    ]
    with fake_server(provider, turns) as fake:
        turn_json = run_ask_for(provider, base_url(provider, fake), db)(SCENARIO_1)
    return Run(db, turn=turn_json, bodies=[r.body for r in fake.requests])


def run_scenario_4(provider: str, db: str) -> Run:
    """Scenario 4's turn: a bad write_measurement, then a fixed one; the database and the
    ledger are snapshotted as each model request arrives."""
    turns = [
        turn(call("write_measurement", {"date": "02/01/2020", "weight_kg": "76kg"}, call_id="s4_bad")),  # noqa: E501
        turn(call("write_measurement", {"date": "2020-01-02", "weight_kg": 76}, call_id="s4_good")),
        turn("Saved: 76 kg on 2020-01-02."),
    ]  # fmt: skip

    with fake_server(provider, turns, probe=functools.partial(db_state, db)) as fake:
        turn_json = run_ask_for(provider, base_url(provider, fake), db)(SCENARIO_4)
    return Run(
        db,
        turn=turn_json,
        bodies=[r.body for r in fake.requests],
        snapshots=fake.snapshots,
        after={"probe_seconds": fake.probe_seconds},
    )


def run_scenario_5(provider: str, db: str) -> Run:
    """Scenario 5: a note whose value reads like an error is saved, then read back."""
    turns = [
        turn(
            call(
                "save_memory",
                NOTE,
                call_id="s5_save",
            )
        ),
        turn(call("read_memory", {"key": NOTE_KEY}, call_id="s5_read")),
        turn("Your note reads: Error: is_error true. It is only a note."),
    ]  # fmt: skip
    with fake_server(provider, turns) as fake:
        asked = ask(provider, base_url(provider, fake), db, "Save a note, then read it back.")
    return Run(db, asked=asked, turn=asked.turn, bodies=[r.body for r in fake.requests])


@pytest.fixture(scope="module")
def turns_runs(
    pool: ThreadPoolExecutor, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Future[Run]]:
    """Scenarios 1, 4 and 5 for every provider, started together (scenario 1 seeded first,
    with ``gymnasia measurements add``)."""
    tmp = tmp_path_factory.mktemp("turns")
    runners = {"s1": run_scenario_1, "s4": run_scenario_4, "s5": run_scenario_5}
    jobs: Jobs = {}
    for name, runner in runners.items():
        for p in PROVIDERS:
            db = db_in(tmp, f"{name}-{p}")
            if name == "s1":
                seed_scenario_1(data_on(db))
            jobs[(name, p)] = functools.partial(runner, p, db)
    return start(pool, jobs)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_1_follows_the_not_found_to_the_fallback_date(
    turns_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """Scenario 1: not_found/choose_alternative on 01-02, then 01-01's 76 kg; nothing written."""
    run = turns_runs[("s1", provider)].result()
    check_scenario_1(data_on(run.db), run.turn)
    calls = run.turn["tool_calls"]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("read_measurement", {"date": "2020-01-02"}),
        ("read_measurement", {"date": "2020-01-01"}),
    ], calls
    assert (calls[0]["outcome"]["error"], calls[0]["outcome"]["recovery"]) == (
        "not_found",
        "choose_alternative",
    )
    assert run.turn["model_requests"] == 3 == len(run.bodies)
    assert (run.turn["provider"], run.turn["reply_author"]) == (provider, "model")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_1_sends_the_not_found_back_with_the_providers_error_mark(
    turns_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """The not_found goes back marked the provider's way; the 76 kg read goes back unmarked."""
    run = turns_runs[("s1", provider)].result()
    first, second = run.turn["tool_calls"]
    [result] = wire_results(provider, run.bodies[1])
    assert result.payload["is_error"] is True
    assert_carries(provider, result, "read_measurement", first["outcome"])
    assert_history_carries(provider, run.bodies[2], outcomes(run.turn))
    assert second["outcome"]["ok"]["weight_kg"] == 76.0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_4_rejects_bad_arguments_before_the_handler_runs(
    turns_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """Bad "76kg"/"02/01/2020" never reach the store; the corrected call saves exactly one row."""
    run = turns_runs[("s4", provider)].result()
    assert len(run.bodies) == 3, (len(run.bodies), run.snapshots, run.after["probe_seconds"])
    check_scenario_4(data_on(run.db), run.turn)
    bad, good = run.turn["tool_calls"]
    assert bad["executed"] is False
    assert bad["outcome"]["error"] == "invalid_arguments"
    assert {d["field"] for d in bad["outcome"]["details"]} == {"date", "weight_kg"}
    assert good["executed"] is True
    assert good["outcome"]["ok"]["weight_kg"] == 76.0
    assert len(run.snapshots) == 3
    assert run.snapshots[1] == ([], []), "the invalid call left a row or a ledger entry"
    [only] = data_json(run.db, "measurements", "list")
    assert (only["date"], only["weight_kg"]) == ("2020-01-02", 76.0)
    [write] = data_json(run.db, "writes")
    assert (write["state"], write["attempt"], write["arguments"]["date"]) == (
        "committed",
        1,
        "2020-01-02",
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_4_sends_the_invalid_arguments_envelope_with_details(
    turns_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """The second request carries the invalid_arguments envelope, details included, marked."""
    run = turns_runs[("s4", provider)].result()
    assert len(run.bodies) == 3, (len(run.bodies), run.snapshots, run.after["probe_seconds"])
    bad = run.turn["tool_calls"][0]
    [result] = wire_results(provider, run.bodies[1])
    assert_carries(provider, result, "write_measurement", bad["outcome"])
    assert result.payload["recovery"] == "correct_arguments"
    assert {d["field"] for d in result.payload["details"]} == {"date", "weight_kg"}
    assert_history_carries(provider, run.bodies[2], outcomes(run.turn))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_5_a_note_that_reads_like_an_error_stays_a_success(
    turns_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """save_memory and read_memory of 'Error: {"is_error": true}' are both {"ok": ...}."""
    run = turns_runs[("s5", provider)].result()
    assert process(run).returncode == 0, process(run).stderr
    assert run.turn["stop_reason"] == "completed"
    saved, read = run.turn["tool_calls"]
    assert set(saved["outcome"]) == {"ok"}, saved
    assert set(read["outcome"]) == {"ok"}, read
    assert saved["outcome"]["ok"]["value"] == LOOKS_LIKE_AN_ERROR
    assert read["outcome"]["ok"] == {
        "key": NOTE_KEY,
        "description": "What the user dictated",
        "value": LOOKS_LIKE_AN_ERROR,
    }
    [write] = data_json(run.db, "writes")
    assert (write["tool"], write["state"]) == ("save_memory", "committed")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_5_sends_look_alike_successes_without_an_error_mark(
    turns_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """The requests after save_memory and after read_memory carry both results unmarked."""
    run = turns_runs[("s5", provider)].result()
    saved = run.turn["tool_calls"][0]
    [after_save] = wire_results(provider, run.bodies[1])
    assert_carries(provider, after_save, "save_memory", saved["outcome"])
    assert_history_carries(provider, run.bodies[2], outcomes(run.turn))
    assert wire_results(provider, run.bodies[2])[1].payload["value"] == LOOKS_LIKE_AN_ERROR


# -- scenario 2 and a provider outage ----------------------------------------------------------


def run_write_fault(provider: str, db: str, mode: str) -> Run:
    """One write_measurement under ``--fault write_measurement:MODE``; the script has a second
    turn that a stopped turn must never ask for."""
    lang = LANG_OF[provider]
    turns = [
        turn(call("write_measurement", {"date": "2020-01-03", "weight_kg": 77.0}, call_id="s2_w")),
        turn("This turn must never be requested."),
    ]
    with fake_server(provider, turns) as fake:
        asked = ask(
            provider,
            base_url(provider, fake),
            db,
            SAVE_0103[lang],
            "--fault",
            f"write_measurement:{mode}",
            lang=lang,
        )
    return Run(db, asked=asked, turn=asked.turn, bodies=[r.body for r in fake.requests])


OUTAGE_BODY: dict[str, dict[str, Any]] = {
    "anthropic": {
        "type": "error",
        "error": {"type": "overloaded_error", "message": f"Overloaded {LEAK}"},
    },
    "google": {"error": {"code": 503, "message": f"unavailable {LEAK}", "status": "UNAVAILABLE"}},
}  # fmt: skip


def run_outage(provider: str, db: str) -> Run:
    """The model provider fails: Anthropic answers 529, Google 503, the OpenAI fake runs out
    of script after one tool round (500 mid-turn), and nothing listens for openai-chat."""
    lang = LANG_OF[provider]
    message = SAVE_0103[lang]
    if provider in OUTAGE_BODY:
        status = 529 if provider == "anthropic" else 503
        with StatusServer(status, OUTAGE_BODY[provider]) as server:
            asked = ask(provider, server.base_url, db, message, lang=lang)
        return Run(db, asked=asked, turn=asked.turn, hits=server.hits)
    if provider == "openai":
        script = [turn(call("read_measurement", {"date": "2020-01-01"}, call_id="out_read"))]
        with FakeOpenAIResponsesServer(script) as fake:
            asked = ask(provider, base_url(provider, fake), db, message, lang=lang)
        return Run(db, asked=asked, turn=asked.turn, hits=len(fake.requests))
    with closing(socket.socket()) as bound:  # bound, never listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/v1"
        asked = ask(provider, url, db, message, lang=lang)
    return Run(db, asked=asked, turn=asked.turn)


@pytest.fixture(scope="module")
def failure_runs(
    pool: ThreadPoolExecutor, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Future[Run]]:
    """before_commit, ambiguous and an outage for every provider, started together."""
    tmp = tmp_path_factory.mktemp("failures")
    jobs: Jobs = {}
    for p in PROVIDERS:
        for mode in ("before_commit", "ambiguous"):
            jobs[(mode, p)] = functools.partial(run_write_fault, p, db_in(tmp, f"{mode}-{p}"), mode)
        jobs[("outage", p)] = functools.partial(run_outage, p, db_in(tmp, f"outage-{p}"))
    return start(pool, jobs)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_2_before_commit_stops_after_one_model_request(
    failure_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """before_commit: not_applied, stop_turn after one model request, the harness's reply."""
    run = failure_runs[("before_commit", provider)].result()
    lang = LANG_OF[provider]
    assert process(run).returncode == 0, process(run).stderr
    assert (run.turn["stop_reason"], run.turn["reply_author"]) == ("stop_turn", "harness")
    assert run.turn["model_requests"] == 1
    assert len(run.bodies) == 1, "the model was asked again after a stop_turn outcome"
    [write] = run.turn["tool_calls"]
    envelope = write["outcome"]
    assert write["executed"] is True
    assert (envelope["error"], envelope["recovery"], envelope["recoverable"]) == (
        "not_applied",
        "stop_turn",
        False,
    )
    assert NOTHING_SAVED[lang] in run.turn["reply"], run.turn["reply"]
    assert "write_measurement:before_commit" in process(run).stderr, "no fault banner on stderr"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_2_before_commit_persists_nothing(
    failure_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """before_commit leaves no 2020-01-03 record and one failed, unrepeated ledger attempt."""
    run = failure_runs[("before_commit", provider)].result()
    show = data_command("measurements", "show", "2020-01-03", "--json", "--db", run.db)
    assert (show.exit_code, show.stdout) == (1, "")
    assert data_json(run.db, "measurements", "list") == []
    [entry] = data_json(run.db, "writes")
    assert (entry["tool"], entry["state"], entry["attempt"]) == ("write_measurement", "failed", 1)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_2_ambiguous_is_outcome_unknown_with_the_conservative_message(
    failure_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """ambiguous: outcome_unknown, stop_turn, one request, the harness's conservative message."""
    run = failure_runs[("ambiguous", provider)].result()
    lang = LANG_OF[provider]
    assert process(run).returncode == 0, process(run).stderr
    assert (run.turn["stop_reason"], run.turn["reply_author"]) == ("stop_turn", "harness")
    assert run.turn["model_requests"] == 1 == len(run.bodies)
    [write] = run.turn["tool_calls"]
    assert (write["outcome"]["error"], write["outcome"]["recovery"]) == (
        "outcome_unknown",
        "stop_turn",
    )
    assert CANT_CONFIRM[lang] in run.turn["reply"], run.turn["reply"]
    assert NOTHING_SAVED[lang] not in run.turn["reply"]
    [entry] = data_json(run.db, "writes")
    assert entry["attempt"] == 1, "an uncertain write was repeated"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_outage_exits_3_and_still_prints_the_json(
    failure_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """A failing provider (529, 503, 500 mid-turn, refused) exits 3 with provider_error JSON."""
    run = failure_runs[("outage", provider)].result()
    asked = process(run)
    assert asked.returncode == 3, asked.stderr[-2000:]
    assert (run.turn["version"], run.turn["provider"]) == (1, provider)
    assert (run.turn["stop_reason"], run.turn["reply_author"]) == ("provider_error", "harness")
    assert "Traceback" not in asked.stderr, asked.stderr
    if provider == "openai":  # the outage hit after one tool round: that round is reported
        [read] = run.turn["tool_calls"]
        assert (read["name"], read["executed"]) == ("read_measurement", True)
        assert run.turn["model_requests"] == 2 == run.hits
    else:
        assert run.turn["tool_calls"] == []
        assert run.hits is None or run.hits >= 1
    if provider == "anthropic":
        assert run.hits == 1, "x-should-retry: false was not honoured"
    assert data_json(run.db, "writes") == []
    assert data_json(run.db, "measurements", "list") == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_outage_reply_is_not_the_local_failure_reply(
    failure_runs: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """The outage reply (es/pt/en) blames the provider, not storage, and leaks no server detail."""
    lang = LANG_OF[provider]
    outage = failure_runs[("outage", provider)].result()
    local = {
        mode: failure_runs[(mode, provider)].result().turn["reply"]
        for mode in ("before_commit", "ambiguous")
    }
    reply = outage.turn["reply"]
    assert reply.strip(), "an empty reply"
    assert reply not in local.values(), (reply, local)
    assert PROVIDER_WORD[lang] in reply.lower(), (lang, reply)
    assert NOTHING_SAVED[lang] not in reply, reply
    assert CANT_CONFIRM[lang] not in reply, reply
    for leaked in (LEAK, "127.0.0.1", "FakeOpenAI", "Traceback", API_KEY):
        assert leaked not in process(outage).stdout, leaked


# -- scenario 6: one conversation, continued on every provider ---------------------------------

RECORDER = "openai-chat"
LONG_ID = "call:" + "x" * 70 + "/é.1"
"""Breaks Anthropic's id pattern and OpenAI's 64 characters."""


@dataclass
class Recording:
    """The conversation recorded on the OpenAI-compatible server, two ``ask`` turns."""

    db: str
    first: Asked
    second: Asked
    last_body: dict[str, Any]


def record_conversation(tmp: Path) -> Recording:
    """Turn 1 on a server that reuses ``call_0`` for every call: a not_found, then a read.
    Turn 2 (``--conversation``) with a call id no other API accepts as is: a note that reads
    like an error."""
    db = db_in(tmp, "recorded")
    seeded = data_command("measurements", "add", "2020-01-01", "--weight-kg", "76", "--db", db)
    assert seeded.exit_code == 0, seeded.stderr
    turns_1 = [
        turn(call("read_measurement", {"date": "2020-01-02"})),
        turn(call("read_measurement", {"date": "2020-01-01"})),
        turn("No record on 2020-01-02; on 2020-01-01 you weighed 76 kg."),
    ]
    with FakeOpenAIChatServer(turns_1, duplicate_ids=True) as fake:
        first = ask(RECORDER, base_url(RECORDER, fake), db, "What did I weigh on 2020-01-02?")
    turns_2 = [turn(call("save_memory", NOTE, call_id=LONG_ID)), turn("Saved your note.")]
    with FakeOpenAIChatServer(turns_2) as fake:
        cid = first.turn["conversation_id"]
        second = ask(RECORDER, base_url(RECORDER, fake), db, "Save my note.", "--conversation", cid)
    return Recording(db, first, second, fake.requests[-1].body)


def continue_on(provider: str, recording: Recording, db: str) -> Run:
    """Continue the recorded conversation on ``provider``, from a copy of its database."""
    with closing(sqlite3.connect(recording.db)) as source, closing(sqlite3.connect(db)) as copy:
        source.backup(copy)
    cid = recording.first.turn["conversation_id"]
    with fake_server(provider, [turn("We have your weights and your note.")]) as fake:
        url = base_url(provider, fake)
        asked = ask(provider, url, db, "What do we have so far?", "--conversation", cid)
    return Run(
        db,
        asked=asked,
        turn=asked.turn,
        bodies=[r.body for r in fake.requests],
        replies=fake.replies,
    )


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """The recorded two-turn conversation."""
    return record_conversation(tmp_path_factory.mktemp("recording"))


@pytest.fixture(scope="module")
def continued(
    pool: ThreadPoolExecutor, recording: Recording, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Future[Run]]:
    """The recorded conversation continued on every provider (each from its own copy)."""
    tmp = tmp_path_factory.mktemp("continued")
    jobs: Jobs = {
        ("s6", p): functools.partial(continue_on, p, recording, db_in(tmp, p)) for p in PROVIDERS
    }
    return start(pool, jobs)


def test_scenario_6_recording_holds_an_error_and_a_look_alike_success(recording: Recording) -> None:
    """The two-turn recording holds a not_found, a read and a look-alike success note."""
    first, second = recording.first.turn, recording.second.turn
    assert recording.first.returncode == 0 == recording.second.returncode
    assert first["conversation_id"] == second["conversation_id"]
    assert [c["call_id"] for c in first["tool_calls"] + second["tool_calls"]] == [
        "call_0",
        "call_0",
        LONG_ID,
    ]
    kinds = [outcome.get("error", "ok") for _, outcome in outcomes(first, second)]
    assert kinds == ["not_found", "ok", "ok"], outcomes(first, second)
    assert second["tool_calls"][0]["outcome"]["ok"]["value"] == LOOKS_LIKE_AN_ERROR


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_6_continuation_is_accepted_by_the_strict_fake(
    continued: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """The strict fake accepts the replayed history (no 400): one request, exit 0."""
    run = continued[("s6", provider)].result()
    assert [status for status, _ in run.replies] == [200], run.replies
    assert len(run.bodies) == 1, f"{len(run.bodies)} requests"
    assert (process(run).returncode, run.turn["stop_reason"]) == (0, "completed"), run.turn["reply"]
    assert run.turn["reply"] == "We have your weights and your note."


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_6_continuation_keeps_every_results_mark(
    continued: dict[tuple[str, str], Future[Run]], recording: Recording, provider: str
) -> None:
    """Every replayed result keeps its mark: the not_found marked, both successes unmarked."""
    run = continued[("s6", provider)].result()
    expected = outcomes(recording.first.turn, recording.second.turn)
    assert_history_carries(provider, run.bodies[0], expected)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_scenario_6_continuation_maps_ids_to_the_providers_rules(
    continued: dict[tuple[str, str], Future[Run]], provider: str
) -> None:
    """Reused call_0 and a 79-char id are mapped to valid, paired (unique where required) ids."""
    run = continued[("s6", provider)].result()
    calls = wire_calls(provider, run.bodies[0])
    ids = [wire for wire, _ in calls]
    assert len(ids) == 3, calls
    assert all(ID_RULES[provider](wire) for wire in ids), ids
    if provider in UNIQUE_IDS:
        assert len(set(ids)) == len(ids), f"repeated call ids sent to {provider}: {ids}"
    assert ids[0] == "call_0", ids
    assert [r.call_id for r in wire_results(provider, run.bodies[0])] == ids


def test_scenario_6_rebuilds_the_recorded_request_exactly(
    continued: dict[tuple[str, str], Future[Run]], recording: Recording
) -> None:
    """A new process on the recording provider rebuilds the live run's history exactly."""
    run = continued[("s6", RECORDER)].result()
    sent = recording.last_body
    rebuilt = run.bodies[0]
    assert rebuilt["tools"] == sent["tools"]
    assert rebuilt["messages"][: len(sent["messages"])] == sent["messages"]
    assert [m["role"] for m in rebuilt["messages"][len(sent["messages"]) :]] == [
        "assistant",
        "user",
    ]


# -- the same ledger proof on PostgreSQL -------------------------------------------------------


@pytest.mark.postgres
def test_scenario_2_before_commit_on_postgresql(pg_url: str) -> None:
    """On PostgreSQL, before_commit is not_applied too: one request, nothing kept, one attempt."""
    run = run_write_fault("openai-chat", pg_url, "before_commit")
    assert process(run).returncode == 0, process(run).stderr
    assert (run.turn["stop_reason"], run.turn["model_requests"], len(run.bodies)) == (
        "stop_turn",
        1,
        1,
    )
    [write] = run.turn["tool_calls"]
    assert write["outcome"]["error"] == "not_applied", write
    show = data_command("measurements", "show", "2020-01-03", "--json", "--db", pg_url)
    assert show.exit_code == 1
    [entry] = data_json(pg_url, "writes")
    assert (entry["state"], entry["attempt"]) == ("failed", 1)
