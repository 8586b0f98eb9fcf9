"""The live-local suite's plumbing: the opt-in, the server probe, and the results (a JSON file
and a table at the end of the run).

Opt in with ``pytest -m live_local tests/live_local`` (``make test-local`` does, after starting
the server). Without ``-m live_local`` every test skips at once, without touching the network,
so ``make test`` spends no time here; with it, a test skips when no server answers at
``SUREFOOT_LOCAL_BASE_URL`` (and fails instead under ``SUREFOOT_LOCAL_REQUIRED=1``).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parent.parent.parent
BASE_URL = os.environ.get("SUREFOOT_LOCAL_BASE_URL", "http://127.0.0.1:8088/v1").rstrip("/")
RESULTS = Path(os.environ.get("SUREFOOT_LOCAL_RESULTS", str(ROOT / "build" / "local-results.json")))
REQUIRED = os.environ.get("SUREFOOT_LOCAL_REQUIRED", "").lower() in ("1", "true", "yes")

_RESULTS_KEY = pytest.StashKey[list[dict[str, Any]]]()


def _opted_in(config: pytest.Config) -> bool:
    expression = str(config.getoption("markexpr") or "")
    return "live_local" in expression and "not live_local" not in expression


def _skip(reason: str) -> None:
    print(f"SKIPPED: {reason}")  # also in the -ra summary, for runs that show output
    pytest.skip(reason)


def _probe(base_url: str) -> str | None:
    """Why no OpenAI-compatible server answers at ``base_url`` (None: one does)."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as response:
            json.loads(response.read())
    except (OSError, ValueError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        return f"GET {base_url}/models failed ({type(exc).__name__}: {reason})"
    return None


@pytest.fixture(scope="session")
def local_base_url(request: pytest.FixtureRequest) -> str:
    """The model server's base URL, once it answers (skips, or fails when required, if not)."""
    if not _opted_in(request.config):
        _skip(
            "the live-local suite runs a real model for minutes; opt in with "
            "`pytest -m live_local tests/live_local` (or `make test-local`)"
        )
    problem = _probe(BASE_URL)
    if problem is not None:
        reason = (
            f"no model server answers at {BASE_URL} ({problem}); start one with "
            "`make local-model`, or point SUREFOOT_LOCAL_BASE_URL at yours"
        )
        if REQUIRED:
            pytest.fail(reason)
        _skip(reason)
    return BASE_URL


@pytest.fixture(scope="session")
def local_results(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    """Where each scenario leaves its record (written out at the end of the session)."""
    return request.config.stash.setdefault(_RESULTS_KEY, [])


def _cell(verdict: bool | None) -> str:
    return {True: "pass", False: "FAIL", None: "-"}[verdict]


def _write_results(results: list[dict[str, Any]]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "base_url": BASE_URL,
        "model": results[0]["model"],
        "passed": all(r["passed"] for r in results),
        "scenarios": results,
    }
    RESULTS.write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """After each scenario, the results so far (an interrupted run still leaves its record)."""
    results = item.config.stash.get(_RESULTS_KEY, [])
    if results:
        _write_results(results)


def _verdict(result: dict[str, Any], number: str) -> bool | None:
    """The scenario's verdict on the invariants numbered ``number`` (False wins, then True)."""
    verdicts = [v["passed"] for k, v in result["invariants"].items() if k.split("_")[0] == number]
    if False in verdicts:
        return False
    return True if True in verdicts else None


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Write the scenarios' records to RESULTS and print them as a table (and the wrong
    writes by kind, when those cases ran)."""
    from test_wrong_writes import _KEY as WRONG_WRITES
    from test_wrong_writes import RESULTS as WRONG_RESULTS
    from test_wrong_writes import summary

    wrong = config.stash.get(WRONG_WRITES, [])
    if wrong:
        terminalreporter.section(f"wrong writes by kind ({WRONG_RESULTS})")
        for line in summary(wrong):
            terminalreporter.write_line(line)
    results = config.stash.get(_RESULTS_KEY, [])
    if not results:
        return
    _write_results(results)
    names = sorted({name for r in results for name in r["invariants"]})
    numbers = sorted({name.split("_")[0] for name in names})  # a scenario has one 3_* check
    write = terminalreporter.write_line
    terminalreporter.section(f"live-local results ({RESULTS})")
    head = f"{'scenario':<20} {'req':>3} {'tok in':>7} {'new in':>6} {'out':>4} {'wall s':>7} "
    write(head + " ".join(f"{n:>4}" for n in numbers) + "  stop_reason/author")
    for r in results:
        tokens = r["tokens"]
        row = (
            f"{r['scenario']:<20} {r['model_requests']:>3} {tokens['prompt_tokens']:>7} "
            f"{tokens['prompt_processed']:>6} {tokens['completion_tokens']:>4} "
            f"{r['wall_seconds']:>7.1f} "
        )
        cells = " ".join(f"{_cell(_verdict(r, n)):>4}" for n in numbers)
        write(f"{row}{cells}  {r['stop_reason']}/{r['reply_author']}")
    write("invariants: " + ", ".join(names))
    for r in results:
        for name, verdict in r["invariants"].items():
            if verdict["passed"] is False:
                write(f"FAIL {r['scenario']} {name}: {verdict['detail']}")
