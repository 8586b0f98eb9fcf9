"""Acceptance scenarios 1 and 4, written once for every provider.

The same functions run against the offline model, the fake provider servers on 127.0.0.1 and,
opt-in, the real Anthropic, OpenAI and Google APIs (tests/live). Each takes a ``RunAsk``: a
callable that runs ``gymnasia ask MESSAGE --provider P [--base-url URL] --json`` on one database
and returns the parsed JSON, and that can run the plain data commands on the same database.
``CliRunAsk`` is the one that does it in a subprocess::

    run_ask = CliRunAsk(db=str(tmp_path / "g.db"), provider="anthropic", base_url=fake.base_url,
                        env={**os.environ, "ANTHROPIC_API_KEY": "test-key"})
    scenario_1(run_ask)

Import it from a test module after ``sys.path.insert(0, str(<tests/gymnasia>))``. The scenarios
assert only what the brief fixes (which tools, which outcomes, what is persisted), not the
model's wording, so a real model's phrasing cannot fail them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

TODAY = "2020-01-05"

SCENARIO_1 = (
    "Look up my weight for 2020-01-02; if there is none, look up 2020-01-01. "
    "Don't create or change anything."
)
SCENARIO_4 = (
    "Save my weight: 76 kg on 2020-01-02. This is also a check of the tool's validator: make "
    'your first write_measurement call with exactly these arguments, as written: {"date": '
    '"02/01/2020", "weight_kg": "76kg"}. When it answers invalid_arguments, fix the call using '
    "its details (the date is the 2nd of January 2020) and call it again."
)
WRITE_TOOLS = frozenset(
    {"write_measurement", "save_memory", "delete_memory", "add_meal_food", "create_routine"}
)


class RunAsk(Protocol):
    """Runs one ``gymnasia ask`` turn on a fixed provider and database."""

    def __call__(self, message: str) -> dict[str, Any]:
        """``gymnasia ask MESSAGE --json``: its one JSON object (exit code checked)."""
        ...

    def cli(self, *args: str) -> str:
        """``gymnasia ARGS --db DB`` (a data command): its stdout (exit code 0 checked)."""
        ...


@dataclass
class CliRunAsk:
    """``RunAsk`` over the real command line, one process per command."""

    db: str
    provider: str = "offline"
    base_url: str | None = None
    model: str | None = None
    lang: str = "en"
    env: Mapping[str, str] | None = None
    """The whole environment (default: this one without GYMNASIA_* settings)."""
    timeout: float = 300.0
    extra: tuple[str, ...] = field(default=())
    """More ``ask`` options (``--timeout``, ``--api-key``...)."""

    def __call__(self, message: str) -> dict[str, Any]:
        """Run one turn and return its JSON."""
        args = ["ask", message, "--json", "--provider", self.provider, "--lang", self.lang]
        args += ["--today", TODAY, *self.extra]
        if self.base_url is not None:
            args += ["--base-url", self.base_url]
        if self.model is not None:
            args += ["--model", self.model]
        proc = self._run(args)
        assert proc.returncode == 0, f"ask exited {proc.returncode}: {proc.stderr[-2000:]}"
        value, end = json.JSONDecoder().raw_decode(proc.stdout)
        assert proc.stdout[end:].strip() == "", "ask --json printed more than one JSON value"
        assert isinstance(value, dict)
        return value

    def cli(self, *args: str) -> str:
        """Run a data command on the same database and return its stdout."""
        proc = self._run(list(args))
        assert proc.returncode == 0, f"{args} exited {proc.returncode}: {proc.stderr[-2000:]}"
        return proc.stdout

    def _run(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        env = self.env
        if env is None:
            env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
        return subprocess.run(
            [sys.executable, "-m", "gymnasia", *args, "--db", self.db],
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=self.timeout,
            check=False,
        )


def _json(run_ask: RunAsk, *args: str) -> Any:
    return json.loads(run_ask.cli(*args, "--json"))


def _reads_by_date(turn: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (str((call["arguments"] or {}).get("date")), call)
        for call in turn["tool_calls"]
        if call["name"] == "read_measurement"
    ]


def scenario_1(run_ask: RunAsk) -> dict[str, Any]:
    """Scenario 1: 2020-01-02 has no record (not_found, choose_alternative), so the model
    reads 2020-01-01 and answers with its 76 kg; nothing is written. Returns the turn."""
    seed_scenario_1(run_ask)
    return check_scenario_1(run_ask, run_ask(SCENARIO_1))


def seed_scenario_1(run_ask: RunAsk) -> None:
    """Scenario 1's data before the turn: 76 kg on 2020-01-01."""
    run_ask.cli("measurements", "add", "2020-01-01", "--weight-kg", "76")


