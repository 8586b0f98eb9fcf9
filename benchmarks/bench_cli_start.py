"""What ``gymnasia --help`` costs, as a person waits for it: the wall time of the whole
command (a new interpreter, the ``gymnasia`` script) beside ``python -c pass`` and
``python -c "import typer"`` measured the same way in the same run.

Samples of the cases alternate, so drift in the machine's load hits all alike; medians are
printed, with the command's time over the bare interpreter's. The target is ``gymnasia
--help`` at most 150 ms on this machine: the help loads Typer and the command line's base
modules, and no command's module (it lists the commands from ``cli/_commands.py``), so never
the agent, the providers, pydantic, rich or the web app (tests in
``tests/gymnasia/test_cli_start.py`` keep that so; this script measures what it buys). Typer's
own import is most of what is left: the ``import typer`` row is the floor.

Run:  .venv/bin/python benchmarks/bench_cli_start.py [--runs N] [--other PATH/bin/gymnasia]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 150.0
_DROPPED = ("GYMNASIA_", "PYTHONDONTWRITEBYTECODE")
"""Not passed on: the app's settings, and a switch that would make every start compile every
module again (a person's install keeps its bytecode; the warm-up run writes it here)."""


def _script() -> str:
    """The ``gymnasia`` script installed beside this interpreter (as a person runs it)."""
    found = Path(sys.executable).with_name("gymnasia")
    if found.exists():
        return str(found)
    on_path = shutil.which("gymnasia")
    if on_path is None:
        sys.exit("gymnasia is not installed beside this Python (make install)")
    return on_path


def cases(other: str | None) -> dict[str, list[str]]:
    """The commands timed; ``other``: another tree's ``gymnasia`` script (a before figure)."""
    found = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import typer'": [sys.executable, "-c", "import typer"],
        "gymnasia --help": [_script(), "--help"],
    }
    if other:
        found["other gymnasia --help"] = [other, "--help"]
    return found


def run_ms(argv: list[str]) -> tuple[float, float]:
    """One run of ``argv``, start to exit: its wall time and its CPU time (user + system,
    which a loaded machine inflates far less), in milliseconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--other", help="another tree's gymnasia script, timed alongside")
    args = parser.parse_args()
    runs = cases(args.other)
    for argv in runs.values():  # warm the file cache and the bytecode
        run_ms(argv)
    walls: dict[str, list[float]] = {name: [] for name in runs}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.runs):
        for name, argv in runs.items():
            wall, cpu = run_ms(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
    wall_of = {name: statistics.median(values) for name, values in walls.items()}
    cpu_of = {name: statistics.median(values) for name, values in cpus.items()}
    base = wall_of["python -c pass"]
    print(f"{'case':<28}{'wall ms':>9}{'min ms':>9}{'x pass':>8}{'cpu ms':>9}")
    for name in runs:
        print(
            f"{name:<28}{wall_of[name]:>9.1f}{min(walls[name]):>9.1f}"
            f"{wall_of[name] / base:>8.2f}{cpu_of[name]:>9.1f}"
        )
    help_ms = wall_of["gymnasia --help"]
    verdict = "within" if help_ms <= TARGET_MS else "OVER"
    print(f"\ngymnasia --help: {help_ms:.0f} ms median wall, {verdict} {TARGET_MS:.0f} ms")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
