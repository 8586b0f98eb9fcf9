"""The load test's CPU split counts a process that ended during the run (a killed worker,
PostgreSQL's processes before a restart) with what it used until shortly before it ended,
not as nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks" / "load"))

from cpu import CpuSplit  # the load test's own module

BURN = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass\n"


def test_a_process_that_ends_mid_run_keeps_the_cpu_it_used() -> None:
    child = subprocess.Popen([sys.executable, "-c", BURN])
    watched = psutil.Process(child.pid)
    split = CpuSplit({"burner": lambda: [watched], "nobody": list}, every=0.05)
    split.start()
    assert child.wait(timeout=30) == 0  # ended and reaped: nothing left to read at the end
    split.stop()
    assert 0.4 <= split.used["burner"] <= 1.5
    assert split.used["nobody"] == 0.0
    assert "burner" in split.line()


def test_the_machine_line_says_how_much_stayed_idle_and_what_the_host_took(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cpu

    # the machine's counters since it started: the run's share is their growth in between
    counters = iter([(1_000.0, 50.0), (1_003.5, 50.25)])
    monkeypatch.setattr(cpu, "_idle_and_stolen", lambda: next(counters))
    split = CpuSplit({"nobody": list}, every=0.05)
    split.start()
    split.stop()
    assert (split.idle, split.stolen) == (3.5, 0.25)
    cores = psutil.cpu_count()
    assert f"the machine ({cores} cores): idle " in split.line()
    assert "taken by the host (steal) " in split.line()


def test_the_machines_counters_are_read_over_the_run_not_since_it_started() -> None:
    split = CpuSplit({"nobody": list}, every=0.05)
    split.start()
    subprocess.run([sys.executable, "-c", BURN], timeout=30, check=True)
    split.stop()
    cores = psutil.cpu_count() or 1
    # a busy machine may leave no idle time at all; never more than the cores had in the run
    assert 0.0 <= split.idle <= cores * split.seconds + 0.1
    assert 0.0 <= split.stolen <= cores * split.seconds + 0.1