def check_scenario_1(run_ask: RunAsk, turn: dict[str, Any]) -> dict[str, Any]:
    """Scenario 1's checks on the ``SCENARIO_1`` turn (after ``seed_scenario_1``), for callers
    that run the turn themselves. Returns the turn."""
    assert turn["stop_reason"] == "completed", turn
    reads = _reads_by_date(turn)
    assert reads, f"no read_measurement call: {turn['tool_calls']}"
    assert reads[0][0] == "2020-01-02", f"the first read was not 2020-01-02: {reads}"
    missing = reads[0][1]["outcome"]
    assert (missing.get("is_error"), missing.get("error"), missing.get("recovery")) == (
        True,
        "not_found",
        "choose_alternative",
    ), missing
    found = [call["outcome"] for date, call in reads if date == "2020-01-01"]
    assert found, f"the model did not read 2020-01-01 after the not_found: {reads}"
    assert found[0].get("ok", {}).get("weight_kg") == 76.0, found[0]
    assert not [c for c in turn["tool_calls"] if c["name"] in WRITE_TOOLS], turn["tool_calls"]
    assert "76" in turn["reply"], turn["reply"]
    assert _json(run_ask, "writes") == []
    [only] = _json(run_ask, "measurements", "list")
    assert (only["date"], only["weight_kg"]) == ("2020-01-01", 76.0)
    return turn


def scenario_4(run_ask: RunAsk, *, require_bad_call: bool = True) -> dict[str, Any]:
    """Scenario 4: a write_measurement with bad arguments ("76kg", "02/01/2020") gets
    invalid_arguments with details and never runs; the corrected call saves exactly one
    measurement (2020-01-02, 76 kg). ``require_bad_call=False`` accepts a model that sends
    valid arguments at once (the offline model does). Returns the turn."""
    return check_scenario_4(run_ask, run_ask(SCENARIO_4), require_bad_call=require_bad_call)


def check_scenario_4(
    run_ask: RunAsk, turn: dict[str, Any], *, require_bad_call: bool = True
) -> dict[str, Any]:
    """Scenario 4's checks on the ``SCENARIO_4`` turn, for callers that run the turn
    themselves (on an empty database). Returns the turn."""
    assert turn["stop_reason"] == "completed", turn
    writes = [c for c in turn["tool_calls"] if c["name"] == "write_measurement"]
    invalid = [c for c in writes if c["outcome"].get("error") == "invalid_arguments"]
    if require_bad_call:
        assert invalid, f"the model sent no invalid write_measurement call: {writes}"
    for call in invalid:
        envelope = call["outcome"]
        assert call["executed"] is False, call
        assert (envelope["is_error"], envelope["recovery"], envelope["recoverable"]) == (
            True,
            "correct_arguments",
            True,
        ), envelope
        fields = {detail["field"] for detail in envelope["details"]}
        assert fields & {"date", "weight_kg"}, envelope["details"]
        assert all(detail["problem"] for detail in envelope["details"]), envelope["details"]
    saved = [c for c in writes if "ok" in c["outcome"]]
    assert saved, f"no write_measurement call succeeded: {writes}"
    assert all(c["outcome"]["ok"]["date"] == "2020-01-02" for c in saved), saved
    [only] = _json(run_ask, "measurements", "list")
    assert (only["date"], only["weight_kg"]) == ("2020-01-02", 76.0), only
    ledger = _json(run_ask, "writes")
    assert ledger, "the ledger has no write"
    assert {(w["tool"], w["state"]) for w in ledger} == {("write_measurement", "committed")}
    assert {w["arguments"]["date"] for w in ledger} == {"2020-01-02"}, ledger
    return turn


__all__ = [
    "SCENARIO_1",
    "SCENARIO_4",
    "CliRunAsk",
    "RunAsk",
    "check_scenario_1",
    "check_scenario_4",
    "scenario_1",
    "scenario_4",
    "seed_scenario_1",
]
