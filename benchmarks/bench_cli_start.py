"""What ``gymnasia --help`` costs, as a person waits for it: the wall time of the whole
command (a new interpreter, the ``gymnasia`` script) beside ``python -c pass`` and
``python -c "import typer"`` measured the same way in the same run.

Samples of the cases alternate, so drift in the machine's load hits all alike; medians are
printed, with the command's time over the bare interpreter's. The target is ``gymnasia
--help`` at most 150 ms on this machine: the help loads Typer and the command line's own
modules, never the agent, the providers, pydantic, rich or the web app (a test in
``tests/gymnasia/test_cli_start.py`` keeps that so; this script measures what it buys).

Run:  .venv/bin/python benchmarks/bench_cli_start.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 150.0


def _script() -> str:
    """The ``gymnasia`` script installed beside this interpreter (as a person runs it)."""
    found = Path(sys.executable).with_name("gymnasia")
    if found.exists():
        return str(found)
    on_path = shutil.which("gymnasia")
    if on_path is None:
        sys.exit("gymnasia is not installed beside this Python (make install)")
    return on_path


def cases() -> dict[str, list[str]]:
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import typer'": [sys.executable, "-c", "import typer"],
        "gymnasia --help": [_script(), "--help"],
    }


def wall_ms(argv: list[str]) -> float:
    """One run of ``argv``, start to exit, in milliseconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    runs = cases()
    for argv in runs.values():  # warm the file cache and the bytecode
        wall_ms(argv)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.runs):
        for name, argv in runs.items():
            samples[name].append(wall_ms(argv))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    base = medians["python -c pass"]
    print(f"{'case':<28}{'median ms':>10}{'min ms':>9}{'x pass':>8}{'+ms':>8}")
    for name, values in samples.items():
        median = medians[name]
        print(
            f"{name:<28}{median:>10.1f}{min(values):>9.1f}{median / base:>8.2f}"
            f"{median - base:>8.1f}"
        )
    help_ms = medians["gymnasia --help"]
    verdict = "within" if help_ms <= TARGET_MS else "OVER"
    print(f"\ngymnasia --help: {help_ms:.0f} ms median, {verdict} the {TARGET_MS:.0f} ms target")


if __name__ == "__main__":
    main()
