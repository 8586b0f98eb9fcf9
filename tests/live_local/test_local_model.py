"""The harness's invariants on a real small model served locally (opt-in, slow).

Run with ``make test-local`` (it starts the server first), or with a server of your own at
``SUREFOOT_LOCAL_BASE_URL`` (default ``http://127.0.0.1:8088/v1``):
``.venv/bin/python -m pytest -m live_local tests/live_local``. Without ``-m live_local`` every
test skips at once (docs/how-to/local-models.md).

Each scenario is one ``gymnasia ask --provider openai-chat --json`` process on a fresh SQLite
file, talking to the server through a recording proxy, so the checks see what reached the model
on the wire as well as the turn's JSON and the write ledger (``gymnasia writes --json``). They
check the HARNESS, not the model: what the small model chooses to do is recorded, and a check
whose situation the model never created says so instead of passing or failing.

The invariants:

1. a missing date is answered ``not_found`` / ``choose_alternative``, and that marked envelope
   is in the next request on the wire;
2. a write whose outcome is unknown stops the turn: one model request, the harness's reply;
3. the other faults: ``before_commit`` is ``not_applied`` in one request; ``after_commit`` is a
   success reconciled from the ledger without running the handler again; ``read_error`` is
   ``unavailable``;
4. a failed call is never executed again, identical (same name and arguments), in the turn;
5. a write runs at most once per distinct arguments in a turn (calls and committed ledger rows);
6. no turn ends ``completed`` with an empty reply;
7. a reply the harness writes after a write committed mentions the saved values;
8. the turn's first request is at most 8,500 characters of system prompt + tools, and the
   server counts it as at most 2,500 prompt tokens;
9. in a conversation longer than the Coach's window (fourteen turns), every request carries
   the current turn and six to eleven whole earlier turns, and every tool result it carries
   follows the call it answers.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from recording_proxy import Exchange, RecordingProxy

MODEL = os.environ.get("SUREFOOT_LOCAL_MODEL", "qwen2.5-coder-1.5b")
TODAY = "2026-12-03"
ASK_TIMEOUT = "900"  # seconds per model request: a cold first request takes ~2 minutes
PROCESS_TIMEOUT = 3600.0  # the whole turn: up to ten rounds on two busy cores

Verdict = tuple[bool | None, str]
"""(True: holds, False: broken, None: not applicable or not exercised; why)."""


@dataclass(frozen=True)
class Scenario:
    """One ``gymnasia ask`` turn and the invariants it is there to exercise."""

    name: str
    message: str
    checks: tuple[str, ...]
    lang: str = "es"
    fault: str | None = None
    seed: bool = False
    """76 kg on 2020-01-01 before the turn."""
    conversation: str | None = None
    """The conversation the turn continues (None: a new one)."""


SAVE_ES = "Guarda mi peso de hoy: 77,4 kg"
SCENARIOS = [  # one language at a time: the server caches the last prompt's prefix
    Scenario(
        "article_not_found",
        "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01.",
        ("1_not_found_on_wire",),
        seed=True,
    ),
    Scenario(
        "uncertain_write",
        SAVE_ES,
        ("2_unknown_stops_turn",),
        fault="write_measurement:ambiguous",
    ),
    Scenario("before_commit", SAVE_ES, ("3_not_applied",), fault="write_measurement:before_commit"),
    Scenario("after_commit", SAVE_ES, ("3_reconciled",), fault="write_measurement:after_commit"),
    Scenario(
        "read_error",
        "Consulta mi peso del 2020-01-01.",
        ("3_unavailable",),
        fault="read_measurement:read_error",
        seed=True,
    ),
    Scenario("repeated_write_es", SAVE_ES, ("5_write_once",)),
    Scenario("repeated_write_pt", "Salve o meu peso de hoje: 77,4 kg", ("5_write_once",), "pt"),
    Scenario("repeated_write_en", "Save my weight for today: 77.4 kg", ("5_write_once",), "en"),
]
LONG_CONVERSATION = [  # twelve saves, a question about the first one, one more save
    *(
        f"Guarda mi peso del 2026-11-{day:02d}: {80 - day / 5:.1f} kg".replace(".", ",")
        for day in range(1, 13)
    ),
    "¿Cuánto pesaba el 2026-11-01?",
    SAVE_ES,
]
"""Fourteen turns of one conversation: more than the Coach's window of six to eleven earlier
turns, so its last two requests leave the first turns out (the first day's weight is then in
the store, not in the request)."""
WINDOW_EARLIER = (6, 11)
"""Whole earlier turns a request carries once the conversation is longer than the window."""
EVERY_TURN = (
    "4_no_failed_repeat",
    "6_no_empty_reply",
    "7_harness_reply_lists_saved",
    "8_first_request_small",
)


# -- running a turn ----------------------------------------------------------------------------


def _gymnasia(args: list[str], timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def _cli_json(*args: str) -> Any:
    proc = _gymnasia(list(args))
    assert proc.returncode == 0, f"gymnasia {' '.join(args)}: {proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


@dataclass
class Run:
    """What one scenario produced: the turn's JSON, the ledger and the wire."""

    turn: dict[str, Any] | None
    problem: str | None
    ledger: list[dict[str, Any]]
    wire: list[Exchange]
    wall_seconds: float


