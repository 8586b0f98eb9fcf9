"""What ``import surefoot`` costs a fresh process, beside ``import pydantic.main`` (pydantic
with ``BaseModel``, which surefoot needs) measured the same way in the same run.

Each sample is a new interpreter that times its own import with ``perf_counter`` around the
``import`` statement (interpreter start-up is not counted: that is the *net* cost). Samples of
the modules alternate, so drift in the machine's load hits both alike; medians are printed,
and the target for ``import surefoot`` is at most 120 ms net. ``--tree`` also prints the
modules ``import surefoot`` loads that ``import pydantic`` does not.

Run:  .venv/bin/python benchmarks/bench_import.py [--runs N] [--tree]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PROBE = (
    "import time; t, c = time.perf_counter(), time.process_time(); import {module}; "
    "print((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000)"
)
EXTRA = (
    "import sys; import pydantic, pydantic.main, pydantic.fields; before = set(sys.modules); "
    "import surefoot; print(' '.join(sorted(set(sys.modules) - before)))"
)
TARGET_MS = 120.0


# bytecode caches are written and used, as in any installed package (an environment that
# sets PYTHONDONTWRITEBYTECODE would otherwise compile surefoot's editable sources anew in
# every process while pydantic's installed caches are read)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def sample(module: str) -> tuple[float, float]:
    """Milliseconds ``import module`` takes in a fresh interpreter: wall clock, and the
    process's CPU time (what a busy machine inflates least)."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="fresh processes per module (>= 5)")
    parser.add_argument("--tree", action="store_true", help="list what surefoot adds")
    options = parser.parse_args()
    runs = max(options.runs, 5)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{runs} fresh processes per module, alternating; load average: {load}\n")
    modules = ("pydantic.main", "surefoot", "surefoot.providers")
    for module in modules:  # warm-up: bytecode caches written, files in the page cache
        sample(module)
    walls: dict[str, list[float]] = {m: [] for m in modules}
    cpus: dict[str, list[float]] = {m: [] for m in modules}
    for _ in range(runs):
        for module in modules:
            wall, cpu = sample(module)
            walls[module].append(wall)
            cpus[module].append(cpu)
    wall_m = {m: statistics.median(v) for m, v in walls.items()}
    cpu_m = {m: statistics.median(v) for m, v in cpus.items()}
    print(
        f"{'import':<22} {'wall ms':>9} {'min-max':>15} {'cpu ms':>8} {'min-max':>15} "
        f"{'x pydantic':>10}"
    )
    for module in modules:
        print(
            f"{module:<22} {wall_m[module]:9.1f} {min(walls[module]):7.1f}-"
            f"{max(walls[module]):<7.1f} {cpu_m[module]:8.1f} {min(cpus[module]):7.1f}-"
            f"{max(cpus[module]):<7.1f} {wall_m[module] / wall_m['pydantic.main']:10.2f}"
        )
    verdict = "within" if wall_m["surefoot"] <= TARGET_MS else "OVER"
    print(
        f"\nimport surefoot: {wall_m['surefoot']:.1f} ms net wall ({verdict} the "
        f"{TARGET_MS:.0f} ms target), {cpu_m['surefoot']:.1f} ms CPU; pydantic alone "
        f"{wall_m['pydantic.main']:.1f} ms wall, {cpu_m['pydantic.main']:.1f} ms CPU; "
        f"surefoot's own share {wall_m['surefoot'] - wall_m['pydantic.main']:.1f} ms wall, "
        f"{cpu_m['surefoot'] - cpu_m['pydantic.main']:.1f} ms CPU"
    )
    if options.tree:
        out = subprocess.run(
            [sys.executable, "-c", EXTRA], check=True, capture_output=True, text=True, timeout=120
        )
        added = [m for m in out.stdout.split() if not m.startswith("surefoot")]
        print(f"\nmodules surefoot loads beyond pydantic's: {', '.join(added) or '(none)'}")


if __name__ == "__main__":
    main()
