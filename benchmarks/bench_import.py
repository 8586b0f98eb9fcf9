"""What ``import surefoot`` costs a fresh process, beside ``import pydantic`` and ``import
pydantic.main`` measured the same way in the same run; and what a program pays until its first
tool is declared and validated, beside pydantic with one model built.

Each sample is a new interpreter that times its own code with ``perf_counter`` around it
(interpreter start-up is not counted: that is the *net* cost). Samples of the cases
alternate, so drift in the machine's load hits all alike; medians are printed, and the target
for ``import surefoot`` is at most 120 ms net. surefoot imports no pydantic until a tool is
declared (or ``Arguments`` is first used), so the second comparison is the honest one for a
program that declares tools. ``--tree`` also prints the modules ``import surefoot`` loads.

Run:  .venv/bin/python benchmarks/bench_import.py [--runs N] [--tree]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PROBE = (
    "import time; t, c = time.perf_counter(), time.process_time()\n{code}\n"
    "print((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000)"
)
# What a program pays before its first tool call can be checked: pydantic with one strict
# model built and used, against surefoot with one tool declared (its pydantic model and JSON
# Schema built) and its arguments validated. surefoot defers pydantic to this point.
MODEL = """
import datetime, pydantic
class ReadDay(pydantic.BaseModel, strict=True, extra="forbid"):
    date: datetime.date
    weight_kg: float | None = None
ReadDay.model_json_schema()
ReadDay.model_validate({"date": datetime.date(2026, 3, 1)})
"""
TOOL = """
import surefoot
tools = surefoot.ToolSet()
@tools.tool
def read_day(date: surefoot.CalendarDate, weight_kg: float | None = None) -> dict:
    "Read one day."
    return {}
tools.specs()
read_day.validate({"date": "2026-03-01"})
"""
CASES = {
    "import pydantic": "import pydantic",
    "import pydantic.main": "import pydantic.main",
    "import surefoot": "import surefoot",
    "import surefoot.providers": "import surefoot.providers",
    "pydantic, 1 model": MODEL,
    "surefoot, 1 tool": TOOL,
}
EXTRA = (
    "import sys; before = set(sys.modules); "
    "import surefoot; print(' '.join(sorted(set(sys.modules) - before)))"
)
TARGET_MS = 120.0


# bytecode caches are written and used, as in any installed package (an environment that
# sets PYTHONDONTWRITEBYTECODE would otherwise compile surefoot's editable sources anew in
# every process while pydantic's installed caches are read)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def sample(code: str) -> tuple[float, float]:
    """Milliseconds ``code`` takes in a fresh interpreter: wall clock, and the process's CPU
    time (what a busy machine inflates least)."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
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
    parser.add_argument("--runs", type=int, default=11, help="fresh processes per case (>= 5)")
    parser.add_argument("--tree", action="store_true", help="list the modules surefoot loads")
    options = parser.parse_args()
    runs = max(options.runs, 5)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{runs} fresh processes per case, alternating; load average: {load}\n")
    for code in CASES.values():  # warm-up: bytecode caches written, files in the page cache
        sample(code)
    walls: dict[str, list[float]] = {case: [] for case in CASES}
    cpus: dict[str, list[float]] = {case: [] for case in CASES}
    for _ in range(runs):
        for case, code in CASES.items():
            wall, cpu = sample(code)
            walls[case].append(wall)
            cpus[case].append(cpu)
    wall_m = {case: statistics.median(v) for case, v in walls.items()}
    cpu_m = {case: statistics.median(v) for case, v in cpus.items()}
    print(f"{'':<26} {'wall ms':>9} {'min-max':>15} {'cpu ms':>8} {'min-max':>15}")
    for case in CASES:
        print(
            f"{case:<26} {wall_m[case]:9.1f} {min(walls[case]):7.1f}-"
            f"{max(walls[case]):<7.1f} {cpu_m[case]:8.1f} {min(cpus[case]):7.1f}-"
            f"{max(cpus[case]):<7.1f}"
        )
    net = wall_m["import surefoot"]
    verdict = "within" if net <= TARGET_MS else "OVER"
    print(
        f"\nimport surefoot: {net:.1f} ms net wall ({verdict} the {TARGET_MS:.0f} ms target), "
        f"{cpu_m['import surefoot']:.1f} ms CPU; import pydantic "
        f"{wall_m['import pydantic']:.1f} ms, import pydantic.main "
        f"{wall_m['import pydantic.main']:.1f} ms (x{net / wall_m['import pydantic']:.2f} "
        f"and x{net / wall_m['import pydantic.main']:.2f})"
    )
    ready, floor = wall_m["surefoot, 1 tool"], wall_m["pydantic, 1 model"]
    print(
        f"first tool declared and validated: {ready:.1f} ms against {floor:.1f} ms for "
        f"pydantic with one model (x{ready / floor:.2f}, surefoot's own share "
        f"{ready - floor:.1f} ms wall, {cpu_m['surefoot, 1 tool'] - cpu_m['pydantic, 1 model']:.1f}"
        " ms CPU)"
    )
    if options.tree:
        out = subprocess.run(
            [sys.executable, "-c", EXTRA], check=True, capture_output=True, text=True, timeout=120
        )
        added = sorted({m.split(".")[0] for m in out.stdout.split()} - {"surefoot"})
        print(f"\npackages import surefoot loads besides its own: {', '.join(added) or '(none)'}")


if __name__ == "__main__":
    main()