def run_scenario(scenario: Scenario, base_url: str, db: Path) -> Run:
    """Seed, then run the scenario's turn through a recording proxy."""
    if scenario.seed:
        proc = _gymnasia(
            ["measurements", "add", "2020-01-01", "--weight-kg", "76", "--db", str(db)]
        )
        assert proc.returncode == 0, proc.stderr
    upstream = urlsplit(base_url)
    with RecordingProxy(f"{upstream.scheme}://{upstream.netloc}") as proxy:
        args = ["ask", scenario.message, "--provider", "openai-chat"]
        args += ["--base-url", proxy.origin + upstream.path, "--model", MODEL]
        args += ["--timeout", ASK_TIMEOUT, "--today", TODAY, "--db", str(db), "--json"]
        args += ["--lang", scenario.lang]
        if scenario.fault is not None:
            args += ["--fault", scenario.fault]
        if scenario.conversation is not None:
            args += ["--conversation", scenario.conversation]
        started = time.monotonic()
        proc = _gymnasia(args, timeout=PROCESS_TIMEOUT)
        wall = time.monotonic() - started
        wire = proxy.chat_exchanges()
        assert proxy.dropped == 0, f"the proxy dropped {proxy.dropped} exchanges"
    turn: dict[str, Any] | None = None
    problem = None
    try:
        turn = json.loads(proc.stdout)
    except ValueError:
        problem = f"ask exited {proc.returncode} without its JSON: {proc.stderr[-1500:]}"
    if turn is not None and proc.returncode != 0:
        problem = f"ask exited {proc.returncode} ({turn.get('stop_reason')})"
    ledger = _cli_json("writes", "--json", "--db", str(db))
    return Run(turn, problem, ledger, wire, wall)


# -- reading a turn ----------------------------------------------------------------------------


def _key(call: dict[str, Any]) -> str:
    """A call's identity: its name and its arguments (the raw text when they did not parse)."""
    arguments = call["arguments"] if call["arguments"] is not None else call["raw_arguments"]
    return json.dumps([call["name"], arguments], sort_keys=True, ensure_ascii=False)


def _failed(call: dict[str, Any]) -> bool:
    return bool(call["outcome"].get("is_error"))


def _label(outcome: dict[str, Any]) -> str:
    if "ok" in outcome:
        return "ok"
    return f"{outcome.get('error')} -> {outcome.get('recovery')}"


def _calls(turn: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [c for c in turn["tool_calls"] if c["name"] == name]


def _wire_calls(exchange: Exchange) -> list[dict[str, Any]]:
    """The tool calls in one response on the wire (arguments parsed when they are JSON)."""
    body = exchange.response_json()
    found = []
    for choice in (body or {}).get("choices") or []:
        for call in (choice.get("message") or {}).get("tool_calls") or []:
            function = call.get("function") or {}
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                with contextlib.suppress(ValueError):
                    arguments = json.loads(arguments)
            found.append({"id": call.get("id"), "name": function.get("name"), "args": arguments})
    return found


def _tool_messages(exchange: Exchange) -> list[dict[str, Any]]:
    body = exchange.request_json() or {}
    return [m for m in body.get("messages") or [] if m.get("role") == "tool"]


def tokens(wire: list[Exchange]) -> dict[str, float]:
    """The server's own counts, summed over the turn's requests (llama-server's ``usage`` and
    ``timings``; servers without ``timings`` leave those at 0)."""
    total = dict.fromkeys(
        ("prompt_tokens", "completion_tokens", "prompt_processed", "prompt_ms", "predicted_ms"), 0.0
    )
    for exchange in wire:
        body = exchange.response_json() or {}
        usage, timings = body.get("usage") or {}, body.get("timings") or {}
        total["prompt_tokens"] += usage.get("prompt_tokens") or 0
        total["completion_tokens"] += usage.get("completion_tokens") or 0
        total["prompt_processed"] += timings.get("prompt_n") or 0
        total["prompt_ms"] += timings.get("prompt_ms") or 0.0
        total["predicted_ms"] += timings.get("predicted_ms") or 0.0
    return {k: round(v, 1) if k.endswith("_ms") else int(v) for k, v in total.items()}


# -- the invariants ----------------------------------------------------------------------------


def check_not_found_on_wire(run: Run, turn: dict[str, Any]) -> Verdict:
    """1: read_measurement(2020-01-02) is not_found / choose_alternative, and the next request
    on the wire carries that marked envelope."""
    reads = [
        c for c in _calls(turn, "read_measurement") if c["arguments"] == {"date": "2020-01-02"}
    ]
    if not reads:
        return None, "not exercised: the model did not read 2020-01-02"
    outcome = reads[0]["outcome"]
    marks = (outcome.get("is_error"), outcome.get("error"), outcome.get("recovery"))
    if marks != (True, "not_found", "choose_alternative"):
        return False, f"read_measurement(2020-01-02) answered {_label(outcome)}"
    asked = [
        (i, call)
        for i, exchange in enumerate(run.wire)
        for call in _wire_calls(exchange)
        if call["name"] == "read_measurement" and call["args"] == {"date": "2020-01-02"}
    ]
    if not asked:
        return False, "no response on the wire asked for read_measurement(2020-01-02)"
    index, wire_call = asked[0]
    if index + 1 >= len(run.wire):
        return False, "no request followed the one that asked for read_measurement(2020-01-02)"
    messages = _tool_messages(run.wire[index + 1])
    answers = [m for m in messages if m.get("tool_call_id") == wire_call["id"]] or messages
    for message in answers:
        try:
            envelope = json.loads(message.get("content") or "")
        except ValueError:
            continue
        if (
            isinstance(envelope, dict)
            and envelope.get("error") == "not_found"
            and envelope.get("is_error") is True
            and envelope.get("recovery") == "choose_alternative"
        ):
            return True, f"envelope in request {index + 2} on the wire"
    return False, f"request {index + 2} has no marked not_found envelope: {messages}"


def _unknown_stops_turn(run: Run, turn: dict[str, Any], error: str) -> Verdict:
    writes = _calls(turn, "write_measurement")
    if not writes:
        return None, "not exercised: the model did not call write_measurement"
    outcome = writes[0]["outcome"]
    problems = []
    if (outcome.get("error"), outcome.get("recovery")) != (error, "stop_turn"):
        problems.append(f"the write answered {_label(outcome)}, not {error} -> stop_turn")
    if turn["model_requests"] != 1 or len(run.wire) != 1:
        problems.append(f"{turn['model_requests']} model requests ({len(run.wire)} on the wire)")
    if (turn["stop_reason"], turn["reply_author"]) != ("stop_turn", "harness"):
        problems.append(f"ended {turn['stop_reason']} with a reply by {turn['reply_author']}")
    return (False, "; ".join(problems)) if problems else (True, f"{error}, one request")


def check_unknown_stops_turn(run: Run, turn: dict[str, Any]) -> Verdict:
    """2: an ambiguous write is outcome_unknown, and the turn stops after that one request with
    the harness's reply."""
    return _unknown_stops_turn(run, turn, "outcome_unknown")


def check_not_applied(run: Run, turn: dict[str, Any]) -> Verdict:
    """3: a write failing before its commit is not_applied, and the turn stops after one
    request."""
    return _unknown_stops_turn(run, turn, "not_applied")


def check_reconciled(run: Run, turn: dict[str, Any]) -> Verdict:
    """3: a write whose acknowledgement is lost after commit is a success read back from the
    ledger, and its handler ran once (ledger attempt 1)."""
    writes = [c for c in _calls(turn, "write_measurement") if c["executed"]]
    if not writes:
        return None, "not exercised: the model did not call write_measurement"
    first = writes[0]
    if "ok" not in first["outcome"]:
        return False, f"the write answered {_label(first['outcome'])}, not a reconciled success"
    rows = [r for r in run.ledger if r["tool"] == "write_measurement"]
    rows.sort(key=lambda r: str(r["created_at"]))
    if not rows:
        return False, "no ledger row for the write"
    row = rows[0]
    if (row["state"], row["attempt"]) != ("committed", 1):
        return False, f"ledger row {row['state']} at attempt {row['attempt']}"
    return True, "ok from the ledger, committed at attempt 1"


def check_unavailable(run: Run, turn: dict[str, Any]) -> Verdict:
    """3: a failing storage read is unavailable."""
    reads = _calls(turn, "read_measurement")
    if not reads:
        return None, "not exercised: the model did not call read_measurement"
    outcome = reads[0]["outcome"]
    if outcome.get("error") != "unavailable":
        return False, f"read_measurement answered {_label(outcome)}"
    return True, f"unavailable -> {outcome.get('recovery')}"


def check_no_failed_repeat(run: Run, turn: dict[str, Any]) -> Verdict:
    """4: after a call failed, no identical later call (same name and arguments) executes."""
    calls = turn["tool_calls"]
    pairs, broken = 0, []
    for i, earlier in enumerate(calls):
        if not _failed(earlier):
            continue
        for later in calls[i + 1 :]:
            if _key(later) == _key(earlier):
                pairs += 1
                if later["executed"]:
                    broken.append(f"{later['name']}({later['arguments']}) ran again")
    if broken:
        return False, "; ".join(broken)
    if pairs == 0:
        return None, "not exercised: no failed call was repeated"
    return True, f"{pairs} repeat(s) of a failed call, none executed"


def check_write_once(run: Run, turn: dict[str, Any]) -> Verdict:
    """5: write_measurement runs at most once per distinct arguments: executed calls, and
    committed ledger rows."""
    executed = Counter(_key(c) for c in _calls(turn, "write_measurement") if c["executed"])
    committed = Counter(
        json.dumps(r["arguments"], sort_keys=True)
        for r in run.ledger
        if r["tool"] == "write_measurement" and r["state"] == "committed"
    )
    if not executed and not committed:
        return None, "not exercised: no write_measurement ran"
    worst_calls = max(executed.values(), default=0)
    worst_rows = max(committed.values(), default=0)
    detail = f"at most {worst_calls} run(s) and {worst_rows} committed row(s) per arguments"
    return worst_calls <= 1 and worst_rows <= 1, detail


def check_no_empty_reply(run: Run, turn: dict[str, Any]) -> Verdict:
    """6: a turn that ends completed has a reply with text in it."""
    if turn["stop_reason"] != "completed":
        return None, f"ended {turn['stop_reason']}"
    if not turn["reply"].strip():
        return False, f"completed with the reply {turn['reply']!r}"
    return True, "completed with a reply"


def _mentions(reply: str, value: float) -> bool:
    text = f"{value:g}"
    return text in reply or text.replace(".", ",") in reply


def check_harness_reply_lists_saved(run: Run, turn: dict[str, Any]) -> Verdict:
    """7: when the harness writes the reply after a write committed in the turn (a ledgered
    tool's call that answered ok), the reply mentions each value that call saved."""
    ledgered = {r["tool"] for r in run.ledger}
    saved = [
        c
        for c in turn["tool_calls"]
        if c["name"] in ledgered and c["executed"] and "ok" in c["outcome"]
    ]
    if turn["reply_author"] != "harness" or not saved:
        return None, f"reply by {turn['reply_author']}, {len(saved)} confirmed write(s)"
    values = list(
        dict.fromkeys(  # each value once, in the order the calls saved them
            v
            for c in saved
            for v in (c["arguments"] or {}).values()
            if isinstance(v, int | float) and not isinstance(v, bool)
        )
    )
    missing = [v for v in values if not _mentions(turn["reply"], v)]
    if missing:
        return False, f"the harness's reply does not mention {missing}: {turn['reply']!r}"
    return True, f"mentions {values}"


FIRST_REQUEST_CHARS = 8500
FIRST_REQUEST_TOKENS = 2500


def check_first_request_is_small(run: Run, turn: dict[str, Any]) -> Verdict:
    """8: the turn's first request is at most 8,500 characters of system prompt + tools, and
    the server counts it as at most 2,500 prompt tokens (a conversation's first turn: a later
    one's request carries its earlier turns too)."""
    if not run.wire:
        return False, "no request on the wire"
    body = run.wire[0].request_json() or {}
    if any(m.get("role") == "assistant" for m in body.get("messages") or []):
        return None, "not applicable: the request carries earlier turns"
    system = "".join(
        m.get("content") or "" for m in body.get("messages") or [] if m.get("role") == "system"
    )
    chars = len(system) + len(json.dumps(body.get("tools") or [], ensure_ascii=False))
    usage = (run.wire[0].response_json() or {}).get("usage") or {}
    prompt = usage.get("prompt_tokens")
    detail = f"{chars} characters, {prompt} prompt tokens"
    if not isinstance(prompt, int):
        return False, f"{detail}: the server reported no prompt tokens"
    return chars <= FIRST_REQUEST_CHARS and prompt <= FIRST_REQUEST_TOKENS, detail


def _carried(exchange: Exchange, said: list[str]) -> list[str]:
    """What the person said that one request carries, in its order."""
    messages = (exchange.request_json() or {}).get("messages") or []
    return [m["content"] for m in messages if m.get("role") == "user" and m["content"] in said]


def check_window(wire: list[Exchange], said: list[str]) -> Verdict:
    """9: every request of the turn that ``said[-1]`` opens carries the person's messages as
    one run that ends with it: all of them while there are at most eleven earlier turns, then
    six to eleven; the first message after the system prompt is the person's, and every tool
    result follows, in the same request, the call it answers."""
    if not wire:
        return False, "no request on the wire"
    earlier = len(said) - 1
    low, high = WINDOW_EARLIER
    for number, exchange in enumerate(wire, 1):
        carried = _carried(exchange, said)
        if not carried or carried != said[len(said) - len(carried) :]:
            return False, f"request {number} carries {len(carried)} messages out of order"
        carries = len(carried) - 1
        if not (carries == earlier if earlier <= high else low <= carries <= high):
            return False, f"request {number} carries {carries} of {earlier} earlier turns"
        messages = (exchange.request_json() or {}).get("messages") or []
        talk = [m for m in messages if m.get("role") != "system"]
        if talk[0].get("role") != "user":
            return False, f"request {number} starts with a {talk[0].get('role')} message"
        asked: set[str] = set()
        for message in talk:
            for call in message.get("tool_calls") or []:
                asked.add(call.get("id"))
            if message.get("role") == "tool" and message.get("tool_call_id") not in asked:
                return False, f"request {number} carries a result without its call"
    return True, f"{len(wire)} request(s), each with {carries} of {earlier} earlier turns"


CHECKS = {
    "1_not_found_on_wire": check_not_found_on_wire,
    "2_unknown_stops_turn": check_unknown_stops_turn,
    "3_not_applied": check_not_applied,
    "3_reconciled": check_reconciled,
    "3_unavailable": check_unavailable,
    "4_no_failed_repeat": check_no_failed_repeat,
    "5_write_once": check_write_once,
    "6_no_empty_reply": check_no_empty_reply,
    "7_harness_reply_lists_saved": check_harness_reply_lists_saved,
    "8_first_request_small": check_first_request_is_small,
}


def record(scenario: Scenario, run: Run) -> dict[str, Any]:
    """The scenario's entry in the results file, with a verdict per invariant."""
    invariants: dict[str, dict[str, Any]] = {}
    turn = run.turn
    for name in (*scenario.checks, *EVERY_TURN):
        if turn is None:
            verdict: Verdict = False, run.problem or "no turn"
        else:
            verdict = CHECKS[name](run, turn)
        invariants[name] = {"passed": verdict[0], "detail": verdict[1]}
    if run.problem is not None:
        invariants["ask_ran"] = {"passed": False, "detail": run.problem}
    calls = [] if turn is None else turn["tool_calls"]
    return {
        "scenario": scenario.name,
        "message": scenario.message,
        "lang": scenario.lang,
        "fault": scenario.fault,
        "model": MODEL,
        "calls": [
            {
                "name": c["name"],
                "arguments": c["arguments"] if c["arguments"] is not None else c["raw_arguments"],
                "executed": c["executed"],
                "outcome": _label(c["outcome"]),
            }
            for c in calls
        ],
        "stop_reason": None if turn is None else turn["stop_reason"],
        "reply_author": None if turn is None else turn["reply_author"],
        "reply": None if turn is None else turn["reply"],
        "model_requests": len(run.wire) if turn is None else turn["model_requests"],
        "wire_requests": len(run.wire),
        "ledger": [
            {"tool": r["tool"], "state": r["state"], "attempt": r["attempt"]} for r in run.ledger
        ],
        "tokens": tokens(run.wire),
        "wall_seconds": round(run.wall_seconds, 1),
        "invariants": invariants,
        "passed": all(v["passed"] is not False for v in invariants.values()),
    }


@pytest.mark.live_local
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario_keeps_the_harness_invariants(
    scenario: Scenario, local_base_url: str, local_results: list[dict[str, Any]], tmp_path: Path
) -> None:
    """One turn on the local model keeps every invariant it exercises (see the module's list)."""
    run = run_scenario(scenario, local_base_url, tmp_path / "local.db")
    entry = record(scenario, run)
    local_results.append(entry)
    failed = {k: v["detail"] for k, v in entry["invariants"].items() if v["passed"] is False}
    assert not failed, (
        f"{scenario.name}: {failed}; calls {entry['calls']}; reply {entry['reply']!r}"
    )


@pytest.mark.live_local
def test_long_conversation_keeps_its_window(
    local_base_url: str, local_results: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Fourteen turns of one conversation on the local model: each keeps every invariant, each
    request carries the window (9), and the last two requests begin at the same earlier turn,
    so the server's prompt cache can keep their prefix."""
    db = tmp_path / "long.db"
    conversation: str | None = None
    seen: set[str] = set()  # the ledger's rows of the earlier turns
    failed: dict[str, dict[str, str]] = {}
    starts: list[str] = []
    for number, message in enumerate(LONG_CONVERSATION, 1):
        name = f"long_{number:02d}"
        scenario = Scenario(name, message, ("5_write_once",), conversation=conversation)
        run = run_scenario(scenario, local_base_url, db)
        rows = {json.dumps(r, sort_keys=True): r for r in run.ledger}
        run.ledger = [r for key, r in rows.items() if key not in seen]  # this turn's writes
        seen |= rows.keys()
        entry = record(scenario, run)
        said = LONG_CONVERSATION[:number]
        passed, detail = check_window(run.wire, said)
        entry["invariants"]["9_window"] = {"passed": passed, "detail": detail}
        entry["passed"] = entry["passed"] and passed is not False
        local_results.append(entry)
        broken = {k: v["detail"] for k, v in entry["invariants"].items() if v["passed"] is False}
        if broken:
            failed[name] = broken
        assert run.turn is not None, f"{name}: {run.problem}"
        conversation = run.turn["conversation_id"]
        starts.append(_carried(run.wire[0], said)[0] if run.wire else "")
    assert not failed, failed
    assert starts[-1] == starts[-2] != LONG_CONVERSATION[0], starts[-2:]


# -- the suite's own code, offline (runs in every `make test`) -----------------------------------


def test_checks_read_the_wire_through_the_proxy(tmp_path: Path) -> None:
    """The article's scenario against a fake server passes every check, through the proxy."""
    from surefoot.testing import FakeOpenAIChatServer, call, turn

    script = [
        turn(call("read_measurement", {"date": "2020-01-02"})),
        turn(call("read_measurement", {"date": "2020-01-01"})),
        turn("El 2020-01-01 pesabas 76 kg."),
    ]
    with FakeOpenAIChatServer(script) as server:
        run = run_scenario(SCENARIOS[0], server.base_url + "/v1", tmp_path / "fake.db")
        server.assert_consumed()
    entry = record(SCENARIOS[0], run)
    assert entry["invariants"]["1_not_found_on_wire"]["passed"] is True, entry
    assert entry["passed"], entry
    assert (entry["model_requests"], entry["wire_requests"]) == (3, 3)
    assert [c["outcome"] for c in entry["calls"]] == ["not_found -> choose_alternative", "ok"]


def test_checks_catch_what_they_forbid() -> None:
    """A turn that repeats a failed call and a write, then ends with an empty reply, or a
    harness reply without the saved value, fails checks 4 to 7."""
    write = {"name": "write_measurement", "arguments": {"date": TODAY, "weight_kg": 77.4}}
    failed = {"name": "read_measurement", "arguments": {"date": "2020-01-02"}}
    not_found = {"is_error": True, "error": "not_found", "recovery": "choose_alternative"}
    saved = {"ok": {"date": TODAY, "weight_kg": 77.4}}
    calls = [
        {**failed, "raw_arguments": None, "executed": True, "outcome": not_found},
        {**failed, "raw_arguments": None, "executed": True, "outcome": not_found},
        {**write, "raw_arguments": None, "executed": True, "outcome": saved},
        {**write, "raw_arguments": None, "executed": True, "outcome": saved},
    ]
    row = {"tool": "write_measurement", "state": "committed", "attempt": 1, "arguments": {}}
    run = Run(None, None, [row, row], [], 1.0)
    empty = {
        "tool_calls": calls,
        "stop_reason": "completed",
        "reply": " \n",
        "reply_author": "model",
    }
    terse = {**empty, "stop_reason": "round_limit", "reply": "Listo.", "reply_author": "harness"}
    assert check_no_failed_repeat(run, empty)[0] is False
    assert check_write_once(run, empty)[0] is False
    assert check_no_empty_reply(run, empty)[0] is False
    assert check_harness_reply_lists_saved(run, terse)[0] is False
    assert check_harness_reply_lists_saved(run, {**terse, "reply": "Guardé 77,4 kg."})[0] is True


def _exchange(*messages: dict[str, Any]) -> Exchange:
    body = json.dumps({"messages": [{"role": "system", "content": "Coach"}, *messages]})
    return Exchange("POST", "/v1/chat/completions", body.encode(), 200, b"{}", 0.0, False)


def test_the_window_check_catches_what_it_forbids() -> None:
    """Check 9 passes a request that carries six to eleven whole earlier turns, and fails one
    that carries the whole long conversation, one that skips a turn, and one that opens on a
    result whose call it left out."""
    said = LONG_CONVERSATION[:13]
    call = {"id": "c1", "type": "function", "function": {"name": "read_measurement"}}
    called = [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
    ]
    window = [{"role": "user", "content": text} for text in said[6:]]
    assert check_window([_exchange(*window, *called)], said) == (
        True,
        "1 request(s), each with 6 of 12 earlier turns",
    )
    whole = [{"role": "user", "content": text} for text in said]
    assert check_window([_exchange(*whole)], said)[0] is False
    assert check_window([_exchange(*whole[:-1])], said[:-1])[0] is True  # 11 earlier: all
    assert check_window([_exchange(*whole[1:-1])], said[:-1])[0] is False
    assert check_window([_exchange(*window[:3], *window[4:])], said)[0] is False
    assert check_window([_exchange(called[1], *window)], said)[0] is False
    assert check_window([_exchange(*window, called[1])], said)[0] is False
